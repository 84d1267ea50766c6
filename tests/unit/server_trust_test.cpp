// Which server URLs the clients accept (R-T5): plain http only to loopback; the host is read from the URL, so
// user info, ports, paths and IPv6 brackets cannot make a remote host look like loopback.
#include <gtest/gtest.h>

#include "agentworks/error.hpp"
#include "agentworks/server_trust.hpp"
#include "http/listen_policy.hpp"

namespace aw = agentworks;

namespace {

aw::ErrorCode url_refusal_code(const std::string& url) {
  try {
    aw::check_server_url_security(url);
  } catch (const aw::Error& e) {
    return e.code();
  }
  return aw::ErrorCode::internal;  // stands for "accepted"
}

}  // namespace

TEST(ServerTrust, UrlHostIsTheHostWhateverSurroundsIt) {
  EXPECT_EQ(aw::url_host("http://127.0.0.1:7787/v1/health"), "127.0.0.1");
  EXPECT_EQ(aw::url_host("https://user:pw@example.org/x"), "example.org");
  EXPECT_EQ(aw::url_host("http://[::1]:80"), "[::1]");
  EXPECT_EQ(aw::url_host("http://127.0.0.1@evil.example:80"), "evil.example");
  EXPECT_EQ(aw::url_host("no scheme"), "");
}

TEST(ServerTrust, LoopbackHosts_R_T5) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"})
    EXPECT_TRUE(aw::is_loopback_host(host)) << host;
  for (const char* host : {"0.0.0.0", "10.0.0.1", "128.0.0.1", "example.org", "::", "", "127.0.0.1.example.org"})
    EXPECT_FALSE(aw::is_loopback_host(host)) << host;
}

TEST(ServerTrust, PlainHttpOnlyToLoopback_R_T5) {
  EXPECT_EQ(url_refusal_code("http://127.0.0.1:7787"), aw::ErrorCode::internal);
  EXPECT_EQ(url_refusal_code("http://localhost:7787/"), aw::ErrorCode::internal);
  EXPECT_EQ(url_refusal_code("http://[::1]:7787"), aw::ErrorCode::internal);
  EXPECT_EQ(url_refusal_code("https://example.org:7787"), aw::ErrorCode::internal);
  EXPECT_EQ(url_refusal_code("http://example.org:7787"), aw::ErrorCode::usage);
  EXPECT_EQ(url_refusal_code("http://0.0.0.0:7787"), aw::ErrorCode::usage);
  EXPECT_EQ(url_refusal_code("http://127.0.0.1@example.org:7787"), aw::ErrorCode::usage);
}

TEST(ServerTrust, ServerListenLoopbackMatchesTheClients_R_T5) {
  EXPECT_TRUE(agentworks::server::is_loopback_address("127.0.0.1"));
  EXPECT_TRUE(agentworks::server::is_loopback_address("127.9.9.9"));
  EXPECT_TRUE(agentworks::server::is_loopback_address("::1"));
  EXPECT_FALSE(agentworks::server::is_loopback_address("0.0.0.0"));
  EXPECT_FALSE(agentworks::server::is_loopback_address("192.0.2.1"));
}
