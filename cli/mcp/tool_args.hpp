// Checked reads of one `mcp serve --full` tool's arguments: a field the tool does not take, a missing required one
// or a wrong type is Error(bad_request) naming the tool and the field, answered as a tool error so the agent can
// correct the call.
#pragma once

#include <optional>
#include <set>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::mcp {

class ToolArgs {
 public:
  // `args` must be an object (null reads as {}) and outlive this; `tool` names the tool in errors.
  ToolArgs(std::string tool, const nlohmann::json& args);

  // Refuses any field other than `fields`.
  void only(const std::set<std::string>& fields) const;

  std::optional<std::string> opt_string(const char* key) const;
  std::string string(const char* key) const;  // required and not empty
  std::optional<long long> opt_integer(const char* key) const;
  // The JSON value itself (required).
  const nlohmann::json& value(const char* key) const;

 private:
  [[noreturn]] void bad(const std::string& what) const;

  std::string tool_;
  const nlohmann::json* args_;  // an object, or null for no arguments
};

// `object[key]` when it is a string, else "" (for reading the server's answers, where null means unset).
std::string string_field(const nlohmann::json& object, const char* key);

}  // namespace agentworks::cli::mcp
