// agentworks bridge function list|call|status|reply|cancel --provider P: the chat's function tools (R-D1) for a
// CLI without the plugin's MCP server (Cursor's fallback, like `bridge message`): as the attached chat of the
// calling process, with its agent's child connection, only for the Crews the person granted it.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "commands/bridge_message_base.hpp"
#include "mcp/messaging.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

enum class Action { list, call, status, reply, cancel };

class BridgeFunction final : public BridgeMessageCommand {
 public:
  explicit BridgeFunction(Action action)
      : BridgeMessageCommand(std::string(local_protocol::op::function)), action_(action) {}

  void define(Options& options) override {
    define_provider(options);
    if (action_ == Action::list || action_ == Action::call)
      options.option("--crew", crew_, "The Crew's name (or crw_ id)").required();
    if (action_ == Action::call) {
      options.option("--function", function_, "The function to call (see bridge function list)").required();
      options.option("--args", args_, "The arguments as JSON (e.g. '{\"text\":\"hi\"}')").required();
      define_submission_id(options);
      options.flag("--no-notify", no_notify_, "Do not tell this chat of the call's questions and outcome");
    }
    if (action_ != Action::list && action_ != Action::call)
      options.call_id(call_id_).required();
    if (action_ == Action::status) {
      options.option("--after", after_, "Messages after this seq (next_after)");
      options.option("--after-event", after_event_, "Events after this seq (next_after_event)");
    }
    if (action_ == Action::reply) {
      options.option("--request", request_id_, "The question's request_id (req_…)").required();
      options.option("--answer", answer_, "The answer text, or - to read it from stdin").required();
    }
  }

  json run(const Context& /*ctx*/) override {
    json fields = json::object();
    switch (action_) {
      case Action::list:
        fields = {{"action", "list"}, {"target", crew_}};
        break;
      case Action::call: {
        const json arguments = json::parse(args_, nullptr, false);
        if (!arguments.is_object())
          throw Error(ErrorCode::usage, "--args must be a JSON object, e.g. '{\"text\":\"hi\"}'");
        fields = {{"action", "call"}, {"target", crew_}, {"function", function_}, {"arguments", arguments},
                  {"notify", !no_notify_}};
        add_submission_id(fields);
        break;
      }
      case Action::status:
        fields = {{"action", "status"}, {"call_id", call_id_}};
        if (after_) fields["after"] = *after_;
        if (after_event_) fields["after_event"] = *after_event_;
        break;
      case Action::reply:
        fields = {{"action", "reply"}, {"call_id", call_id_}, {"request_id", request_id_},
                  {"answer", message_text_option(answer_)}};
        break;
      case Action::cancel:
        fields = {{"action", "cancel"}, {"call_id", call_id_}};
        break;
    }
    json answer = call(std::move(fields));
    if (answer.value("queued", false)) return answer;  // the outbox's: made later, once
    return answer.value("answer", json::object());      // the server's object, as --json shows it
  }

  void print(const json& result) const override {
    std::cout << (result.value("queued", false) ? mcp::describe_answer(std::string(local_protocol::op::function), result)
                                                : mcp::describe_function_answer(result))
              << "\n";
  }

 private:
  Action action_;
  std::string crew_;
  std::string function_;
  std::string args_;
  bool no_notify_ = false;
  std::string call_id_;
  std::optional<long long> after_;
  std::optional<long long> after_event_;
  std::string request_id_;
  std::string answer_;
};

}  // namespace

std::unique_ptr<Command> make_bridge_function_list() { return std::make_unique<BridgeFunction>(Action::list); }
std::unique_ptr<Command> make_bridge_function_call() { return std::make_unique<BridgeFunction>(Action::call); }
std::unique_ptr<Command> make_bridge_function_status() { return std::make_unique<BridgeFunction>(Action::status); }
std::unique_ptr<Command> make_bridge_function_reply() { return std::make_unique<BridgeFunction>(Action::reply); }
std::unique_ptr<Command> make_bridge_function_cancel() { return std::make_unique<BridgeFunction>(Action::cancel); }

}  // namespace agentworks::cli
