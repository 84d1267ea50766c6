// The Claude channel's long poll (docs/protocol.md "The channel's long poll"): a `channel_take` with wait_ms is
// parked in the real bridge and answered when the attachment's stream caches a message, with no poll anywhere on
// the path, offered once (R-B5), never to a client that has gone, and ended by a detach. R-C3.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/bridge_fixture.hpp"
#include "testing/binaries.hpp"
#include "testing/bridge_client.hpp"
#include "testing/piped_process.hpp"
#include "testing/process_key.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kSession = "sess-long-poll";

class BridgeChannelLongPoll : public BridgeTest {
 protected:
  void SetUp() override {
    start_server();
    register_agent(owner(), "worker", {"--purpose", "Sends work"});
    start_bridge();
    const json a = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", kSession},
                         {"agent_name", "listener"}, {"purpose", "Listens on the channel"},
                         {"process", own_process_key()}});
    ASSERT_EQ(a.value("ok", false), true) << a.dump();
    ASSERT_TRUE(wait_connected(kSession));
  }

  // A connection with one channel_take parked on it (its answer not read yet).
  std::unique_ptr<BridgeClient> park(long long wait_ms = 60000) {
    std::string error;
    auto client = BridgeClient::open(bridge_socket(home_), &error);
    if (!client) throw std::runtime_error("bridge socket: " + error);
    const json request = {{"id", 1}, {"op", "channel_take"}, {"process", own_process_key()}, {"wait_ms", wait_ms}};
    if (!client->send_raw(request.dump() + "\n")) throw std::runtime_error("cannot send channel_take");
    return client;
  }

  static json answer_of(BridgeClient& client, std::chrono::milliseconds timeout = 30s) {
    const auto line = client.read_line(timeout);
    if (!line) return json();
    return json::parse(*line);
  }

  long listeners() { return status_of(kSession).value("channel_listeners", -1L); }
  bool wait_listeners(long n) { return wait_until([&] { return listeners() == n; }, 20s); }
};

// Parked with a 60 s wait, answered with the message: the read gives up after 30 s, so only a wake passes.
TEST_F(BridgeChannelLongPoll, AParkedTakeIsAnsweredWhenTheMessageIsCached_RC3) {
  auto client = park();
  ASSERT_TRUE(wait_listeners(1)) << status_of(kSession).dump();
  EXPECT_EQ(status_of(kSession)["pending"], 0);

  const json sent = send_as(owner(), "worker", "agent:listener", "wake the channel");
  const json answer = answer_of(*client);
  ASSERT_TRUE(answer.is_object()) << "the parked channel_take was not answered when the message arrived";
  ASSERT_EQ(answer.value("ok", false), true) << answer.dump();
  ASSERT_EQ(answer["messages"].size(), 1u) << answer.dump();
  EXPECT_EQ(answer["messages"][0]["message_id"], sent["message_id"]);
  EXPECT_EQ(answer["messages"][0]["message"], "wake the channel");
  EXPECT_EQ(listeners(), 0);

  // R-B5: offered once. The next parked take sees nothing and ends empty at its own deadline.
  EXPECT_EQ(status_of(kSession)["offered_not_admitted"], 1);
  auto again = park(300);
  const json empty = answer_of(*again);
  ASSERT_EQ(empty.value("ok", false), true) << empty.dump();
  EXPECT_TRUE(empty["messages"].empty()) << empty.dump();
}

// Something already cached: answered at once, as `take`.
TEST_F(BridgeChannelLongPoll, WhatIsAlreadyCachedIsAnsweredAtOnce_RC3) {
  const json sent = send_as(owner(), "worker", "agent:listener", "already here");
  ASSERT_TRUE(wait_pending(kSession, 1));
  auto client = park();
  const json answer = answer_of(*client);
  ASSERT_EQ(answer.value("ok", false), true) << answer.dump();
  ASSERT_EQ(answer["messages"].size(), 1u) << answer.dump();
  EXPECT_EQ(answer["messages"][0]["message_id"], sent["message_id"]);
}

// A client that closed its connection while parked is never offered the next message: a later take gets it.
TEST_F(BridgeChannelLongPoll, AClientThatLeftIsNeverOfferedTheMessage_RB5) {
  auto gone = park();
  ASSERT_TRUE(wait_listeners(1));
  gone.reset();  // closes the connection
  ASSERT_TRUE(wait_listeners(0)) << "a closed connection still counts as listening";

  const json sent = send_as(owner(), "worker", "agent:listener", "for whoever asks next");
  ASSERT_TRUE(wait_pending(kSession, 1)) << status_of(kSession).dump();
  const json taken = take(kSession);
  ASSERT_EQ(taken["messages"].size(), 1u) << taken.dump();
  EXPECT_EQ(taken["messages"][0]["message_id"], sent["message_id"]);
}

// A detach ends the parked take now, with an error that says the chat is no longer attached.
TEST_F(BridgeChannelLongPoll, ADetachAnswersTheParkedTake_RC3) {
  auto client = park();
  ASSERT_TRUE(wait_listeners(1));
  const json d = call({{"op", "detach"}, {"provider", "claude"}, {"session_id", kSession}});
  ASSERT_EQ(d.value("ok", false), true) << d.dump();
  const json answer = answer_of(*client);
  ASSERT_TRUE(answer.is_object()) << "the parked channel_take outlived the detach";
  ASSERT_TRUE(answer.contains("error")) << answer.dump();
  const auto code = answer["error"]["code"].get<std::string>();
  EXPECT_TRUE(code == "not_found" || code == "fenced") << answer.dump();
}

