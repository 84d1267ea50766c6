#include "call/result_check.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/regular_file.hpp"
#include "declaration/schema_check.hpp"

namespace agentworks::functions {
namespace {

ResultCheck check_text(const std::string& text, const std::string& schema_json, const std::string& what) {
  ResultCheck r;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string why = e.what();
    if (const auto colon = why.rfind(": "); colon != std::string::npos) why = why.substr(colon + 2);
    r.problem = what + " is not valid JSON (" + why + ")";
    return r;
  }
  const std::string compact = doc.dump();
  const auto violations = validate(schema_json, compact, "result");
  if (!violations.empty()) {
    r.problem = what + " does not match the output schema: " + describe(violations);
    return r;
  }
  r.result_json = compact;
  return r;
}

}  // namespace

ResultCheck check_result_file(const std::string& path, const std::string& schema_json) {
  ResultCheck r;
  const RegularFileRead file = read_regular_file(path, kMaxResultBytes);
  switch (file.outcome) {
    case RegularFileRead::Outcome::ok: return check_text(file.text, schema_json, "the result file");
    case RegularFileRead::Outcome::missing:
      r.problem = "no result file: write the JSON result to FUNCTION_RESULT_FILE (" + path + ")";
      break;
    case RegularFileRead::Outcome::not_regular: r.problem = "FUNCTION_RESULT_FILE is not a regular file"; break;
    case RegularFileRead::Outcome::too_large: r.problem = "the result file is over 16 MiB"; break;
    case RegularFileRead::Outcome::unreadable: r.problem = "cannot read FUNCTION_RESULT_FILE: " + file.reason; break;
  }
  return r;
}

ResultCheck check_answer(const std::string& answer, const std::string& schema_json) {
  return check_text(answer, schema_json, "the final answer");
}

}  // namespace agentworks::functions
