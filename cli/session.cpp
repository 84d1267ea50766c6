#include "session.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

std::string string_field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

json null_if_empty(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

Config require_login(const Context& ctx) {
  auto config = load_config(ctx.config_path);
  if (!config || !config->logged_in()) {
    throw Error(ErrorCode::unauthenticated,
                "not logged in (no saved login in " + ctx.config_path.string() +
                    "); run `agentworks up` for the embedded server, or "
                    "`agentworks login --server URL --token-stdin`");
  }
  return *config;
}

ServerClient client_for(const Config& config) {
  ServerClientOptions options;
  options.ca_file = config.ca_file;
  return ServerClient(config.server_url, config.token, options);
}

bool previous_native_setting(const std::filesystem::path& path) {
  try {
    const auto previous = load_config(path);
    return !previous || previous->native;
  } catch (const Error&) {
    return true;
  }
}

void apply_whoami(Config& config, const json& whoami) {
  config.connection_id = string_field(whoami, "connection_id");
  config.account_id = string_field(whoami, "account_id");
  config.account_name = string_field(whoami, "account_name");
  config.kind = string_field(whoami, "kind");
  config.agent_name = string_field(whoami, "agent_name");
}

json public_login_json(const Config& c) {
  return json{{"server_url", c.server_url},     {"connection_id", c.connection_id},
              {"account_id", c.account_id},     {"account_name", c.account_name},
              {"kind", null_if_empty(c.kind)},  {"agent_name", null_if_empty(c.agent_name)},
              {"embedded", c.embedded},         {"ca_file", null_if_empty(c.ca_file)}};
}

}  // namespace agentworks::cli
