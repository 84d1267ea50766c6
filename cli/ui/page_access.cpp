#include "ui/page_access.hpp"

#include "agentworks/random.hpp"

namespace agentworks::cli::ui {

bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

PageAccess::PageAccess(unsigned port) : port_(port), token_(random_hex(24)), session_(random_hex(32)) {}

std::string PageAccess::cookie_name() const { return "agentworks_ui_" + std::to_string(port_); }

std::string PageAccess::set_cookie() const {
  return cookie_name() + "=" + session_ + "; Path=/; HttpOnly; SameSite=Strict";
}

bool PageAccess::spend_token(std::string_view token) {
  std::lock_guard lock(mutex_);
  if (spent_ || !same_secret(token, token_)) return false;
  spent_ = true;
  return true;
}

bool PageAccess::token_spent() {
  std::lock_guard lock(mutex_);
  return spent_;
}

bool PageAccess::session_ok(std::string_view cookie) const { return same_secret(cookie, session_); }

}  // namespace agentworks::cli::ui
