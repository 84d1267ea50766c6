// JSON Schema (draft-07) through valijson: is a declared schema valid, does a value satisfy it.
// Schemas and values travel as JSON text so that this header stays free of JSON and validator headers.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace agentworks::server::functions {

struct SchemaViolation {
  std::string path;     // where in the value, e.g. "arguments.text" ("arguments" is the value itself)
  std::string message;  // the validator's reason
};

// Why `schema_json` is not a usable draft-07 schema (nullopt when it is). Remote $refs are refused: the server
// never fetches anything to check a call.
std::optional<std::string> schema_problem(const std::string& schema_json);

// The violations of `value_json` against `schema_json` (empty: valid), at most `max` of them, the most specific
// first. `root` names the value in paths ("arguments", "result"). Throws Error(internal) on an invalid schema.
std::vector<SchemaViolation> validate(const std::string& schema_json, const std::string& value_json,
                                      const std::string& root, std::size_t max = 10);

// "arguments.text: Value type not permitted by 'type' constraint; arguments: Missing required property 'x'".
std::string describe(const std::vector<SchemaViolation>& violations);

}  // namespace agentworks::server::functions
