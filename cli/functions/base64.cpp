#include "functions/base64.hpp"

#include <array>
#include <cstdint>

namespace agentworks::cli::functions {
namespace {

constexpr std::array<int, 256> make_table() {
  std::array<int, 256> t{};
  for (auto& v : t) v = -1;
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = i;
  return t;
}
constexpr auto kTable = make_table();

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    std::uint32_t group = 0;
    int padding = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      int value = 0;
      if (c == '=') {
        // '=' only at the end of the last group: "xx==" or "xxx=".
        if (!last || j < 2 || (j == 2 && text[i + 3] != '=')) return std::nullopt;
        ++padding;
      } else {
        if (padding > 0) return std::nullopt;
        value = kTable[static_cast<unsigned char>(c)];
        if (value < 0) return std::nullopt;
      }
      group = (group << 6) | static_cast<std::uint32_t>(value);
    }
    out.push_back(static_cast<char>((group >> 16) & 0xFF));
    if (padding < 2) out.push_back(static_cast<char>((group >> 8) & 0xFF));
    if (padding < 1) out.push_back(static_cast<char>(group & 0xFF));
  }
  return out;
}

}  // namespace agentworks::cli::functions
