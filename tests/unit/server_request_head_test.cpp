// The server's own request-head parser and strict body parser (docs/decisions/0002-own-http-framing.md): what
// is accepted, and that anything ambiguous is refused with a stable code.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <variant>

#include "agentworks/error.hpp"
#include "api/body.hpp"
#include "http/request_head.hpp"

using agentworks::Error;
using agentworks::ErrorCode;
using agentworks::server::find_head_end;
using agentworks::server::HeadError;
using agentworks::server::parse_request_body;
using agentworks::server::parse_request_head;
using agentworks::server::RequestHead;

namespace {

ErrorCode refused(const std::string& head) {
  const auto r = parse_request_head(head);
  EXPECT_TRUE(std::holds_alternative<HeadError>(r)) << head;
  return std::holds_alternative<HeadError>(r) ? std::get<HeadError>(r).code : ErrorCode::internal;
}

}  // namespace

TEST(ServerRequestHead, FindsTheEndWithCrlfOrLf) {
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\nHost: x\r\n\r\nrest"), 27u);
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\nHost: x\n\nrest"), 24u);
  EXPECT_FALSE(find_head_end("GET / HTTP/1.1\r\nHost: x\r\n").has_value());
}

TEST(ServerRequestHead, ParsesAWellFormedHead) {
  const auto r = parse_request_head(
      "POST /v1/messages?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\nAUTHORIZATION:  Bearer t  \r\n\r\n");
  ASSERT_TRUE(std::holds_alternative<RequestHead>(r));
  const auto& h = std::get<RequestHead>(r);
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.target, "/v1/messages?x=1");
  EXPECT_EQ(h.content_length, 12u);
  EXPECT_TRUE(h.keep_alive);
  ASSERT_NE(h.header("authorization"), nullptr);
  EXPECT_EQ(*h.header("authorization"), "Bearer t");
}

TEST(ServerRequestHead, KeepAliveRules) {
  EXPECT_FALSE(std::get<RequestHead>(parse_request_head("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")).keep_alive);
  EXPECT_FALSE(std::get<RequestHead>(parse_request_head("GET / HTTP/1.0\r\n\r\n")).keep_alive);
  EXPECT_TRUE(std::get<RequestHead>(parse_request_head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")).keep_alive);
  EXPECT_TRUE(std::get<RequestHead>(parse_request_head("POST / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n")).expect_continue);
}

TEST(ServerRequestHead, RefusesAmbiguousHeads) {
  EXPECT_EQ(refused("GET  / HTTP/1.1\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("GET / HTTP/2.0\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("GET http://x/ HTTP/1.1\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nHost : x\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), ErrorCode::bad_request);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nContent-Length: 262145\r\n\r\n"), ErrorCode::payload_too_large);
}

TEST(ServerRequestBody, RefusesRepeatedKeysAtAnyDepthNamingThem) {
  EXPECT_EQ(parse_request_body(R"({"a":1,"b":{"a":2}})").at("b").at("a"), 2);
  try {
    parse_request_body(R"({"a":{"k":1,"k":2}})");
    FAIL() << "a repeated nested key was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::bad_request);
    EXPECT_NE(std::string(e.what()).find("'k'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_request_body(R"({"a":1,"a":1})"), Error);
  EXPECT_THROW(parse_request_body("[1]"), Error);
  EXPECT_THROW(parse_request_body(std::string(100, '[') + std::string(100, ']')), Error);
}
