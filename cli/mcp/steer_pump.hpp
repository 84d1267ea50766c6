// Pi's native route on the MCP side (docs/mcp.md "Pi steer", docs/native-routes.md "Pi steer"): `agentworks mcp
// serve --provider pi --session-id ID`, started by the agentworks Pi extension, keeps one `steer_wait` parked in
// the bridge for that session and hands each push to the extension as notifications/agentworks/steer {push_id,
// text}. The extension gives the text to Pi and answers with the request agentworks/steer_result, which goes to
// the bridge as `steer_result`. The bridge persisted the offer before the push (R-N2): a crash anywhere after
// that leaves it offered, never pushed again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/unique_fd.hpp"
#include "mcp/caller_identity.hpp"
#include "mcp/jsonrpc.hpp"

namespace agentworks::cli::mcp {

// What the extension declared in initialize: capabilities.experimental["agentworks/steer"].
struct SteerOffer {
  std::string pi_version;  // Pi's own VERSION, as the extension read it
  std::string unusable;    // "" or why the extension cannot steer this Pi (a missing API)
};

class SteerPump {
 public:
  SteerPump(LineWriter& writer, CallerIdentity caller, std::string session_id, SteerOffer offer);
  ~SteerPump();
  SteerPump(const SteerPump&) = delete;
  SteerPump& operator=(const SteerPump&) = delete;

  void start();

 private:
  void run();
  bool stopping();
  // One parked wait and its notification; returns how long to wait before the next.
  std::chrono::milliseconds wait_once();
  // wait_once(), or the idle interval when the bridge could not be asked.
  std::chrono::milliseconds next_wait();

  LineWriter& writer_;
  CallerIdentity caller_;
  std::string session_id_;
  SteerOffer offer_;
  bool fresh_ = true;
  bool off_ = false;  // the bridge said this Pi cannot be steered: the pump ends  // the first wait of this extension instance clears an earlier refusal
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  UniqueFd stop_read_;  // readable once the pump stops: cancels the parked wait
  UniqueFd stop_write_;
};

// The extension's agentworks/steer_result {push_id, outcome, detail?} as the bridge's steer_result: {settled}.
nlohmann::json forward_steer_result(const nlohmann::json& params, const CallerIdentity& caller,
                                    const std::string& session_id);

}  // namespace agentworks::cli::mcp
