// agentworks functions ask --question TEXT: inside a function execution only, asks the call's caller a question and
// blocks until it is answered (`functions reply`), then prints the answer. The call and its per-call secret come
// from the environment the server gave the execution (AGENTWORKS_SERVER, AGENTWORKS_CALL_ID,
// AGENTWORKS_CALL_TOKEN), never from arguments or from a login, so an execution can ask about its own call only.
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "agentworks/validation.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "functions/routes.hpp"
#include "output.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

constexpr int kPollSeconds = 25;

std::string required_env(env::Var var) {
  const char* value = env::get(var);
  if (value == nullptr) {
    throw Error(ErrorCode::usage, "`agentworks functions ask` only works inside a function execution (" +
                                      std::string(env::info(var).name) +
                                      " is not set); the server sets it for the process it runs for a call");
  }
  return value;
}

class FunctionsAsk final : public Command {
 public:
  void define(Options& options) override {
    options.option("--question", question_, "The question for the caller, or - to read it from stdin").required();
  }

  json run(const Context& /*ctx*/) override {
    const std::string server = required_env(env::Var::execution_server);
    const std::string call_id = required_env(env::Var::execution_call_id);
    const std::string token = required_env(env::Var::execution_call_token);
    const std::string question = message_argument(question_);
    if (blank_text(question)) throw Error(ErrorCode::usage, "--question is empty");
    ServerClient client(server, token);
    const std::string questions = functions::call_path(call_id) + "/questions";
    const std::string request_id = text_or(client.post(questions, {{"question", question}}), "request_id", "");
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
      if (state.value("answered", false)) {
        return {{"request_id", request_id}, {"answer", text_or(state, "answer", "")}};
      }
    }
  }

  void print(const json& result) const override { std::cout << text_or(result, "answer", "") << "\n"; }

 private:
  std::string question_;
};

}  // namespace

std::unique_ptr<Command> make_functions_ask() { return std::make_unique<FunctionsAsk>(); }

}  // namespace agentworks::cli
