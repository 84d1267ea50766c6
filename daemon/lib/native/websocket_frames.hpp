// The client side of WebSocket framing (RFC 6455), as much as a one-shot JSON-RPC exchange with Codex's app server
// needs: the upgrade request and its answer, masked text frames out, and text, continuation, ping and close frames
// in. Pure, so the framing is unit-tested without a socket.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentworks::bridge::native::websocket {

using Mask = std::array<unsigned char, 4>;

// 16 random bytes, base64: the Sec-WebSocket-Key.
std::string new_key();
std::string upgrade_request(std::string_view key);
// The answer's head (up to and including the blank line) switches protocols: status 101 and Upgrade: websocket.
bool upgrade_accepted(std::string_view head);
Mask new_mask();

enum class Opcode : unsigned char { continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA };

// One client frame (always masked, always final).
std::string client_frame(Opcode opcode, std::string_view payload, const Mask& mask);

struct Message {
  Opcode opcode = Opcode::text;  // text (fragments joined), close or ping
  std::string payload;
};

// Server frames in, whole messages out. A protocol error (a masked server frame, an oversize message, a bad
// continuation) makes failed() true for good.
class FrameReader {
 public:
  static constexpr std::size_t kMaxMessage = 4u * 1024 * 1024;
  void feed(std::string_view bytes) { buffer_.append(bytes); }
  std::optional<Message> next();
  bool failed() const { return failed_; }

 private:
  std::string buffer_;
  std::string fragments_;
  bool in_fragments_ = false;
  bool failed_ = false;
};

}  // namespace agentworks::bridge::native::websocket
