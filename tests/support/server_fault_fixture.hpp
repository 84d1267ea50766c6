// A server-only fixture for the fault tests: a temp HOME, agentworks-server on a data directory the test
// chooses (a small tmpfs, or the default one) with extra environment (libfiu's preload), and plain HTTP calls
// as the owner. Every send carries a submission id, so a retry after a refusal is safe and countable.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "testing/http_client.hpp"
#include "testing/server_process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {

class ServerFaultTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure() && server_) std::cerr << "=== server log ===\n" << server_->log().substr(0, 20000) << "\n";
  }

  void start_server(const std::filesystem::path& data_dir, const EnvOverrides& extra_env = {}) {
    ServerOptions options;
    options.data_dir = data_dir;
    options.env = merge_env(home_.env(), extra_env);
    server_ = std::make_unique<ServerProcess>(options);
    connect();
    for (const char* name : {"worker", "reviewer"}) {
      const auto r = http_->post("/v1/agents", nlohmann::json{{"agent_name", name}}.dump());
      if (r.status / 100 != 2) throw std::runtime_error("register " + std::string(name) + ": " + r.body);
    }
  }
  void connect() { http_ = std::make_unique<HttpClient>(server_->url(), server_->owner_token()); }

  // The text of the send with this submission id: the mailbox shows which submissions were stored.
  static std::string text_of(const std::string& submission_id, std::size_t pad = 8000) {
    return submission_id + ":" + std::string(pad, 'm');
  }
  // POST /v1/messages as agent:worker to agent:reviewer.
  HttpResponse send(const std::string& submission_id, const std::string& text) {
    const nlohmann::json body = {{"agent_name", "worker"},
                                 {"target", "agent:reviewer"},
                                 {"message", text},
                                 {"submission_id", submission_id}};
    return http_->post("/v1/messages", body.dump());
  }
  static std::string error_code(const HttpResponse& r) {
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    return j.is_object() && j.contains("error") ? j["error"].value("code", "") : "";
  }
  static std::string message_id(const HttpResponse& r) {
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    return j.is_object() ? j.value("message_id", "") : "";
  }

  // The text of every message in agent:reviewer's mailbox, with how often it occurs. A page answered
  // `unavailable` (the store still reconnecting after the last fault: the server's honest answer) is asked again
  // for up to 60 s.
  std::map<std::string, int> mailbox() {
    std::map<std::string, int> texts;
    std::string after = "0";
    for (int page = 0; page < 1000; ++page) {
      HttpResponse r;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      for (;;) {
        r = http_->get("/v1/messages?agent_name=reviewer&limit=100&after=" + after);
        if ((r.status != 503 && r.status != 0) || std::chrono::steady_clock::now() > give_up) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (r.status != 200) throw std::runtime_error("read failed: " + std::to_string(r.status) + " " + r.body);
      const auto j = nlohmann::json::parse(r.body);
      if (j["messages"].empty()) break;
      for (const auto& m : j["messages"]) ++texts[m.value("message", "")];
      after = j.value("next_cursor", after);
    }
    return texts;
  }

  TempHome home_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<HttpClient> http_;
};

}  // namespace agentworks::testing
