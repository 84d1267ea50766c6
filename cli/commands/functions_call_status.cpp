// agentworks functions call-status --call ID [--after N] [--message-limit N] [--after-event N] [--event-limit N]
// [--wait SECONDS] (also `crews call-status`): one status read of a call. Only completed, failed, cancelled or interrupted is
// an outcome; the text form says how to keep polling otherwise.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/validation.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "functions/target.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class FunctionsCallStatus final : public Command {
 public:
  void define(Options& options) override {
    options.call_id(call_id_).required();
    options.option("--after", query_.after,
                   "Messages after this seq (-1, the default: from the start; then next_after)");
    options.option("--message-limit", query_.message_limit, "At most this many messages (1-500, default 100)");
    options.option("--after-event", query_.after_event,
                   "Events after this seq (-1, the default: from the start; then next_after_event)");
    options.option("--event-limit", query_.event_limit, "At most this many events (1-200, default 50)");
    options.option("--wait", query_.wait_seconds,
                   "Seconds to wait for a message or event after --after/--after-event (0-25)");
  }

  json run(const Context& ctx) override {
    check_range("--wait", query_.wait_seconds, 0, kMaxWaitSeconds);
    const std::string path = functions::status_path(call_id_, query_);  // range checks before the login
    functions::FunctionsTarget target = functions::functions_target(ctx, query_.wait_seconds);
    return target.client.get(target.path(path), query_.wait_seconds);
  }

  void print(const json& call) const override { std::cout << functions::describe_call(call); }

 private:
  std::string call_id_;
  functions::StatusQuery query_;
};

}  // namespace

std::unique_ptr<Command> make_functions_call_status() { return std::make_unique<FunctionsCallStatus>(); }
std::unique_ptr<Command> make_crews_call_status() { return std::make_unique<FunctionsCallStatus>(); }

}  // namespace agentworks::cli
