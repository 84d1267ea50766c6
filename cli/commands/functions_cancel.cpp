// agentworks functions cancel --call ID [--wait SECONDS] (also `crews cancel`): asks a running or waiting call to
// end (R-D3). Its process tree is killed and it ends `cancelled`; a call that already ended keeps its outcome and
// the answer says so. By the caller's account or the Crew's owner; repeating it changes nothing.
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

class FunctionsCancel final : public Command {
 public:
  void define(Options& options) override {
    options.call_id(call_id_).required();
    options.option("--wait", wait_seconds_, "Seconds to wait for the call's end (0-25, default 0)");
  }

  json run(const Context& ctx) override {
    check_range("--wait", wait_seconds_, 0, kMaxWaitSeconds);
    const json body = functions::cancel_body(wait_seconds_);
    functions::FunctionsTarget target = functions::functions_target(ctx, wait_seconds_);
    return target.client.post(target.path(functions::call_path(call_id_) + "/cancel"), body);
  }

  void print(const json& call) const override { std::cout << functions::describe_cancel(call); }

 private:
  std::string call_id_;
  int wait_seconds_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_functions_cancel() { return std::make_unique<FunctionsCancel>(); }
std::unique_ptr<Command> make_crews_cancel() { return std::make_unique<FunctionsCancel>(); }

}  // namespace agentworks::cli
