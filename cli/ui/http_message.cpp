#include "ui/http_message.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace agentworks::cli::ui {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool is_token_char(unsigned char c) {
  constexpr std::string_view kSymbols = "!#$%&'*+-.^_`|~";
  return std::isalnum(c) != 0 || kSymbols.find(static_cast<char>(c)) != std::string_view::npos;
}

bool printable(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return c >= 0x21 && c < 0x7f; });
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = hex_digit(text[i + 1]);
      const int lo = hex_digit(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 303: return "See Other";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

HeadParse bad(std::string problem) {
  HeadParse p;
  p.status = HeadStatus::bad;
  p.problem = std::move(problem);
  return p;
}

}  // namespace

std::string HttpRequest::header(const std::string& lower_name) const {
  const auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

HeadParse parse_head(std::string_view buffer, std::size_t max_head) {
  const auto end = buffer.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (buffer.size() > max_head) return bad("the request head is too long");
    return {};
  }
  if (end + 4 > max_head) return bad("the request head is too long");
  HeadParse p;
  std::string_view head = buffer.substr(0, end);
  const auto line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  head = line_end == std::string_view::npos ? std::string_view() : head.substr(line_end + 2);

  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return bad("the request line must be METHOD TARGET HTTP/1.1");
  }
  const auto method = line.substr(0, sp1);
  const auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const auto version = line.substr(sp2 + 1);
  if (method.empty() || !std::all_of(method.begin(), method.end(), [](unsigned char c) { return is_token_char(c); })) {
    return bad("the method is not a token");
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return bad("only HTTP/1.1 and HTTP/1.0 are spoken");
  if (target.empty() || target.front() != '/' || !printable(target)) return bad("the target must be an origin path");
  p.request.method = std::string(method);
  const auto q = target.find('?');
  p.request.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) p.request.query = std::string(target.substr(q + 1));

  while (!head.empty()) {
    const auto next = head.find("\r\n");
    const std::string_view field = head.substr(0, next);
    head = next == std::string_view::npos ? std::string_view() : head.substr(next + 2);
    const auto colon = field.find(':');
    if (colon == std::string_view::npos || colon == 0) return bad("a header line has no name");
    const auto name = field.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), [](unsigned char c) { return is_token_char(c); })) {
      return bad("a header name is not a token");
    }
    const auto value = trim(field.substr(colon + 1));
    if (std::any_of(value.begin(), value.end(), [](unsigned char c) { return c < 0x20 && c != '\t'; })) {
      return bad("a header value holds a control character");
    }
    p.request.headers.emplace(lower(name), std::string(value));
  }
  if (p.request.headers.count("transfer-encoding") != 0) return bad("request bodies are sent with Content-Length");
  if (const auto it = p.request.headers.find("content-length"); it != p.request.headers.end()) {
    const auto& v = it->second;
    std::size_t n = 0;
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size() || v.empty()) return bad("Content-Length is not a number");
    p.content_length = n;
  }
  p.status = HeadStatus::complete;
  p.head_bytes = end + 4;
  return p;
}

std::optional<std::string> query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) != name) continue;
    return percent_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
  }
  return std::nullopt;
}

std::string cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto semi = header.find(';');
    const auto pair = trim(header.substr(0, semi));
    header = semi == std::string_view::npos ? std::string_view() : header.substr(semi + 1);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) return std::string(pair.substr(eq + 1));
  }
  return {};
}

std::string serialize(const HttpResponse& r) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\n";
  out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n";
  out += "X-Frame-Options: DENY\r\n";
  out += "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
         "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n";
  for (const auto& [name, value] : r.headers) out += name + ": " + value + "\r\n";
  out += "Connection: close\r\n\r\n";
  out += r.body;
  return out;
}

HttpResponse plain(int status) {
  HttpResponse r;
  r.status = status;
  r.body = std::string(reason(status)) + "\n";
  return r;
}

}  // namespace agentworks::cli::ui
