// JSON Schema (draft-07) through valijson: is a declared schema valid, does a value satisfy it.
// Schemas and values travel as JSON text so that this header stays free of JSON and validator headers.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::functions {

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

// A schema parsed once (a Crew's register or reload), checked against many values (every call). Its validator
// form stays in schema_check.cpp.
class CompiledSchema {
 public:
  // Throws Error(internal) when `schema_json` does not parse: a stored schema passed schema_problem() once.
  static std::shared_ptr<const CompiledSchema> compile(const std::string& schema_json);
  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;
  // As validate() below.
  std::vector<SchemaViolation> check(const std::string& value_json, const std::string& root, std::size_t max = 10) const;

 private:
  struct Parsed;
  explicit CompiledSchema(std::unique_ptr<Parsed> parsed);
  std::unique_ptr<Parsed> parsed_;
};

// "arguments.text: Value type not permitted by 'type' constraint; arguments: Missing required property 'x'".
std::string describe(const std::vector<SchemaViolation>& violations);

}  // namespace agentworks::functions
