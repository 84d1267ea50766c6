#include "functions/questions.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "output.hpp"
#include "functions/routes.hpp"

namespace agentworks::cli::functions {
using nlohmann::json;
namespace {

constexpr int kPollSeconds = 25;

std::string required_env(env::Var var, std::string_view who) {
  const char* value = env::get(var);
  if (value == nullptr || *value == '\0') {
    throw Error(ErrorCode::usage, std::string(who) + " only works inside a function execution (" +
                                      std::string(env::info(var).name) +
                                      " is not set); the server sets it for the process it runs for a call");
  }
  return value;
}

}  // namespace

ExecutionBinding execution_binding(std::string_view who) {
  ExecutionBinding b;
  b.server = required_env(env::Var::execution_server, who);
  b.call_id = required_env(env::Var::execution_call_id, who);
  b.token = required_env(env::Var::execution_call_token, who);
  if (const char* ca = env::get(env::Var::execution_server_ca_file)) b.ca_file = ca;
  return b;
}

Answered ask_and_wait(const ExecutionBinding& binding, const std::string& question,
                      const std::optional<json>& schema) {
  ServerClientOptions options;
  options.ca_file = binding.ca_file;
  ServerClient client(binding.server, binding.token, options);
  const std::string questions = call_path(binding.call_id) + "/questions";
  json body = {{"question", question}};
  if (schema) body["schema"] = *schema;
  const std::string request_id = text_or(client.post(questions, body), "request_id", "");
  if (request_id.empty()) throw Error(ErrorCode::internal, "the server's answer to the question has no request_id");
  const std::string wait = questions + "/" + url_encode(request_id) + "?wait_seconds=" + std::to_string(kPollSeconds);
  while (true) {
    json state;
    try {
      state = client.get(wait, kPollSeconds);
    } catch (const Error& e) {
      // A full server is temporary; anything else (the call closed, the server gone) ends the wait.
      if (e.code() != ErrorCode::busy) throw;
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    if (state.value("answered", false)) return {request_id, text_or(state, "answer", "")};
  }
}

}  // namespace agentworks::cli::functions
