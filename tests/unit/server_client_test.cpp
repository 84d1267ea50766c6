// Server client: error mapping and URL encoding, and an unreachable server is a quick ErrorCode::unreachable.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"

namespace aw = agentworks;

TEST(ServerClient, MapsServerErrorJsonToItsCode) {
  auto e = aw::error_from_response(409, R"({"error":{"code":"rate_limited","message":"slow down"}})", "u");
  EXPECT_EQ(e.code(), aw::ErrorCode::rate_limited);
  EXPECT_STREQ(e.what(), "slow down");
  auto f = aw::error_from_response(410, R"({"error":{"code":"expired","message":"start a new one"}})", "u");
  EXPECT_EQ(aw::exit_code(f.code()), aw::exit_not_found);
}

TEST(ServerClient, UnknownCodeOrNonJsonFallsBackToHttpStatus) {
  EXPECT_EQ(aw::error_from_response(403, R"({"error":{"code":"new_code","message":"m"}})", "u").code(),
            aw::ErrorCode::forbidden);
  EXPECT_EQ(aw::error_from_response(404, "<html>nope</html>", "u").code(), aw::ErrorCode::not_found);
  EXPECT_EQ(aw::error_from_response(502, "", "u").code(), aw::ErrorCode::busy);
  EXPECT_EQ(aw::error_from_response(500, "[1,2]", "u").code(), aw::ErrorCode::internal);
}

TEST(ServerClient, UrlEncodeKeepsOnlyUnreserved) {
  EXPECT_EQ(aw::url_encode("abc-._~XYZ09"), "abc-._~XYZ09");
  EXPECT_EQ(aw::url_encode("a b/c?d&e=f"), "a%20b%2Fc%3Fd%26e%3Df");
  EXPECT_EQ(aw::url_encode("\xc3\xa9"), "%C3%A9");
}

TEST(ServerClient, RejectsNonHttpUrl) {
  try {
    aw::ServerClient c("ftp://x");
    FAIL();
  } catch (const aw::Error& e) {
    EXPECT_EQ(e.code(), aw::ErrorCode::bad_request);
  }
}

TEST(ServerClient, ClosedPortIsUnreachableWithHint) {
  // Bind a port, then close it: nothing listens there.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  ::close(fd);

  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  aw::ServerClient client(url + "/", "tok");
  EXPECT_EQ(client.base_url(), url);
  try {
    client.get("/v1/health");
    FAIL() << "expected unreachable";
  } catch (const aw::Error& e) {
    EXPECT_EQ(e.code(), aw::ErrorCode::unreachable);
    EXPECT_EQ(aw::exit_code(e.code()), 6);
    std::string what = e.what();
    EXPECT_NE(what.find(url), std::string::npos) << what;
    EXPECT_NE(what.find("agentworks up"), std::string::npos) << what;
  }
}

TEST(ServerClient, SilentServerTimesOutAsUnreachable) {
  // A listener that never answers: the request timeout turns into unreachable, not a hang.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  aw::ServerClient client("http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)), "",
                          aw::ServerClientOptions{500, 300, {}});
  try {
    client.get("/v1/health");
    FAIL() << "expected unreachable";
  } catch (const aw::Error& e) {
    EXPECT_EQ(e.code(), aw::ErrorCode::unreachable);
  }
  ::close(fd);
}
