#include "driver/e2e_fixture.hpp"

#include <atomic>
#include <fstream>
#include <iostream>
#include <regex>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/codex_trust.hpp"
#include "support/crew_folder.hpp"
#include "testing/binaries.hpp"

namespace agentworks::e2e {

using nlohmann::json;

void E2eTest::SetUp() {
  start_server({"--wakeup-tick-seconds", "1"});  // R-W4: wakeups fire within a second, so their tests are short
  register_agent(owner(), "worker");
  bridge_ = std::make_unique<testing::BridgeProcess>(home_);
  bridge_->start();
  model_ = std::make_unique<MockModel>();
  project_ = home_.path("project");
  std::filesystem::create_directories(project_);
  // The project is its own workspace root, as a person's checkout is: Claude Code looks upward for `.git`, and a
  // stray one above (Codex's sandbox leaves an empty /tmp/.git) would make /tmp the folder whose trust counts.
  std::filesystem::create_directories(project_ / ".git");
}

void E2eTest::install_for(const std::string& provider, testing::EnvOverrides& env,
                          const std::vector<std::string>& extra) {
  env = provider == "codex" ? codex_env(home_, *model_)
        : provider == "pi"  ? pi_env(home_, *model_)
                            : claude_env(home_, *model_);
  std::vector<std::string> args{"attach", provider, "--yes"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto install = project_cli(args, env);
  ASSERT_EQ(install.exit_code, 0) << install.describe();
  if (provider != "codex") return;
  const auto hooks = trust_agentworks_hooks(codex_binary(), env, project_);
  ASSERT_GE(hooks.size(), 2u) << "Codex lists no agentworks hooks for the project";
  for (const auto& h : hooks) EXPECT_EQ(h.trust, "trusted") << h.key << " " << h.command;
}

json E2eTest::receipt(const std::string& id) {
  return http_json(owner_http(), "GET", "/v1/messages/" + id + "/receipt", std::nullopt, 200)
      .value("delivery", json::object());
}

std::shared_ptr<std::string> E2eTest::send_during_slow_turn(const std::string& marker, const std::string& answer,
                                                            std::chrono::milliseconds delay, const std::string& to,
                                                            const std::string& text) {
  model_->queue_reply(answer);
  model_->slow_turn_once(marker, delay);
  auto sent_id = std::make_shared<std::string>();
  auto sent = std::make_shared<std::atomic<bool>>(false);
  // Runs on the mock's thread and may outlive the test body: it owns what it uses.
  model_->on_main_turn([this, marker, to, text, sent, sent_id](const ModelRequest& req) {
    if (req.last_user.find(marker) == std::string::npos || sent->exchange(true)) return;
    try {
      *sent_id = send_from_terminal(to, text);
    } catch (const std::exception&) {
    }
  });
  return sent_id;
}

std::shared_ptr<std::string> E2eTest::script_ack_then_reply(const std::string& reply_text) {
  auto id_seen = std::make_shared<std::string>();
  model_->queue_tool_call({"agent_message_ack", [id_seen](const ModelRequest& r) {
                             static const std::regex id(R"(msg_[A-Za-z0-9_-]+)");
                             std::smatch m;
                             if (std::regex_search(r.last_user, m, id)) *id_seen = m.str();
                             return json{{"message_id", *id_seen}, {"delivery", "processed"}}.dump();
                           }});
  model_->queue_tool_call({"agent_message_reply", [id_seen, reply_text](const ModelRequest&) {
                             return json{{"message_id", *id_seen}, {"message", reply_text}}.dump();
                           }});
  return id_seen;
}

void E2eTest::expect_woken_turn_acked_and_replied(const std::string& id, const std::string& reply_text) {
  using namespace std::chrono_literals;
  const auto ack = model_->wait_for_tool_result("agent_message_ack", 0, 90s);
  ASSERT_TRUE(ack) << model_->describe();
  EXPECT_NE(ack->arguments.find(id), std::string::npos) << ack->arguments;
  EXPECT_NE(ack->output.find("\"state\":\"processed\""), std::string::npos) << ack->output;
  const auto reply = model_->wait_for_tool_result("agent_message_reply", 0, 60s);
  ASSERT_TRUE(reply) << model_->describe();
  EXPECT_NE(reply->output.find("\"accepted\":true"), std::string::npos) << reply->output;
  for (const auto& r : model_->tool_results()) {
    EXPECT_EQ(r.output.find("not attached"), std::string::npos) << r.tool << ": " << r.output;
    EXPECT_EQ(r.output.find("permission"), std::string::npos) << r.tool << ": " << r.output;
  }
  EXPECT_TRUE(testing::wait_until([&] { return receipt(id).value("state", "") == "processed"; }, 30s, 100ms))
      << receipt(id).dump();
  EXPECT_TRUE(testing::wait_until(
      [&] { return read_mailbox(owner(), "worker").dump().find(reply_text) != std::string::npos; }, 30s, 200ms))
      << read_mailbox(owner(), "worker").dump();
}

void E2eTest::TearDown() {
  if (HasFailure()) {
    std::cerr << "=== notes ===\n" << notes_ << "\n";
    if (model_) std::cerr << model_->describe() << "\n";
    if (bridge_) std::cerr << "=== bridge log ===\n" << bridge_->log() << "\n";
  }
  bridge_.reset();
  model_.reset();
  MessagingTest::TearDown();
}

testing::CliResult E2eTest::project_cli(const std::vector<std::string>& args, const testing::EnvOverrides& env,
                                        const std::optional<std::string>& stdin_data) {
  std::vector<std::string> argv{testing::cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::RunOptions options;
  options.env = env;
  options.cwd = project_;
  options.stdin_data = stdin_data;
  options.timeout = std::chrono::seconds(120);
  const auto r = testing::run_process(argv, options);
  testing::CliResult out;
  static_cast<testing::ProcessResult&>(out) = r;
  out.args = args;
  note(out.describe());
  return out;
}

std::string E2eTest::send_from_terminal(const std::string& to, const std::string& text) {
  const json sent = send_as(owner(), "worker", "agent:" + to, text);
  return sent.value("message_id", sent.value("id", ""));
}

json E2eTest::attachment(const std::string& provider, const std::string& session) {
  const auto status = testing::bridge_call(home_, {{"op", "status"}});
  if (!status) return json::object();
  for (const auto& att : status->value("attachments", json::array())) {
    if (att.value("provider", "") == provider && att.value("session_id", "") == session) return att;
  }
  return json::object();
}

json E2eTest::attachment_named(const std::string& provider, const std::string& name) {
  const auto status = testing::bridge_call(home_, {{"op", "status"}});
  if (!status) return json::object();
  json found = json::object();
  for (const auto& att : status->value("attachments", json::array())) {
    if (att.value("provider", "") != provider || att.value("agent_name", "") != name) continue;
    if (att.value("state", "") == "attached") return att;
    found = att;
  }
  return found;
}

void E2eTest::expect_declined_without_the_reason(const std::string& id, const std::string& reason) {
  using namespace std::chrono_literals;
  const auto declined = model_->wait_for_tool_result("agent_message_no_reply", 0, 90s);
  ASSERT_TRUE(declined) << model_->describe();
  ASSERT_TRUE(testing::wait_until([&] { return receipt(id).value("reply_state", "") == "no_reply"; }, 30s))
      << receipt(id).dump() << declined->output;
  EXPECT_EQ(receipt(id).at("state"), "processed");
  EXPECT_EQ(read_mailbox(owner(), "worker").dump().find(reason), std::string::npos);
  EXPECT_EQ(server_->log().find(reason), std::string::npos) << "the reason stays on this computer";
}

void E2eTest::expect_asked_once_then_unanswered(const std::string& id, const std::string& body) {
  using namespace std::chrono_literals;
  const std::string question = "this turn received " + id + " from other agents and did not answer it";
  ASSERT_TRUE(testing::wait_until([&] { return !turns_with(question).empty(); }, 90s)) << model_->describe();
  EXPECT_EQ(turns_with(question).front().last_user.find(body), std::string::npos) << "the question never repeats it";
  ASSERT_TRUE(testing::wait_until([&] { return receipt(id).value("reply_state", "") == "unanswered"; }, 60s))
      << receipt(id).dump() << "\n" << model_->describe();
  const std::string line = "reviewer ended its turn without replying to " + id + ".";
  const auto status_lines = [&] {
    std::vector<std::string> out;
    const json page = read_mailbox(owner(), "worker");
    for (const json& m : page.at("messages"))
      if (m.value("kind", "") == "status") out.push_back(m.value("message", ""));
    return out;
  };
  ASSERT_TRUE(testing::wait_until([&] { return status_lines() == std::vector<std::string>{line}; }, 30s))
      << read_mailbox(owner(), "worker").dump();
  EXPECT_EQ(turns_with(question).size(), 1u) << "asked once";
}

std::vector<ModelRequest> E2eTest::turns_with(const std::string& text) const {
  std::vector<ModelRequest> out;
  for (const auto& r : model_->main_turns()) {
    if (r.last_user.find(text) != std::string::npos) out.push_back(r);
  }
  return out;
}

void E2eTest::register_echo_crew_and_script_the_call() {
  testing::CrewFolder crew(std::filesystem::weakly_canonical(home_.path("crew-api")));
  crew.declare({testing::CrewFolder::function("echo", crew.script("echo.sh", testing::kEchoScript))});
  cli_ok(owner(), {"crews", "register", "api", "--dir", crew.dir().string()});
  model_->queue_tool_call({"call_function", [](const ModelRequest&) {
                             return json{{"target", "api"}, {"function", "echo"}, {"arguments", {{"text", "delegated"}}}}
                                 .dump();
                           }});
}

std::string E2eTest::expect_delegated_outcome_woke_the_chat() {
  const auto result = model_->wait_for_tool_result("call_function");
  if (!result) {
    ADD_FAILURE() << "no call_function result: " << model_->describe();
    return "";
  }
  static const std::regex call_id(R"(call_[0-9a-f]{24})");
  std::smatch m;
  if (!std::regex_search(result->output, m, call_id)) {
    ADD_FAILURE() << "no call id in the tool result: " << result->output;
    return "";
  }
  const std::string id = m.str();
  const auto woken = model_->wait_for(
      [&](const ModelRequest& r) {
        return r.main_turn && r.last_user.find("call_outcome of function call " + id) != std::string::npos;
      },
      std::chrono::seconds(90));
  if (!woken) {
    ADD_FAILURE() << "the outcome of " << id << " never woke the chat: " << model_->describe();
    return id;
  }
  EXPECT_NE(woken->last_user.find("got: {\"text\":\"delegated\"}"), std::string::npos) << woken->last_user;
  const json call = cli_ok(owner(), {"functions", "call-status", "--call", id});
  EXPECT_EQ(call.at("caller").at("agent_name"), "reviewer") << call.dump();
  EXPECT_EQ(call.at("notify"), "agent:reviewer") << call.dump();
  EXPECT_EQ(call.at("status"), "completed") << call.dump();
  EXPECT_EQ(turns_with("call_outcome of function call " + id).size(), 1u) << "offered once";
  return id;
}

void E2eTest::accept_claude_first_run(const testing::EnvOverrides& env) {
  const auto state_path = home_.home() / ".claude.json";
  json state = json::parse(testing::read_file(state_path), nullptr, false);
  if (!state.is_object()) state = json::object();
  const std::string key = env.at("ANTHROPIC_API_KEY").value_or("");
  state["hasCompletedOnboarding"] = true;
  state["customApiKeyResponses"] = {{"approved", json::array({key.substr(key.size() - 20)})},
                                    {"rejected", json::array()}};
  state["projects"][project_.string()]["hasTrustDialogAccepted"] = true;
  std::ofstream(state_path) << state.dump();
}

bool E2eTest::wait_pending(const std::string& provider, const std::string& session, long n) {
  return testing::wait_until(
      [&] {
        const auto l = testing::bridge_call(home_, {{"op", "lookup"}, {"provider", provider}, {"session_id", session}});
        return l && l->value("pending", -1L) == n;
      },
      std::chrono::seconds(20), std::chrono::milliseconds(50));
}

}  // namespace agentworks::e2e
