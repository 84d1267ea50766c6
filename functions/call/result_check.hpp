// The output contract (R-F5): the result file validated against the output schema after the execution ends;
// the final answer as the fallback after the one correction turn.
#pragma once

#include <optional>
#include <string>

namespace agentworks::functions {

inline constexpr std::size_t kMaxResultBytes = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxInlineResultBytes = 256 * 1024;

struct ResultCheck {
  std::optional<std::string> result_json;  // compact, schema-valid
  std::string problem;                     // why not (for FUNCTION_CORRECTION and the error)
};

// Reads FUNCTION_RESULT_FILE (a regular file, not a symlink, at most 16 MiB) and validates it.
ResultCheck check_result_file(const std::string& path, const std::string& schema_json);
// The final answer, when it parses as JSON valid for the schema.
ResultCheck check_answer(const std::string& answer, const std::string& schema_json);

}  // namespace agentworks::functions
