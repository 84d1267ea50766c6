// agentworks functions call --crew NAME --function F --args JSON [--submission-id ID] [--wait SECONDS]
// [--notify agent:NAME] (R-D2: the agent is told of the call's questions and outcome in its chat), and the
// same as `crews call NAME --function …`. The arguments are parsed here (not JSON: usage, nothing sent); the server
// checks them against the inputs schema before it creates anything.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
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

enum class CrewGiven { option, positional };

class FunctionsCall final : public Command {
 public:
  explicit FunctionsCall(CrewGiven crew_given) : crew_given_(crew_given) {}

  void define(Options& options) override {
    if (crew_given_ == CrewGiven::positional) {
      options.option("crew", crew_, "Crew name (yours) or crw_ id (another account's)").required();
    } else {
      options.option("--crew", crew_, "Crew name (yours) or crw_ id (another account's)").required();
    }
    options.option("--function", function_, "The function to call (see functions list)").required();
    options.option("--args", args_, "The arguments as JSON (e.g. '{\"text\":\"hi\"}'), or - to read them from stdin")
        .required();
    options.option("--submission-id", submission_id_,
                   "Client id that makes a retried call safe: a repeat returns the call already accepted");
    options.option("--wait", wait_, "Seconds to wait for the call to finish before answering (0-25)");
    options.option("--notify", notify_,
                   "agent:NAME, an agent of your account told of the call's questions and outcome (in its chat, "
                   "else its mailbox)");
  }

  json run(const Context& ctx) override {
    const std::string text = args_ == "-" ? read_all_stdin() : args_;
    const json arguments = json::parse(text, nullptr, false);
    if (arguments.is_discarded()) {
      throw Error(ErrorCode::usage,
                  "--args is not valid JSON: " + echo_typed(text) + "; pass e.g. '{\"text\":\"hi\"}'");
    }
    if (submission_id_) check_submission_id(*submission_id_, "--submission-id");
    check_range("--wait", wait_, 0, kMaxWaitSeconds);
    if (notify_ && (notify_->rfind("agent:", 0) != 0 || notify_->size() == 6))
      throw Error(ErrorCode::usage, "--notify takes agent:NAME, an agent of your account");
    json body = functions::call_body(function_, arguments, submission_id_, wait_);
    if (notify_) body["notify"] = *notify_;
    functions::FunctionsTarget target = functions::functions_target(ctx, wait_);
    return target.client.post(target.path(functions::crew_path(crew_) + "/calls"), body);
  }

  void print(const json& call) const override {
    if (call.value("accepted", false)) std::cout << "accepted ";
    std::cout << functions::describe_call(call);
  }

 private:
  CrewGiven crew_given_;
  std::string crew_;
  std::string function_;
  std::string args_;
  std::optional<std::string> submission_id_;
  std::optional<std::string> notify_;
  int wait_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_functions_call() { return std::make_unique<FunctionsCall>(CrewGiven::option); }
std::unique_ptr<Command> make_crews_call() { return std::make_unique<FunctionsCall>(CrewGiven::positional); }

}  // namespace agentworks::cli
