// The bridge's direct exchange with Codex's app server (daemon/lib/native/codex_app_queue.hpp) against a scripted
// stand-in daemon on a Unix socket: what counts as accepted, refused, ambiguous (thread/queue/add was sent) and
// unavailable (nothing was sent, so `codex queue` may still run). The last two must never be confused: the first
// must not be retried, the second must be.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "native/codex_app_queue.hpp"
#include "support/uv_loop_test.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bridge::native {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

enum class Script { accept, refuse_add, close_after_add, close_after_upgrade, refuse_upgrade };

std::string read_some(int fd) {
  char buf[65536];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

// One masked client frame off the front of `in`, unmasked; nullopt until whole.
std::optional<std::string> take_frame(std::string& in) {
  if (in.size() < 2) return std::nullopt;
  std::size_t len = static_cast<unsigned char>(in[1]) & 0x7FU;
  std::size_t at = 2;
  if (len == 126) {
    if (in.size() < 4) return std::nullopt;
    len = (static_cast<std::size_t>(static_cast<unsigned char>(in[2])) << 8) | static_cast<unsigned char>(in[3]);
    at = 4;
  }
  if (in.size() < at + 4 + len) return std::nullopt;
  std::string out = in.substr(at + 4, len);
  for (std::size_t i = 0; i < len; ++i) out[i] = static_cast<char>(out[i] ^ in[at + (i % 4)]);
  in.erase(0, at + 4 + len);
  return out;
}

void send_text(int fd, const json& j) {
  const std::string payload = j.dump();
  std::string frame = {static_cast<char>(0x81)};
  if (payload.size() < 126) {
    frame.push_back(static_cast<char>(payload.size()));
  } else {
    frame.push_back(static_cast<char>(126));
    frame.push_back(static_cast<char>(payload.size() >> 8));
    frame.push_back(static_cast<char>(payload.size() & 0xFF));
  }
  frame += payload;
  ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
}

class CodexAppQueueTest : public agentworks::testing::UvLoopTest {
 protected:
  void SetUp() override {
    std::signal(SIGPIPE, SIG_IGN);  // as in the bridge (start/run.cpp): a write to a closed peer is an error
    UvLoopTest::SetUp();
    dir_ = agentworks::testing::make_temp_dir("codex_app_", "/tmp");
    socket_ = (dir_ / "app-server-control.sock").string();
  }
  void TearDown() override {
    if (server_.joinable()) server_.join();
    std::filesystem::remove_all(dir_);
    UvLoopTest::TearDown();
  }

  // The stand-in daemon: one connection, played by `script`; `received` gets the queue/add request.
  void serve(Script script) {
    const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(listener, 1), 0);
    server_ = std::thread([this, listener, script] {
      const int fd = ::accept(listener, nullptr, nullptr);
      ::close(listener);
      std::string in;
      while (in.find("\r\n\r\n") == std::string::npos) {
        const std::string more = read_some(fd);
        if (more.empty()) break;
        in += more;
      }
      if (script == Script::refuse_upgrade) {
        const std::string no = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
        ::send(fd, no.data(), no.size(), MSG_NOSIGNAL);
        ::close(fd);
        return;
      }
      const std::string yes = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Accept: x\r\n\r\n";
      ::send(fd, yes.data(), yes.size(), MSG_NOSIGNAL);
      in.erase(0, in.find("\r\n\r\n") + 4);
      if (script == Script::close_after_upgrade) {
        ::close(fd);
        return;
      }
      while (true) {
        auto frame = take_frame(in);
        if (!frame) {
          const std::string more = read_some(fd);
          if (more.empty()) break;
          in += more;
          continue;
        }
        const json m = json::parse(*frame);
        const std::string method = m.value("method", "");
        if (method == "initialize") {
          send_text(fd, {{"method", "some/notification"}, {"params", json::object()}});
          send_text(fd, {{"id", m["id"]}, {"result", {{"userAgent", "stand-in"}}}});
        } else if (method == "thread/queue/add") {
          received_ = m;
          if (script == Script::close_after_add) break;
          if (script == Script::refuse_add) {
            send_text(fd, {{"id", m["id"]}, {"error", {{"code", -32600}, {"message", "thread not found: t"}}}});
          } else {
            send_text(fd, {{"id", m["id"]}, {"result", {{"queuedSubmission", {{"id", "q1"}}}}}});
          }
        }
      }
      ::close(fd);
    });
  }

  std::pair<DirectOutcome, std::string> exchange(std::chrono::milliseconds timeout = 5s) {
    std::optional<std::pair<DirectOutcome, std::string>> got;
    queue_through_app_server(&loop_, socket_, "0199a000-0000-7000-8000-000000000001", "hello \"there\"\nline two",
                             timeout, [&](DirectOutcome o, std::string d) { got.emplace(o, std::move(d)); });
    EXPECT_FALSE(got.has_value()) << "answered from inside the call";
    while (!got) uv_run(&loop_, UV_RUN_ONCE);
    uv_run(&loop_, UV_RUN_DEFAULT);  // the handles' closes
    return *got;
  }

  std::filesystem::path dir_;
  std::string socket_;
  std::thread server_;
  json received_;
};

TEST_F(CodexAppQueueTest, AResultIsAcceptedAndTheRequestIsExact_RN2) {
  serve(Script::accept);
  const auto [outcome, detail] = exchange();
  EXPECT_EQ(outcome, DirectOutcome::accepted) << detail;
  server_.join();
  EXPECT_EQ(received_["params"]["threadId"], "0199a000-0000-7000-8000-000000000001");
  EXPECT_EQ(received_["params"]["input"][0]["type"], "text");
  EXPECT_EQ(received_["params"]["input"][0]["text"], "hello \"there\"\nline two");
  EXPECT_FALSE(received_["params"]["clientUserMessageId"].get<std::string>().empty());
}

TEST_F(CodexAppQueueTest, AnErrorAnswerIsARefusal_RN3) {
  serve(Script::refuse_add);
  const auto [outcome, detail] = exchange();
  EXPECT_EQ(outcome, DirectOutcome::refused);
  EXPECT_NE(detail.find("thread not found"), std::string::npos) << detail;
}

TEST_F(CodexAppQueueTest, LostAfterTheRequestIsAmbiguousNeverUnavailable_RB14) {
  serve(Script::close_after_add);
  EXPECT_EQ(exchange().first, DirectOutcome::ambiguous);
}

TEST_F(CodexAppQueueTest, NoDaemonIsUnavailableSoCodexQueueMayRun) {
  EXPECT_EQ(exchange().first, DirectOutcome::unavailable);  // no socket at all
}

TEST_F(CodexAppQueueTest, ARefusedUpgradeIsUnavailable) {
  serve(Script::refuse_upgrade);
  EXPECT_EQ(exchange().first, DirectOutcome::unavailable);
}

TEST_F(CodexAppQueueTest, LostBeforeTheRequestIsUnavailable) {
  serve(Script::close_after_upgrade);
  EXPECT_EQ(exchange().first, DirectOutcome::unavailable);
}

TEST(CodexAppSocket, TheRemoteOrCodexHome) {
  CodexBinding b;
  b.codex_home = "/home/a/.codex-work";
  EXPECT_EQ(app_server_socket(b), "/home/a/.codex-work/app-server-control/app-server-control.sock");
  b.remote = "unix:///run/user/1000/codex.sock";
  EXPECT_EQ(app_server_socket(b), "/run/user/1000/codex.sock");
}

}  // namespace
}  // namespace agentworks::bridge::native
