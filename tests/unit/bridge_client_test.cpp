// The bridge socket client (common/bridge_client): request framing, answer matching and error mapping, and
// "no bridge" -> unreachable (exit 6) with the message that says how to start it.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "testing/temp_home.hpp"

namespace agentworks {
namespace {

using nlohmann::json;
namespace bc = bridge_client;

std::filesystem::path temp_socket_dir() {
  return agentworks::testing::make_temp_dir("aw-bc-", "/tmp");
}

int bind_unix(const std::filesystem::path& p) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, p.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) throw std::runtime_error("bind failed");
  return fd;
}

TEST(BridgeClient, EncodesOneLineWithTheId) {
  const std::string line = bc::encode_request(json{{"op", "status"}}, 7);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const json j = json::parse(line);
  EXPECT_EQ(j["id"], 7);
  EXPECT_EQ(j["op"], "status");
}

TEST(BridgeClient, MatchesAnswersById) {
  EXPECT_FALSE(bc::match_answer(R"({"id":2,"ok":true})", 1).has_value());
  EXPECT_FALSE(bc::match_answer(R"({"id":null,"error":{"code":"bad_request","message":"x"}})", 1).has_value());
  const auto a = bc::match_answer(R"({"id":1,"ok":true,"pong":true})", 1);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ((*a)["pong"], true);
}

TEST(BridgeClient, MapsErrorObjectsToErrors) {
  try {
    bc::match_answer(R"({"id":3,"error":{"code":"fenced","message":"superseded"}})", 3);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::fenced);
    EXPECT_STREQ(e.what(), "superseded");
  }
  try {
    bc::match_answer(R"({"id":3,"error":{"code":"no_such_code","message":"m"}})", 3);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::internal);
  }
  EXPECT_THROW(bc::match_answer("not json", 3), Error);
  EXPECT_THROW(bc::check_greeting(R"({"hello":1})"), Error);
  EXPECT_NO_THROW(bc::check_greeting(R"({"agentworks_bridge":1,"protocol":1,"capabilities":[]})"));
}

TEST(BridgeClient, NoSocketIsUnreachable) {
  const auto dir = temp_socket_dir();
  try {
    bc::call(json{{"op", "ping"}}, std::chrono::seconds(2), dir / "bridge.sock");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unreachable);
    EXPECT_EQ(exit_code(e.code()), 6);
    EXPECT_NE(std::string(e.what()).find("agentworks daemon start"), std::string::npos);
  }
  EXPECT_FALSE(bc::ping(std::chrono::seconds(1), dir / "bridge.sock").has_value());
  // A stale socket file (bound, nobody listening) is "connection refused": also not running.
  const int fd = bind_unix(dir / "stale.sock");
  ::close(fd);
  try {
    bc::call(json{{"op", "ping"}}, std::chrono::seconds(2), dir / "stale.sock");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unreachable);
  }
  std::filesystem::remove_all(dir);
}

TEST(BridgeClient, TalksToAPeerAndHonoursTheDeadline) {
  const auto dir = temp_socket_dir();
  const int listener = bind_unix(dir / "b.sock");
  ASSERT_EQ(::listen(listener, 4), 0);
  std::thread peer([listener] {
    // First connection: a real exchange (an unrelated answer first, then ours).
    int c = ::accept(listener, nullptr, nullptr);
    const std::string greeting = "{\"agentworks_bridge\":1,\"protocol\":1,\"capabilities\":[\"ping\"]}\n";
    [[maybe_unused]] auto n = ::write(c, greeting.data(), greeting.size());
    char buf[4096];
    const ssize_t got = ::read(c, buf, sizeof buf);
    const json req = json::parse(std::string(buf, static_cast<std::size_t>(got > 0 ? got : 0)));
    const std::string other = "{\"id\":999,\"ok\":true}\n";
    n = ::write(c, other.data(), other.size());
    const std::string answer = json{{"id", req["id"]}, {"ok", true}, {"op_seen", req["op"]}}.dump() + "\n";
    n = ::write(c, answer.data(), answer.size());
    ::close(c);
    // Second connection: greets, then never answers.
    c = ::accept(listener, nullptr, nullptr);
    n = ::write(c, greeting.data(), greeting.size());
    [[maybe_unused]] const ssize_t ignored = ::read(c, buf, sizeof buf);
    ::sleep(3);
    ::close(c);
  });
  const json a = bc::call(json{{"op", "status"}}, std::chrono::seconds(5), dir / "b.sock");
  EXPECT_EQ(a["op_seen"], "status");
  try {
    bc::call(json{{"op", "status"}}, std::chrono::milliseconds(300), dir / "b.sock");
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unreachable);
    // The request reached the bridge but got no answer: the kind a caller may retry with the same submission id.
    EXPECT_NE(dynamic_cast<const bc::NoAnswer*>(&e), nullptr);
  }
  peer.join();
  ::close(listener);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace agentworks
