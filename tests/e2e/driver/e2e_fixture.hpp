// The fixture of the end-to-end tests: a temp HOME with a real agentworks-server (owner logged in, agent
// "worker" registered to send from the terminal), a real agentworks-bridge, the mock model API and an empty
// project directory. Claude and Codex tests build on it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "mock_model/mock_model.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::e2e {

class E2eTest : public testing::MessagingTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // `agentworks ARGS` run in the project directory as the person would (env: the temp HOME + tools on PATH).
  testing::CliResult project_cli(const std::vector<std::string>& args, const testing::EnvOverrides& env,
                                 const std::optional<std::string>& stdin_data = std::nullopt);
  // The person's one-time setup for `provider` (claude, codex or pi): sets `env` to that CLI's offline environment and
  // runs `agentworks attach PROVIDER --yes` in the project; for Codex also trusts the project's hooks as its /hooks
  // screen does. `extra` goes on the attach command line (e.g. --allow-tools). Fails the test (fatally) when any
  // step fails.
  void install_for(const std::string& provider, testing::EnvOverrides& env,
                   const std::vector<std::string>& extra = {});
  // A message typed on the terminal by the owner as agent "worker" to agent `to`; returns the message id.
  std::string send_from_terminal(const std::string& to, const std::string& text);
  // The bridge's attachment of (provider, session) from its status op, or {} when it has none.
  nlohmann::json attachment(const std::string& provider, const std::string& session);
  // The bridge's attachment of agent `name` for `provider` (the attached one first, any session), or {}.
  nlohmann::json attachment_named(const std::string& provider, const std::string& name);
  // The server's delivery receipt of message `id` (its "delivery" object) as the owner sees it.
  nlohmann::json receipt(const std::string& id);
  // R-N4 set-up: the first main turn whose newest user message carries `marker` answers `answer` after `delay`,
  // and while the mock holds it `text` is sent from the terminal to agent `to` (once). Returns that message's id
  // ("" until it was sent).
  std::shared_ptr<std::string> send_during_slow_turn(const std::string& marker, const std::string& answer,
                                                     std::chrono::milliseconds delay, const std::string& to,
                                                     const std::string& text);
  // Scripts the mock's next two main turns: agent_message_ack (processed) of the message id the turn's newest user
  // message names (msg_…), then agent_message_reply to it with `reply_text`. Returns the id the ack named (""
  // until that turn ran).
  std::shared_ptr<std::string> script_ack_then_reply(const std::string& reply_text);
  // The woken turn of a test that scripted the mock to call agent_message_ack then agent_message_reply on
  // message `id`: the ack carried the id and processed it, the reply was accepted, no tool result says "not
  // attached" or asks for permission, the receipt is processed and `reply_text` reached agent "worker".
  void expect_woken_turn_acked_and_replied(const std::string& id, const std::string& reply_text);
  // R-X2: after the woken turn called agent_message_no_reply on message `id` with `reason`: the receipt reads
  // processed and no_reply, and the reason is in neither the sender's mailbox nor the server's log.
  void expect_declined_without_the_reason(const std::string& id, const std::string& reason);
  // R-X3: the turn message `id` (text `body`) woke ended with text only: the Stop hook asked the model once (its
  // next request carries the question, naming the id, never the text), the turn ended silent again, the receipt
  // reads unanswered and the sender (worker) has one status line.
  void expect_asked_once_then_unanswered(const std::string& id, const std::string& body);
  // Waits until the bridge holds `n` waiting messages for (provider, session).
  bool wait_pending(const std::string& provider, const std::string& session, long n);
  // The mock model's main turns whose newest user message carries `text`.
  std::vector<ModelRequest> turns_with(const std::string& text) const;
  // Main turns whose newest user message carries a delivery.
  std::vector<ModelRequest> deliveries() const { return turns_with("[agentworks]"); }
  // Claude Code's first-run dialogs answered as a person does (onboarding done, the API key in `env` approved,
  // the project folder trusted), stored in the temp HOME's ~/.claude.json.
  void accept_claude_first_run(const testing::EnvOverrides& env);
  // R-D1 setup: the owner's Crew api with one function echo, and the model's next main turn scripted to call it
  // through call_function (the chat still needs the person's grant).
  void register_echo_crew_and_script_the_call();
  // R-D2: after the scripted call, the call's outcome woke the chat in a later turn of its own, offered once, with
  // the echo's answer; the call names agent:reviewer as its caller and completed. Returns the call id ("" when a
  // fatal expectation failed).
  std::string expect_delegated_outcome_woke_the_chat();
  // Extra output shown when a test fails (CLI runs, screens).
  void note(const std::string& text) { notes_ += text + "\n"; }

  std::unique_ptr<MockModel> model_;
  std::unique_ptr<testing::BridgeProcess> bridge_;
  std::filesystem::path project_;

 private:
  std::string notes_;
};

}  // namespace agentworks::e2e
