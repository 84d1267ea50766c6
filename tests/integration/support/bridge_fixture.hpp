// MessagingTest plus the real bridge in the same temp HOME: start_bridge(), call() (one local-socket request
// that must be answered) and the bridge's log printed when a test fails. Every bridge-facing fixture derives
// from this one.
#pragma once

#include <iostream>
#include <memory>
#include <stdexcept>
#include <utility>

#include "bridge_test_client.hpp"
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

  // Kills the server (a crash) and starts it again on the same port and data, as after an outage.
  void kill_server() { server_->kill(); }
  void restart_server_same_port() {
    ServerOptions o;
    o.data_dir = server_->data_dir();
    o.listen = "127.0.0.1:" + std::to_string(server_->port());
    o.env = home_.env();
    server_ = std::make_unique<ServerProcess>(o);
  }

  nlohmann::json call(const nlohmann::json& request) {
    const auto a = bridge_call(home_, request);
    if (!a) throw std::runtime_error("the bridge did not answer " + request.dump());
    return *a;
  }

  std::unique_ptr<BridgeProcess> bridge_;
};

}  // namespace agentworks::testing
