#include "state/login_config.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "platform/login_file.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

Config login_config(const nlohmann::json& req) {
  const auto path_text = optional_string(req, "config", 4096);
  const std::filesystem::path path = path_text ? std::filesystem::path(*path_text) : paths::config_file();
  if (!path.is_absolute()) throw Error(ErrorCode::bad_request, "field 'config' must be an absolute path");
  const auto cfg = read_config_file(path);  // never a blocking open on the loop
  if (!cfg || !cfg->logged_in()) {
    throw Error(ErrorCode::unauthenticated,
                "no login in " + path.string() + "; sign in with `agentworks login` first");
  }
  if (cfg->kind == "child") {
    throw Error(ErrorCode::forbidden, "the login in " + path.string() +
                                          " is an agent's child connection; attach needs the person's login");
  }
  return *cfg;
}

}  // namespace agentworks::bridge
