#include "api/json_text.hpp"

#include "agentworks/validation.hpp"

namespace agentworks::server {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

void append_escaped_control(std::string& out, unsigned char c) {
  switch (c) {
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  std::size_t plain = 0;  // start of the run of bytes copied as they are
  const auto flush_plain = [&](std::size_t end) { out.append(s, plain, end - plain); };
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const std::size_t len = utf8_sequence_length(s, i); len != 0) {
        i += len;
        continue;
      }
    }
    flush_plain(i);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      append_escaped_control(out, c);
    } else {
      out += kReplacement;
    }
    plain = ++i;
  }
  flush_plain(s.size());
  out += '"';
}

void append_json_string_or_null(std::string& out, const std::optional<std::string>& s) {
  if (s) {
    append_json_string(out, *s);
  } else {
    out += "null";
  }
}

void append_json_int_or_null(std::string& out, const std::optional<std::int64_t>& v) {
  out += v ? std::to_string(*v) : std::string("null");
}

}  // namespace agentworks::server
