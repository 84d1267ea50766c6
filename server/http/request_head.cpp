#include "http/request_head.hpp"

#include <cstring>

#include "agentworks/validation.hpp"

namespace agentworks::server {
namespace {

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!is_tchar(c)) return false;
  return true;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

HeadError bad(std::string message) {
  return HeadError{ErrorCode::bad_request, std::move(message) + "; see docs/protocol.md"};
}

// Splits the head into lines without their line ends; a CR anywhere but before LF is refused.
std::optional<std::vector<std::string_view>> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto lf = text.find('\n');
    std::string_view line = text.substr(0, lf);
    text.remove_prefix(lf == std::string_view::npos ? text.size() : lf + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\r') != std::string_view::npos) return std::nullopt;
    lines.push_back(line);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

bool has_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (lowered(trim(list.substr(0, comma))) == token) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

const std::string* RequestHead::header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers)
    if (name == lower_name) return &value;
  return nullptr;
}

std::optional<std::size_t> find_head_end(std::string_view bytes) {
  for (std::size_t i = bytes.find('\n'); i != std::string_view::npos; i = bytes.find('\n', i + 1)) {
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') return i + 2;
    if (i + 2 < bytes.size() && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') return i + 3;
  }
  return std::nullopt;
}

std::variant<RequestHead, HeadError> parse_request_head(std::string_view text) {
  const auto lines = split_lines(text);
  if (!lines) return bad("the request head has a carriage return outside a line end");
  if (lines->empty()) return bad("the request line is missing");
  if (lines->size() - 1 > kMaxHeaderLines)
    return bad("the request has more than " + std::to_string(kMaxHeaderLines) + " header lines");

  RequestHead head;
  const std::string_view line = lines->front();
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return bad("the request line must be 'METHOD /path HTTP/1.1'");
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method) || method.size() > 32) return bad("the request method is not a valid token");
  if (target.empty() || target.front() != '/') return bad("the request target must be a path starting with '/'");
  for (const char c : target)
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      return bad("the request target has a character that must be percent-encoded");
  if (version == "HTTP/1.1") {
    head.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    head.minor_version = 0;
    head.keep_alive = false;
  } else {
    return bad("only HTTP/1.0 and HTTP/1.1 are spoken");
  }
  head.method = std::string(method);
  head.target = std::string(target);

  std::optional<std::size_t> length;
  for (std::size_t i = 1; i < lines->size(); ++i) {
    const std::string_view l = (*lines)[i];
    if (l.empty()) return bad("the request head has an empty line before its end");
    if (l.front() == ' ' || l.front() == '\t') return bad("folded header lines are not accepted");
    const auto colon = l.find(':');
    if (colon == std::string_view::npos) return bad("a header line has no ':'");
    const std::string_view name = l.substr(0, colon);
    if (!is_token(name)) return bad("a header name is not a valid token (no spaces before ':')");
    const std::string_view value = trim(l.substr(colon + 1));
    for (const char c : value)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
        return bad("the value of header '" + std::string(name) + "' has a control character");
    std::string lname = lowered(name);
    if (lname == "content-length") {
      if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string_view::npos)
        return bad("Content-Length must be a decimal number");
      const std::size_t n = std::stoull(std::string(value));
      if (length && *length != n) return bad("Content-Length is given twice with different values");
      length = n;
    } else if (lname == "transfer-encoding") {
      return bad("Transfer-Encoding request bodies are not accepted; send the body with Content-Length");
    } else if (lname == "connection") {
      if (has_token(value, "close")) head.keep_alive = false;
      if (head.minor_version == 0 && has_token(value, "keep-alive")) head.keep_alive = true;
    } else if (lname == "expect") {
      if (head.minor_version == 1 && lowered(value) == "100-continue") head.expect_continue = true;
    }
    head.headers.emplace_back(std::move(lname), std::string(value));
  }
  head.content_length = length.value_or(0);
  if (head.content_length > kMaxRequestBodyBytes)
    return HeadError{ErrorCode::payload_too_large, "the request body is over 256 KiB; send a shorter message"};
  return head;
}

}  // namespace agentworks::server
