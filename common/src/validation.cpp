#include "agentworks/validation.hpp"

#include <string>

#include "agentworks/error.hpp"

namespace agentworks {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

bool valid_agent_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxAgentNameLength || !is_alnum(name.front())) return false;
  for (char c : name) {
    if (!is_alnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

bool valid_message_target(std::string_view target) {
  for (std::string_view prefix : {std::string_view("agent:"), std::string_view("crew:")})
    if (target.substr(0, prefix.size()) == prefix) return valid_agent_name(target.substr(prefix.size()));
  return false;
}

std::string fold_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t extra = 0;
  char32_t cp = 0;
  if (lead < 0x80) {
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    extra = 1;
    cp = lead & 0x1Fu;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2;
    cp = lead & 0x0Fu;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3;
    cp = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + extra >= text.size()) return 0;  // truncated sequence
  for (std::size_t k = 1; k <= extra; ++k) {
    const auto cont = static_cast<unsigned char>(text[i + k]);
    if ((cont & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cont & 0x3Fu);
  }
  // Reject overlong forms, surrogates and values past U+10FFFF.
  if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
      (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    return 0;
  }
  return extra + 1;
}

std::optional<std::size_t> utf8_length(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++count) {
    const std::size_t len = utf8_sequence_length(text, i);
    if (len == 0) return std::nullopt;
    i += len;
  }
  return count;
}

bool blank_text(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || (c >= 0x09 && c <= 0x0D)) {
      ++i;
      continue;
    }
    // The multi-byte members of Unicode's White_Space set: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
    // U+2029, U+202F, U+205F, U+3000.
    const std::string_view rest = text.substr(i);
    if (rest.size() >= 2 && c == 0xC2 && (static_cast<unsigned char>(rest[1]) == 0x85 ||
                                          static_cast<unsigned char>(rest[1]) == 0xA0)) {
      i += 2;
      continue;
    }
    if (rest.size() >= 3) {
      const auto b1 = static_cast<unsigned char>(rest[1]);
      const auto b2 = static_cast<unsigned char>(rest[2]);
      const bool space = (c == 0xE1 && b1 == 0x9A && b2 == 0x80) ||
                         (c == 0xE2 && b1 == 0x80 && (b2 <= 0x8A || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF) &&
                          b2 >= 0x80) ||
                         (c == 0xE2 && b1 == 0x81 && b2 == 0x9F) || (c == 0xE3 && b1 == 0x80 && b2 == 0x80);
      if (space) {
        i += 3;
        continue;
      }
    }
    return false;
  }
  return true;
}

bool valid_message_text(std::string_view text) {
  const auto n = utf8_length(text);
  return n && *n >= 1 && *n <= kMaxMessageChars && !blank_text(text);
}

std::string echo_typed(std::string_view text, std::size_t max_chars) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  std::size_t shown = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (shown == max_chars) return out + "...";
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t len = utf8_sequence_length(text, i);
    ++shown;
    if (len == 0) {  // not a whole, valid code point: show the byte
      out += std::string("\\x") + kHex[lead >> 4] + kHex[lead & 0xF];
      ++i;
      continue;
    }
    char32_t cp = len == 1 ? char32_t{lead} : static_cast<char32_t>(lead & (0x7Fu >> len));
    for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
    const bool hidden = cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || (cp >= 0x200B && cp <= 0x200F) ||
                        (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
    if (hidden) {
      std::string digits;
      for (char32_t v = cp; v != 0 || digits.empty(); v >>= 4) digits.insert(digits.begin(), kHex[v & 0xF]);
      out += "\\u{" + digits + "}";
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

void check_submission_id(std::string_view id, std::string_view field) {
  if (!valid_client_id(id)) throw Error(ErrorCode::bad_request, std::string(field) + " " + kSubmissionIdRule);
}

bool valid_client_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxSubmissionIdLength) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7E) return false;
  }
  return true;
}

}  // namespace agentworks
