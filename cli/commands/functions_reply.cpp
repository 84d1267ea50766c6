// agentworks functions reply --call ID --request REQUEST_ID --answer TEXT|- (also `crews reply`): answers a question
// the execution asked (pending_inputs); the call goes back to running. Answering grants nothing else.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "functions/routes.hpp"
#include "functions/target.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class FunctionsReply final : public Command {
 public:
  void define(Options& options) override {
    options.call_id(call_id_).required();
    options.option("--request", request_id_, "The question's request_id (req_…, from pending_inputs)").required();
    options.option("--answer", answer_, "The answer text, or - to read it from stdin").required();
  }

  json run(const Context& ctx) override {
    if (request_id_.empty()) throw Error(ErrorCode::usage, "--request is empty");
    const json body = {{"request_id", request_id_}, {"answer", message_argument(answer_)}};
    functions::FunctionsTarget target = functions::functions_target(ctx);
    return target.client.post(target.path(functions::call_path(call_id_) + "/replies"), body);
  }

  void print(const json& result) const override {
    std::cout << "answered " << text_or(result, "request_id") << " of " << text_or(result, "call_id")
              << "; follow the call with: agentworks functions call-status --call " << text_or(result, "call_id")
              << " --wait 25\n";
  }

 private:
  std::string call_id_;
  std::string request_id_;
  std::string answer_;
};

}  // namespace

std::unique_ptr<Command> make_functions_reply() { return std::make_unique<FunctionsReply>(); }
std::unique_ptr<Command> make_crews_reply() { return std::make_unique<FunctionsReply>(); }

}  // namespace agentworks::cli
