// The one HTTP response parser the tests and benchmarks share (testing/http_wire.hpp): heads, and chunked bodies
// fed in arbitrary pieces.
#include <gtest/gtest.h>

#include <string>

#include "testing/http_wire.hpp"

namespace agentworks::testing {
namespace {

TEST(HttpWire, ParsesStatusHeadersAndFraming) {
  const auto head = parse_response_head(
      "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 12\r\nConnection: Close\r\n");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 201);
  EXPECT_EQ(head->content_length, 12U);
  EXPECT_FALSE(head->chunked);
  EXPECT_TRUE(head->close);
  EXPECT_EQ(head->headers.at("content-type"), "application/json");

  const auto chunked = parse_response_head("HTTP/1.0 200 OK\nTransfer-Encoding: chunked");
  ASSERT_TRUE(chunked);
  EXPECT_TRUE(chunked->chunked);
  EXPECT_FALSE(chunked->content_length);
}

TEST(HttpWire, RefusesWhatIsNotAnHttp1Head) {
  EXPECT_FALSE(parse_response_head("HTTP/2 200 OK"));
  EXPECT_FALSE(parse_response_head("SSH-2.0-OpenSSH_9.2"));
  EXPECT_FALSE(parse_response_head("HTTP/1.1 2000 OK"));
  EXPECT_FALSE(parse_response_head("HTTP/1.1 20x OK"));
  EXPECT_FALSE(parse_response_head("HTTP/1.1 200 OK\r\nContent-Length: 12abc"));
}

TEST(HttpWire, ChunkedBodyDecodesWhateverTheSplitAndLeavesTheNextResponse) {
  const std::string wire = "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n";
  for (std::size_t piece = 1; piece <= wire.size(); ++piece) {
    ChunkedDecoder decoder;
    std::string body;
    std::size_t offset = 0;
    ChunkedDecoder::Result result = ChunkedDecoder::Result::more;
    while (offset < wire.size() && result == ChunkedDecoder::Result::more) {
      const std::string_view bytes = std::string_view(wire).substr(offset, piece);
      std::size_t consumed = 0;
      result = decoder.feed(bytes, &consumed, [&](std::string_view data) { body.append(data); });
      offset += consumed;
    }
    ASSERT_EQ(result, ChunkedDecoder::Result::done) << "piece " << piece;
    EXPECT_EQ(body, "hello, world") << "piece " << piece;
    EXPECT_EQ(wire.substr(offset), "HTTP/1.1 200 OK\r\n") << "piece " << piece;
  }
}

TEST(HttpWire, ChunkedGarbageIsAnError) {
  ChunkedDecoder decoder;
  std::size_t consumed = 0;
  EXPECT_EQ(decoder.feed("zz\r\n", &consumed, [](std::string_view) {}), ChunkedDecoder::Result::error);
}

}  // namespace
}  // namespace agentworks::testing
