// agentworks functions ask --question TEXT [--schema JSON]: inside a function execution only, asks the call's caller
// a question and blocks until it is answered (`functions reply`), then prints the answer. The call and its per-call
// secret come from the environment the server gave the execution (AGENTWORKS_SERVER, AGENTWORKS_CALL_ID,
// AGENTWORKS_CALL_TOKEN), never from arguments or from a login, so an execution can ask about its own call only.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "functions/questions.hpp"
#include "output.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class FunctionsAsk final : public Command {
 public:
  void define(Options& options) override {
    options.option("--question", question_, "The question for the caller, or - to read it from stdin").required();
    options.option("--schema", schema_,
                   "A JSON Schema (object) the answer must satisfy; the answer is then JSON text valid against it");
  }

  json run(const Context& /*ctx*/) override {
    const auto binding = functions::execution_binding("`agentworks functions ask`");
    const std::string question = message_argument(question_);
    if (blank_text(question)) throw Error(ErrorCode::usage, "--question is empty");
    std::optional<json> schema;
    if (!schema_.empty()) {
      schema = json::parse(schema_, nullptr, false);
      if (schema->is_discarded() || !schema->is_object())
        throw Error(ErrorCode::usage, "--schema must be a JSON object (a JSON Schema)");
    }
    const auto answered = functions::ask_and_wait(binding, question, schema);
    return {{"request_id", answered.request_id}, {"answer", answered.answer}};
  }

  void print(const json& result) const override { std::cout << text_or(result, "answer", "") << "\n"; }

 private:
  std::string question_;
  std::string schema_;
};

}  // namespace

std::unique_ptr<Command> make_functions_ask() { return std::make_unique<FunctionsAsk>(); }

}  // namespace agentworks::cli
