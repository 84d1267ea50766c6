// MessagingTest plus the real bridge in the same temp HOME: start_bridge(), call() (one local-socket request
// that must be answered) and the bridge's log printed when a test fails. Every bridge-facing fixture derives
// from this one.
#pragma once

#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {

class BridgeTest : public MessagingTest {
 protected:
  void TearDown() override {
    if (HasFailure() && bridge_) std::cerr << "=== bridge log ===\n" << bridge_->log() << "\n";
    bridge_.reset();
    MessagingTest::TearDown();
  }

  void start_bridge(EnvOverrides env = {}) {
    bridge_ = std::make_unique<BridgeProcess>(home_, std::move(env));
    bridge_->start();
  }

  nlohmann::json call(const nlohmann::json& request) {
    const auto a = bridge_call(home_, request);
    if (!a) throw std::runtime_error("the bridge did not answer " + request.dump());
    return *a;
  }

  // The bridge ops the tests repeat (docs/protocol.md); each goes through call(), so an unanswered one throws.

  // `attach` of a (provider claude) session under `agent`; throws unless the bridge answered ok.
  nlohmann::json attach(const std::string& session, const std::string& agent = "reviewer",
                        const std::string& purpose = "Review incoming work") {
    const nlohmann::json a = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", session},
                                   {"agent_name", agent}, {"purpose", purpose}});
    if (a.value("ok", false) != true) throw std::runtime_error("attach failed: " + a.dump());
    return a;
  }
  nlohmann::json take(const std::string& session, const std::string& provider = "claude") {
    return call({{"op", "take"}, {"provider", provider}, {"session_id", session}});
  }
  nlohmann::json lookup(const std::string& provider, const std::string& session) {
    return call({{"op", "lookup"}, {"provider", provider}, {"session_id", session}});
  }
  // This session's row of the bridge's `status`, or `absent` when the bridge lists no attachment for it.
  nlohmann::json status_of(const std::string& session, const nlohmann::json& absent = nullptr) {
    // A named value: the loop must not iterate a dead temporary.
    const nlohmann::json status = call({{"op", "status"}});
    for (const auto& att : status["attachments"]) {
      if (att["session_id"] == session) return att;
    }
    return absent;
  }
  bool stream_connected(const std::string& session) {
    const auto s = status_of(session);
    return s.is_object() && s["stream"] == "connected";
  }
  // Waits until the session's stream is connected.
  bool wait_connected(const std::string& session, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    return wait_until([&] { return stream_connected(session); }, timeout);
  }
  // Waits until the journal holds `n` pending messages for the session (the stream caught up).
  bool wait_pending(const std::string& provider, const std::string& session, long n,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    return wait_until([&] { return lookup(provider, session).value("pending", -1L) == n; }, timeout);
  }
  bool wait_pending(const std::string& session, long n, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    return wait_pending("claude", session, n, timeout);
  }
  // A message from the owner's agent `worker` to agent:reviewer; its message_id.
  std::string send(const std::string& text) {
    return send_as(owner(), "worker", "agent:reviewer", text).value("message_id", "");
  }

  std::unique_ptr<BridgeProcess> bridge_;
};

}  // namespace agentworks::testing
