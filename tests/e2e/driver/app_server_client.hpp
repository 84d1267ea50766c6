// A client of `codex app-server` (JSON-RPC lines on stdio, no "jsonrpc" member): the same interface Codex's
// own front ends use, so the tests read and write hook trust exactly as the person's `/hooks` does.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "testing/piped_process.hpp"

namespace agentworks::e2e {

class AppServerClient {
 public:
  // Starts `codex app-server` in `cwd` and does initialize / initialized. Throws when it does not answer.
  AppServerClient(const std::filesystem::path& codex, const testing::EnvOverrides& env,
                  const std::filesystem::path& cwd);

  // Sends a request and returns its "result"; throws with the error (or on timeout) otherwise.
  nlohmann::json call(const std::string& method, const nlohmann::json& params,
                      std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  std::unique_ptr<testing::PipedProcess> process_;
  int next_id_ = 0;
};

}  // namespace agentworks::e2e
