#include "platform/login_trust.hpp"

#include "platform/login_file.hpp"

namespace agentworks::bridge {

std::string ca_file_for(const std::string& url) {
  const LoginView& view = current_login();
  // An unreadable login: verified against the system store, so a refusal names the fix.
  if (view.unreadable || !view.login) return {};
  const Config& login = *view.login;
  if (login.server_url.empty() || url.rfind(login.server_url, 0) != 0) return {};
  const std::size_t end = login.server_url.size();
  if (url.size() > end && url[end] != '/' && url[end] != '?') return {};
  return login.ca_file;
}

}  // namespace agentworks::bridge
