// The status page's pure parts (cli/ui/): the request head parser, query and cookie values, the
// loopback peer lookup in the kernel's socket tables, and the one-time token.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include "ui/http_message.hpp"
#include "ui/page_access.hpp"
#include "ui/peer_uid.hpp"

namespace agentworks::cli::ui {
namespace {

TEST(StatusPageHttp, ParsesAHeadAndItsContentLength) {
  const std::string req = "POST /api/detach?x=1 HTTP/1.1\r\nHost: 127.0.0.1:80\r\nContent-Length: 2\r\n"
                          "X-Agentworks-UI:  1 \r\n\r\n{}";
  const auto p = parse_head(req, 16384);
  ASSERT_EQ(p.status, HeadStatus::complete) << p.problem;
  EXPECT_EQ(p.request.method, "POST");
  EXPECT_EQ(p.request.path, "/api/detach");
  EXPECT_EQ(p.request.query, "x=1");
  EXPECT_EQ(p.request.header("x-agentworks-ui"), "1");
  EXPECT_EQ(p.content_length, 2u);
  EXPECT_EQ(req.substr(p.head_bytes), "{}");
}

TEST(StatusPageHttp, AnIncompleteHeadWaitsAndABadOneIsRefused) {
  EXPECT_EQ(parse_head("GET / HTTP/1.1\r\nHost: x", 16384).status, HeadStatus::incomplete);
  for (const char* bad : {"GET /\r\n\r\n", "GET / HTTP/2\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n",
                                "G T / HTTP/1.1\r\n\r\n", "GET x HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
                                "GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", "GET / HTTP/1.1\r\nA: \x01\r\n\r\n",
                                "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "GET /\x7f HTTP/1.1\r\n\r\n"}) {
    EXPECT_EQ(parse_head(bad, 16384).status, HeadStatus::bad) << bad;
  }
  EXPECT_EQ(parse_head(std::string(20000, 'a'), 16384).status, HeadStatus::bad);
  EXPECT_EQ(parse_head("GET / HTTP/1.1\r\nA: " + std::string(20000, 'a') + "\r\n\r\n", 16384).status,
            HeadStatus::bad);
}

TEST(StatusPageHttp, QueryAndCookieValues) {
  EXPECT_EQ(query_param("a=1&token=ab%20c+d", "token"), "ab c d");
  EXPECT_EQ(query_param("token", "token"), "");
  EXPECT_EQ(query_param("a=1", "token"), std::nullopt);
  EXPECT_EQ(query_param("token=%z1", "token"), std::nullopt);
  EXPECT_EQ(query_param("token=%4", "token"), std::nullopt);
  EXPECT_EQ(cookie_value("a=1; agentworks_ui_80=xyz; b=2", "agentworks_ui_80"), "xyz");
  EXPECT_EQ(cookie_value("agentworks_ui_8=xyz", "agentworks_ui_80"), "");
}

TEST(StatusPageHttp, EveryAnswerForbidsFramingSniffingAndForeignScripts) {
  HttpResponse r;
  r.body = "hi";
  const auto text = serialize(r);
  EXPECT_EQ(text.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_NE(text.find("Content-Length: 2\r\n"), std::string::npos);
  EXPECT_NE(text.find("X-Frame-Options: DENY"), std::string::npos);
  EXPECT_NE(text.find("script-src 'self'"), std::string::npos);
  EXPECT_NE(text.find("Cache-Control: no-store"), std::string::npos);
}

// A /proc/net/tcp excerpt: our listener on 127.0.0.1:8080 (0x1F90), a client of uid 1000 from port 50000
// (0xC350), and another client of uid 1001 from 50001.
constexpr const char* kTable =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0\n"
    "   1: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0\n"
    "   2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0\n"
    "   3: 0100007F:C351 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 4 1 0\n";

TEST(StatusPageHttp, FindsTheUidOfThePeerSocketInTheKernelTable) {
  const in_addr_t lo = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(find_socket_uid(kTable, false, lo, htons(50000), lo, htons(8080)), 1000u);
  EXPECT_EQ(find_socket_uid(kTable, false, lo, htons(50001), lo, htons(8080)), 1001u);
  EXPECT_EQ(find_socket_uid(kTable, false, lo, htons(50002), lo, htons(8080)), std::nullopt);
  EXPECT_EQ(find_socket_uid(kTable, false, lo, htons(50000), lo, htons(8081)), std::nullopt);
  const std::string v6 =
      "  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
      "tm->when retrnsmt   uid  timeout inode\n"
      "   0: 0000000000000000FFFF00000100007F:C350 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 "
      "00:00000000 00000000   123        0 5 1 0\n";
  EXPECT_EQ(find_socket_uid(v6, true, lo, htons(50000), lo, htons(8080)), 123u);
  EXPECT_EQ(find_socket_uid("header\ngarbage line\n", false, lo, htons(50000), lo, htons(8080)), std::nullopt);
}

TEST(StatusPageHttp, TheOneTimeTokenIsSpentOnce) {
  PageAccess access(8080);
  EXPECT_FALSE(access.spend_token(access.token() + "0"));
  EXPECT_FALSE(access.spend_token(""));
  EXPECT_FALSE(access.token_spent());
  EXPECT_TRUE(access.spend_token(access.token()));
  EXPECT_FALSE(access.spend_token(access.token()));
  EXPECT_TRUE(access.token_spent());
  EXPECT_EQ(access.cookie_name(), "agentworks_ui_8080");
  EXPECT_NE(access.set_cookie().find("HttpOnly; SameSite=Strict"), std::string::npos);
  EXPECT_NE(PageAccess(8080).token(), access.token());
}

}  // namespace
}  // namespace agentworks::cli::ui
