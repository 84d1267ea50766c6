#include "platform/login_trust.hpp"

#include "agentworks/config.hpp"
#include "agentworks/paths.hpp"

namespace agentworks::bridge {

std::string ca_file_for(const std::string& url) {
  std::optional<Config> login;
  try {
    login = load_config(paths::config_file());
  } catch (const std::exception&) {
    return {};  // an unreadable login: verified against the system store, so a refusal names the fix
  }
  if (!login || login->server_url.empty() || url.rfind(login->server_url, 0) != 0) return {};
  const std::size_t end = login->server_url.size();
  if (url.size() > end && url[end] != '/' && url[end] != '?') return {};
  return login->ca_file;
}

}  // namespace agentworks::bridge
