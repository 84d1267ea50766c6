#include "agentworks/config.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/private_file.hpp"

namespace agentworks {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

void read_string(const json& j, const char* key, std::string& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_string()) {
    throw Error(ErrorCode::bad_request, std::string("field \"") + key + "\" must be a string");
  }
  out = it->get<std::string>();
}

}  // namespace

json config_to_json(const Config& c) {
  return json{{"server_url", c.server_url},       {"token", c.token},
              {"connection_id", c.connection_id}, {"account_id", c.account_id},
              {"account_name", c.account_name},   {"kind", c.kind},
              {"agent_name", c.agent_name},       {"embedded", c.embedded},
              {"native", c.native},               {"ca_file", c.ca_file}};
}

Config config_from_json(const json& j) {
  if (!j.is_object()) throw Error(ErrorCode::bad_request, "the config must be a JSON object");
  Config c;
  read_string(j, "server_url", c.server_url);
  read_string(j, "token", c.token);
  read_string(j, "ca_file", c.ca_file);
  read_string(j, "connection_id", c.connection_id);
  read_string(j, "account_id", c.account_id);
  read_string(j, "account_name", c.account_name);
  read_string(j, "kind", c.kind);
  read_string(j, "agent_name", c.agent_name);
  if (auto it = j.find("embedded"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) throw Error(ErrorCode::bad_request, "field \"embedded\" must be true or false");
    c.embedded = it->get<bool>();
  }
  if (auto it = j.find("native"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) throw Error(ErrorCode::bad_request, "field \"native\" must be true or false");
    c.native = it->get<bool>();
  }
  return c;
}

std::optional<Config> load_config(const fs::path& path) {
  std::optional<std::string> text;
  try {
    text = read_file_if_exists(path);
  } catch (const Error& e) {
    throw Error(ErrorCode::bad_request, std::string(e.what()) + " (check its permissions)");
  }
  if (!text) return std::nullopt;
  return parse_config_text(*text, path);
}

Config parse_config_text(const std::string& text, const fs::path& path) {
  const std::string fix = "; fix it, or remove it and log in again (`agentworks login` or `agentworks up`)";
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    throw Error(ErrorCode::bad_request, "the config file " + path.string() + " is not valid JSON" + fix);
  }
  try {
    return config_from_json(j);
  } catch (const Error& e) {
    throw Error(ErrorCode::bad_request, "the config file " + path.string() + " is invalid: " + e.what() + fix);
  }
}

void save_config(const fs::path& path, const Config& config) {
  write_private_file(path, config_to_json(config).dump(2) + "\n");
}

bool remove_config(const fs::path& path) {
  std::error_code ec;
  bool removed = fs::remove(path, ec);
  if (ec) throw Error(ErrorCode::internal, "cannot remove " + path.string() + ": " + ec.message());
  return removed;
}

}  // namespace agentworks