// At most four parked per attachment: a fifth answers the oldest (empty) at once; the other four stay parked.
TEST_F(BridgeChannelLongPoll, AFifthParkedTakeAnswersTheOldest_RC3) {
  std::vector<std::unique_ptr<BridgeClient>> clients;
  for (int i = 0; i < 4; ++i) clients.push_back(park());
  ASSERT_TRUE(wait_listeners(4));
  clients.push_back(park());
  const json oldest = answer_of(*clients.front());
  ASSERT_EQ(oldest.value("ok", false), true) << oldest.dump();
  EXPECT_TRUE(oldest["messages"].empty());
  EXPECT_TRUE(wait_listeners(4)) << status_of(kSession).dump();
}

// wait_ms is checked; a bad one changes nothing. Without it the op answers at once, as before.
TEST_F(BridgeChannelLongPoll, BadWaitIsRefusedAndNoWaitAnswersAtOnce_RC3) {
  for (const json& bad : {json(-1), json(60001), json("soon"), json(1.5)}) {
    const json a = call({{"op", "channel_take"}, {"process", own_process_key()}, {"wait_ms", bad}});
    ASSERT_TRUE(a.contains("error")) << a.dump();
    EXPECT_EQ(a["error"]["code"], "bad_request") << bad.dump();
  }
  EXPECT_EQ(listeners(), 0);
  const json now = call({{"op", "channel_take"}, {"process", own_process_key()}});
  ASSERT_EQ(now.value("ok", false), true) << now.dump();
  EXPECT_TRUE(now["messages"].empty());
}

// The real `agentworks mcp serve --claude-channel` child keeps one take parked (no poll), pushes the message, and
// still exits at once when its host closes stdin, although its channel thread is inside a 25 s wait.
TEST_F(BridgeChannelLongPoll, TheChannelChildParksAndStopsAtOnce_RC3) {
  PipedProcess child({cli_binary(), "mcp", "serve", "--provider", "claude", "--claude-channel"}, home_.env(), {}, {});
  const json init = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                     {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                                 {"clientInfo", {{"name", "long-poll-test"}, {"version", "1"}}}}}};
  ASSERT_TRUE(child.write_line(init.dump()));
  const auto answer = child.read_line(std::chrono::steady_clock::now() + 20s);
  ASSERT_TRUE(answer.has_value()) << "no initialize answer";
  ASSERT_TRUE(child.write_line(json({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).dump()));
  ASSERT_TRUE(wait_listeners(1)) << "the channel child has no take parked: " << status_of(kSession).dump();

  send_as(owner(), "worker", "agent:listener", "pushed without a poll");
  bool pushed = false;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!pushed) {
    const auto line = child.read_line(deadline);
    if (!line) break;
    const json n = json::parse(*line, nullptr, false);
    pushed = n.is_object() && n.value("method", "") == "notifications/claude/channel" &&
             n["params"]["content"] == "pushed without a poll";
  }
  ASSERT_TRUE(pushed) << "no channel notification";
  ASSERT_TRUE(wait_listeners(1)) << "the child did not park its next take";

  child.close_stdin();
  const auto code = child.wait_exit(5s);
  ASSERT_TRUE(code.has_value()) << "the MCP child did not exit within 5 s of stdin closing";
  EXPECT_EQ(*code, 0);
  EXPECT_TRUE(wait_listeners(0));
}

// Without a bridge the channel child asks again every 2 s, never in a busy loop: an earlier build read its wait
// as 0 after a failed connect and spun on connect() (thousands a second). Over a 3 s window the child's own CPU
// time stays far below what a spinning loop burns (about the whole window).
TEST_F(BridgeChannelLongPoll, WithoutABridgeTheChannelChildWaitsInsteadOfSpinning_RC3) {
  bridge_->stop();
  PipedProcess child({cli_binary(), "mcp", "serve", "--provider", "claude", "--claude-channel"}, home_.env(), {}, {});
  const json init = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                     {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}}}};
  ASSERT_TRUE(child.write_line(init.dump()));
  ASSERT_TRUE(child.read_line(std::chrono::steady_clock::now() + 20s).has_value()) << "no initialize answer";
  ASSERT_TRUE(child.write_line(json({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).dump()));
  const auto cpu_ticks = [&] {
    std::string stat = read_file("/proc/" + std::to_string(child.pid()) + "/stat");
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    long long utime = 0;
    long long stime = 0;
    for (int i = 3; fields >> field; ++i) {  // field 3 is the state; 14 utime, 15 stime (proc(5))
      if (i == 14) utime = std::stoll(field);
      if (i == 15) stime = std::stoll(field);
    }
    return utime + stime;
  };
  const long long before = cpu_ticks();
  std::this_thread::sleep_for(3s);  // the measured window, not a wait for readiness
  const long long used = cpu_ticks() - before;
  EXPECT_LT(used, ::sysconf(_SC_CLK_TCK) / 2) << used << " clock ticks of CPU in 3 s without a bridge";
  child.close_stdin();
  EXPECT_TRUE(child.wait_exit(5s).has_value());
}

}  // namespace
}  // namespace agentworks::testing
