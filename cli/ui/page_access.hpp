// Who may use the page: the one-time token printed in the URL is traded, once, for a session cookie; every other
// request must carry that cookie. Tokens are compared in constant time.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

namespace agentworks::cli::ui {

class PageAccess {
 public:
  explicit PageAccess(unsigned port);  // fresh random token and session

  const std::string& token() const { return token_; }
  std::string cookie_name() const;
  // The Set-Cookie value for a browser that spent the token.
  std::string set_cookie() const;
  // True exactly once, for the right token.
  bool spend_token(std::string_view token);
  bool token_spent();
  bool session_ok(std::string_view cookie) const;

 private:
  unsigned port_;
  std::string token_;
  std::string session_;
  std::mutex mutex_;
  bool spent_ = false;
};

// Equal contents, in time that depends only on the lengths.
bool same_secret(std::string_view a, std::string_view b);

}  // namespace agentworks::cli::ui
