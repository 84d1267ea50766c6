#include "driver/function_e2e_fixture.hpp"

#include <iostream>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"

namespace agentworks::e2e {

using nlohmann::json;

void FunctionE2eTest::SetUp() {
  AW_E2E_NEED_CLI(cli_ == "codex" ? codex_binary() : claude_binary(), cli_);
  model_ = std::make_unique<MockModel>();
  // One server serves both CLIs: Claude Code's offline variables, and a CODEX_HOME whose provider reads
  // OPENAI_API_KEY (the server passes OPENAI_* to agent runs, not MOCK_API_KEY).
  agent_env_ = testing::merge_env(claude_env(home_, *model_), codex_env(home_, *model_, "OPENAI_API_KEY"));
  start_server({}, agent_env_);
}

void FunctionE2eTest::TearDown() {
  if (HasFailure() && model_) std::cerr << model_->describe() << "\n";
  MessagingTest::TearDown();  // the server log on failure
  server_.reset();            // the server (and, through its keeper, every agent run) first: hanging answers go last
  model_.reset();
}

ScriptedToolCall FunctionE2eTest::shell_call(const std::string& cli, const std::string& command) {
  if (cli == "codex") {
    return {"exec_command", [command](const ModelRequest&) { return json{{"cmd", command}}.dump(); }};
  }
  return {"Bash", [command](const ModelRequest&) {
            return json{{"command", command}, {"description", "write the function result"}}.dump();
          }};
}

ScriptedToolCall FunctionE2eTest::request_input_call(const std::string& question) {
  return {"request_input", [question](const ModelRequest&) { return json{{"question", question}}.dump(); }};
}

std::string FunctionE2eTest::write_result_command(const std::string& json_text, const std::string& echo) {
  return "printf '%s' '" + json_text + "' > \"$FUNCTION_RESULT_FILE\"; echo " + echo;
}

json FunctionE2eTest::agent_function_for(const std::string& cli, const std::string& name, const json& output_schema,
                                     const json& extra) {
  const std::string prompt = "Do task {{text}}. Use your shell tool when the task needs it.";
  json run = cli == "codex"
                 ? json{{"codex", {{"prompt", prompt}, {"sandbox", "workspace-write"}}}}
                 : json{{"claude",
                         {{"prompt", prompt}, {"allowed_tools", json::array({"Bash"})}, {"permission_mode", "default"},
                          {"max_turns", 10}}}};
  json f = {{"name", name},
            {"description", "agent function " + name},
            {"inputs",
             {{"type", "object"},
              {"properties", {{"text", {{"type", "string"}}}}},
              {"required", json::array({"text"})}}},
            {"run", run},
            {"timeout_seconds", 240},
            {"idle_timeout_seconds", 120}};
  if (!output_schema.is_null()) f["output_schema"] = output_schema;
  for (const auto& [key, value] : extra.items()) f[key] = value;
  return f;
}

json FunctionE2eTest::ok_schema() {
  return {{"type", "object"},
          {"properties", {{"ok", {{"type", "boolean"}}}}},
          {"required", json::array({"ok"})},
          {"additionalProperties", false}};
}

testing::HttpResponse FunctionE2eTest::register_agent_crew(const std::string& name, const std::filesystem::path& dir) {
  // Exactly what the agent functions declare: Bash for Claude, a workspace-write sandbox for Codex.
  const json body = {{"crew_name", name},
                     {"dir", dir.string()},
                     {"allow", {{"claude_tools", json::array({"Bash"})}, {"codex_sandbox", "workspace-write"}}}};
  return owner_http().post("/v1/crews", body.dump());
}

json FunctionE2eTest::make_agent_crew(const std::string& name, const json& functions) {
  const auto dir = make_crew_dir(name);
  write_functions(dir, functions);
  const auto r = register_agent_crew(name, dir);
  if (r.status != 201) throw std::runtime_error("registering Crew " + name + " failed: " + testing::describe(r));
  return testing::parse_json(r.body);
}

void FunctionE2eTest::make_talking_crew(const std::string& name, const json& functions) {
  const auto dir = make_crew_dir(name);
  write_functions(dir, functions);
  const json agent = cli_ == "codex"
                         ? json{{"codex", {{"instructions", "You answer questions about the api project."},
                                           {"sandbox", "workspace-write"}}}}
                         : json{{"claude", {{"instructions", "You answer questions about the api project."},
                                            {"allowed_tools", json::array({"Bash"})}}}};
  write_text(dir / ".agentworks" / "crew.json", json{{"agent", agent}}.dump(2));
  const auto r = register_agent_crew(name, dir);
  if (r.status != 201) throw std::runtime_error("registering Crew " + name + " failed: " + testing::describe(r));
  register_agent(owner(), "worker");
}

std::string FunctionE2eTest::start_call(const std::string& crew, const std::string& function,
                                        const std::string& marker) {
  return call_ok(crew, function, json{{"text", marker}}).at("call_id").get<std::string>();
}

json FunctionE2eTest::reply(const std::string& call_id, const std::string& request_id, const std::string& answer) {
  return http_json(owner_http(), "POST", "/v1/calls/" + call_id + "/replies",
                   json{{"request_id", request_id}, {"answer", answer}}.dump(), 200);
}

json FunctionE2eTest::wait_waiting_input(const std::string& call_id, std::chrono::milliseconds timeout) {
  return wait_status(
      call_id,
      [](const json& c) {
        return c.value("status", "") == "waiting_input" || testing::is_terminal_status(c.value("status", ""));
      },
      timeout);
}

bool FunctionE2eTest::wait_hanging(std::size_t n, std::chrono::milliseconds timeout) const {
  return testing::wait_until(
      [&] {
        std::size_t hanging = 0;
        for (const auto& r : model_->main_turns()) hanging += r.reply == "hang" ? 1u : 0u;
        return hanging >= n;
      },
      timeout, std::chrono::milliseconds(20));
}

int FunctionE2eTest::count_events(const json& call, const std::string& type) {
  int n = 0;
  for (const auto& e : call.value("events", json::array())) n += e.value("type", "") == type ? 1 : 0;
  return n;
}

std::vector<std::string> FunctionE2eTest::message_kinds(const json& call) {
  std::vector<std::string> out;
  for (const auto& m : call.value("messages", json::array())) out.push_back(m.value("kind", ""));
  return out;
}

}  // namespace agentworks::e2e
