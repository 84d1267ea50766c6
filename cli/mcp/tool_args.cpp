#include "mcp/tool_args.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;

ToolArgs::ToolArgs(std::string tool, const json& args) : tool_(std::move(tool)), args_(&args) {
  if (!args.is_null() && !args.is_object()) bad("the arguments must be an object");
}

void ToolArgs::bad(const std::string& what) const {
  throw Error(ErrorCode::bad_request, tool_ + ": " + what);
}

void ToolArgs::only(const std::set<std::string>& fields) const {
  if (args_->is_null()) return;
  for (const auto& [key, value] : args_->items()) {
    if (!fields.contains(key)) bad("'" + key + "' is not an argument of this tool (tools/list shows its schema)");
  }
}

std::optional<std::string> ToolArgs::opt_string(const char* key) const {
  const auto it = args_->find(key);
  if (it == args_->end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) bad(std::string("'") + key + "' must be a string");
  return it->get<std::string>();
}

std::string ToolArgs::string(const char* key) const {
  auto v = opt_string(key);
  if (!v || v->empty()) bad(std::string("'") + key + "' is required");
  return *v;
}

std::optional<long long> ToolArgs::opt_integer(const char* key) const {
  const auto it = args_->find(key);
  if (it == args_->end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) bad(std::string("'") + key + "' must be an integer");
  return it->get<long long>();
}

const json& ToolArgs::value(const char* key) const {
  const auto it = args_->find(key);
  if (it == args_->end()) bad(std::string("'") + key + "' is required");
  return *it;
}

std::string string_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace agentworks::cli::mcp
