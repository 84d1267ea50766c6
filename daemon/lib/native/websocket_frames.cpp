#include "native/websocket_frames.hpp"

#include <algorithm>
#include <cctype>
#include <random>

namespace agentworks::bridge::native::websocket {
namespace {

std::string base64(const unsigned char* data, std::size_t n) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < n; i += 3) {
    const unsigned second = i + 1 < n ? static_cast<unsigned>(data[i + 1]) : 0U;
    const unsigned third = i + 2 < n ? static_cast<unsigned>(data[i + 2]) : 0U;
    const unsigned v = (static_cast<unsigned>(data[i]) << 16) | (second << 8) | third;
    out.push_back(kAlphabet[(v >> 18) & 63U]);
    out.push_back(kAlphabet[(v >> 12) & 63U]);
    out.push_back(i + 1 < n ? kAlphabet[(v >> 6) & 63U] : '=');
    out.push_back(i + 2 < n ? kAlphabet[v & 63U] : '=');
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

unsigned char random_byte() {
  static thread_local std::mt19937 rng(std::random_device{}());
  return static_cast<unsigned char>(std::uniform_int_distribution<int>(0, 255)(rng));
}

}  // namespace

std::string new_key() {
  unsigned char bytes[16];
  for (auto& b : bytes) b = random_byte();
  return base64(bytes, sizeof bytes);
}

Mask new_mask() { return {random_byte(), random_byte(), random_byte(), random_byte()}; }

std::string upgrade_request(std::string_view key) {
  return "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " +
         std::string(key) + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
}

bool upgrade_accepted(std::string_view head) {
  const auto eol = head.find("\r\n");
  const std::string status = lower(head.substr(0, eol));
  if (status.rfind("http/1.1 101", 0) != 0) return false;
  const std::string all = lower(head);
  for (std::size_t pos = all.find("\r\nupgrade:"); pos != std::string::npos; pos = all.find("\r\nupgrade:", pos + 1)) {
    const auto end = all.find("\r\n", pos + 2);
    if (all.substr(pos, end - pos).find("websocket") != std::string::npos) return true;
  }
  return false;
}

std::string client_frame(Opcode opcode, std::string_view payload, const Mask& mask) {
  std::string out;
  out.push_back(static_cast<char>(0x80U | static_cast<unsigned>(opcode)));
  const std::size_t n = payload.size();
  if (n < 126) {
    out.push_back(static_cast<char>(0x80U | n));
  } else if (n <= 0xFFFF) {
    out.push_back(static_cast<char>(0x80U | 126U));
    out.push_back(static_cast<char>((n >> 8) & 0xFFU));
    out.push_back(static_cast<char>(n & 0xFFU));
  } else {
    out.push_back(static_cast<char>(0x80U | 127U));
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((n >> shift) & 0xFFU));
  }
  for (const unsigned char m : mask) out.push_back(static_cast<char>(m));
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(static_cast<char>(static_cast<unsigned char>(payload[i]) ^ mask[i % 4]));
  }
  return out;
}

std::optional<Message> FrameReader::next() {
  while (!failed_) {
    if (buffer_.size() < 2) return std::nullopt;
    const auto b0 = static_cast<unsigned char>(buffer_[0]);
    const auto b1 = static_cast<unsigned char>(buffer_[1]);
    const bool fin = (b0 & 0x80U) != 0;
    const auto opcode = static_cast<Opcode>(b0 & 0x0FU);
    if ((b1 & 0x80U) != 0 || (b0 & 0x70U) != 0) {  // a server never masks; no extension was negotiated
      failed_ = true;
      return std::nullopt;
    }
    std::size_t header = 2;
    std::uint64_t length = b1 & 0x7FU;
    if (length == 126 || length == 127) {
      const std::size_t bytes = length == 126 ? 2 : 8;
      if (buffer_.size() < 2 + bytes) return std::nullopt;
      length = 0;
      for (std::size_t i = 0; i < bytes; ++i) length = (length << 8) | static_cast<unsigned char>(buffer_[2 + i]);
      header += bytes;
    }
    if (length > kMaxMessage) {
      failed_ = true;
      return std::nullopt;
    }
    if (buffer_.size() < header + length) return std::nullopt;
    std::string payload = buffer_.substr(header, static_cast<std::size_t>(length));
    buffer_.erase(0, header + static_cast<std::size_t>(length));
    switch (opcode) {
      case Opcode::close:
      case Opcode::ping:
        return Message{opcode, std::move(payload)};
      case Opcode::pong:
        continue;
      case Opcode::text:
      case Opcode::binary:
        if (in_fragments_) {
          failed_ = true;
          return std::nullopt;
        }
        if (fin) return Message{Opcode::text, std::move(payload)};
        in_fragments_ = true;
        fragments_ = std::move(payload);
        continue;
      case Opcode::continuation:
        if (!in_fragments_ || fragments_.size() + payload.size() > kMaxMessage) {
          failed_ = true;
          return std::nullopt;
        }
        fragments_ += payload;
        if (!fin) continue;
        in_fragments_ = false;
        return Message{Opcode::text, std::move(fragments_)};
      default:
        failed_ = true;
        return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace agentworks::bridge::native::websocket
