// The WebSocket framing the bridge uses to reach Codex's app server (daemon/lib/native/websocket_frames.hpp).
#include <gtest/gtest.h>

#include <string>

#include "native/websocket_frames.hpp"

namespace agentworks::bridge::native::websocket {
namespace {

std::string server_frame(unsigned char first, const std::string& payload) {
  std::string out;
  out.push_back(static_cast<char>(first));
  if (payload.size() < 126) {
    out.push_back(static_cast<char>(payload.size()));
  } else {
    out.push_back(static_cast<char>(126));
    out.push_back(static_cast<char>((payload.size() >> 8) & 0xFF));
    out.push_back(static_cast<char>(payload.size() & 0xFF));
  }
  return out + payload;
}

TEST(WebSocketFrames, ClientFramesAreMaskedAndFinal) {
  const Mask mask{0x37, 0xfa, 0x21, 0x3d};
  // RFC 6455 section 5.7: a masked "Hello".
  const std::string frame = client_frame(Opcode::text, "Hello", mask);
  EXPECT_EQ(frame, std::string("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11));
  const std::string big(300, 'a');
  const std::string f2 = client_frame(Opcode::text, big, mask);
  ASSERT_EQ(f2.size(), 2u + 2u + 4u + 300u);
  EXPECT_EQ(static_cast<unsigned char>(f2[1]), 0x80 | 126);
  EXPECT_EQ(static_cast<unsigned char>(f2[2]), 0x01);
  EXPECT_EQ(static_cast<unsigned char>(f2[3]), 0x2c);
  const std::string huge(70000, 'b');
  EXPECT_EQ(static_cast<unsigned char>(client_frame(Opcode::text, huge, mask)[1]), 0x80 | 127);
}

TEST(WebSocketFrames, UpgradeRequestAndAnswer) {
  const std::string key = new_key();
  EXPECT_EQ(key.size(), 24u);
  EXPECT_NE(new_key(), key);
  const std::string request = upgrade_request(key);
  EXPECT_NE(request.find("Upgrade: websocket\r\n"), std::string::npos);
  EXPECT_NE(request.find("Sec-WebSocket-Key: " + key + "\r\n"), std::string::npos);
  EXPECT_EQ(request.substr(request.size() - 4), "\r\n\r\n");
  EXPECT_TRUE(upgrade_accepted("HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nConnection: upgrade\r\n\r\n"));
  EXPECT_FALSE(upgrade_accepted("HTTP/1.1 200 OK\r\nUpgrade: websocket\r\n\r\n"));
  EXPECT_FALSE(upgrade_accepted("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n"));
  EXPECT_FALSE(upgrade_accepted("garbage"));
}

TEST(WebSocketFrames, ReaderJoinsFragmentsAndPassesPingAndClose) {
  FrameReader r;
  const std::string text = server_frame(0x81, R"({"id":1,"result":{}})");
  // Byte by byte: nothing until the frame is whole.
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    r.feed(text.substr(i, 1));
    EXPECT_FALSE(r.next().has_value());
  }
  r.feed(text.substr(text.size() - 1));
  auto m = r.next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->opcode, Opcode::text);
  EXPECT_EQ(m->payload, R"({"id":1,"result":{}})");

  r.feed(server_frame(0x01, "{\"a\":") + server_frame(0x89, "hi") + server_frame(0x80, "1}") +
         server_frame(0x8A, "") + server_frame(0x88, ""));
  m = r.next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->opcode, Opcode::ping);  // a control frame may arrive between fragments
  EXPECT_EQ(m->payload, "hi");
  m = r.next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->payload, "{\"a\":1}");
  m = r.next();  // the pong is skipped
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->opcode, Opcode::close);
  EXPECT_FALSE(r.failed());

  const std::string long_payload(1000, 'x');
  r.feed(server_frame(0x81, long_payload));
  m = r.next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->payload, long_payload);
}

TEST(WebSocketFrames, ProtocolErrorsFailForGood) {
  FrameReader masked;
  masked.feed(std::string("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11));  // a server never masks
  EXPECT_FALSE(masked.next().has_value());
  EXPECT_TRUE(masked.failed());

  FrameReader stray;
  stray.feed(server_frame(0x80, "x"));  // a continuation with nothing to continue
  EXPECT_FALSE(stray.next().has_value());
  EXPECT_TRUE(stray.failed());

  FrameReader oversize;
  oversize.feed(std::string("\x81\x7f\x00\x00\x00\x00\x01\x00\x00\x00", 10));  // 16 MiB announced
  EXPECT_FALSE(oversize.next().has_value());
  EXPECT_TRUE(oversize.failed());
  oversize.feed(server_frame(0x81, "ok"));
  EXPECT_FALSE(oversize.next().has_value());
}

}  // namespace
}  // namespace agentworks::bridge::native::websocket
