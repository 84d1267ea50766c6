// Pi's native route on the MCP side (docs/mcp.md "Pi steer", docs/native-routes.md "Pi steer"): `agentworks mcp
// serve --provider pi --session-id ID`, started by the agentworks Pi extension, keeps one `steer_wait` parked in
// the bridge for that session and hands each push to the extension as notifications/agentworks/steer {push_id,
// text}. The extension gives the text to Pi and answers with the request agentworks/steer_result, which goes to
// the bridge as `steer_result`. The bridge persisted the offer before the push (R-N2): a crash anywhere after
// that leaves it offered, never pushed again.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mcp/caller_identity.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/long_poll_loop.hpp"

namespace agentworks::cli::mcp {

// What the extension declared in initialize: capabilities.experimental["agentworks/steer"].
struct SteerOffer {
  std::string pi_version;  // Pi's own VERSION, as the extension read it
  std::string unusable;    // "" or why the extension cannot steer this Pi (a missing API)
};

class SteerPump {
 public:
  SteerPump(LineWriter& writer, CallerIdentity caller, std::string session_id, SteerOffer offer);

  void start() { loop_.start(); }

 private:
  // One parked wait and its notification; returns how long to wait before the next (LongPollLoop::kEnd when the
  // bridge said this Pi cannot be steered).
  std::chrono::milliseconds wait_once(int cancel_fd);

  LineWriter& writer_;
  CallerIdentity caller_;
  std::string session_id_;
  SteerOffer offer_;
  bool fresh_ = true;  // the first wait of this extension instance clears an earlier refusal
  LongPollLoop loop_;  // last: stopped before the rest goes
};

// The extension's agentworks/steer_result {push_id, outcome, detail?} as the bridge's steer_result: {settled}.
nlohmann::json forward_steer_result(const nlohmann::json& params, const CallerIdentity& caller,
                                    const std::string& session_id);

}  // namespace agentworks::cli::mcp
