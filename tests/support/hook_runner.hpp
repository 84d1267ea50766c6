// Running the real agentworks-hook as an agent CLI runs it: a recorded provider payload (hook_payloads/) with the
// test's session id on stdin, in the test's temp HOME. Shared by the hook, takeover and socket-trust tests.
#pragma once

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "testing/process.hpp"
#include "testing/temp_home.hpp"

#ifndef AGENTWORKS_HOOK_BIN
#error "AGENTWORKS_HOOK_BIN must be defined by CMake"
#endif
#ifndef AGENTWORKS_HOOK_PAYLOADS
#error "AGENTWORKS_HOOK_PAYLOADS must be defined by CMake"
#endif

namespace agentworks::testing {

// The hook under test: AGENTWORKS_TEST_HOOK_BIN when set, else the one this build made.
inline std::string hook_binary() {
  const char* v = std::getenv("AGENTWORKS_TEST_HOOK_BIN");
  return (v != nullptr && v[0] != '\0') ? std::string(v) : std::string(AGENTWORKS_HOOK_BIN);
}

// A recorded payload for PROVIDER and EVENT with this test's session id (and working folder, when given).
inline nlohmann::json hook_payload(const std::string& provider, const std::string& event, const std::string& session,
                                   const std::string& cwd = "") {
  const auto path = std::filesystem::path(AGENTWORKS_HOOK_PAYLOADS) / (provider + "_" + event + ".json");
  nlohmann::json j = nlohmann::json::parse(read_file(path));
  j[provider == "cursor" ? "conversation_id" : "session_id"] = session;
  if (!cwd.empty()) j["cwd"] = cwd;
  return j;
}

// `agentworks-hook PROVIDER EVENT` with `input` on stdin, in `home` (plus `extra` environment).
inline ProcessResult run_hook(const TempHome& home, const std::string& provider, const std::string& event,
                              const std::string& input, const EnvOverrides& extra = {},
                              std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  RunOptions o;
  o.env = merge_env(home.env(), extra);
  o.stdin_data = input;
  o.timeout = timeout;
  return run_process({hook_binary(), provider, event}, o);
}

}  // namespace agentworks::testing
