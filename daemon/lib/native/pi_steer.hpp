// Pi's native route (R-N2, R-N3): the agentworks extension inside the Pi process parks one `steer_wait` per
// session; a push answers that wait with the text, the extension hands it to Pi (a new turn when the session is
// idle, a follow-up when it is busy) and says what became of it with `steer_result`. An answer that never reached
// the extension's socket is a refusal (nothing was written); a result that does not come back in time is
// ambiguous. docs/native-routes.md "Pi steer".
#pragma once

#include <uv.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "native/push_result.hpp"
#include "request/reply.hpp"

namespace agentworks::bridge::native {

// Why the extension cannot steer Pi `version` (R-N3: only the versions whose extension API was verified, by
// major.minor), or nullopt when it can.
std::optional<std::string> unverified_pi_version(const std::string& version);

class PiSteer {
 public:
  // The extension answers as soon as Pi took (or refused) the text: waiting longer means it is gone or stuck.
  static constexpr std::chrono::seconds kResultWait{10};

  explicit PiSteer(uv_loop_t* loop);
  ~PiSteer();
  PiSteer(const PiSteer&) = delete;
  PiSteer& operator=(const PiSteer&) = delete;

  // Parks the extension's wait; a newer wait of the same attachment answers the older one idle.
  void park(const std::string& attachment_id, std::chrono::milliseconds wait, Reply reply);
  // A wait is parked and its client is still there.
  bool listening(const std::string& attachment_id) const;
  // Answers the parked wait with `text` under a new push id; `done` runs exactly once, on the loop thread.
  void push(const std::string& attachment_id, const std::string& text, PushDone done);
  // The extension's word on a push: false when `push_id` of this attachment is not waiting for one (late, or a
  // repeat), and nothing changes.
  bool result(const std::string& attachment_id, const std::string& push_id, const PushResult& result);
  // The extension reported a Pi it cannot steer (its version or API): the route stays off with `reason` until a
  // fresh wait (a new extension instance) clears it.
  void refuse(const std::string& attachment_id, std::string reason);
  void clear_refusal(const std::string& attachment_id);
  std::optional<std::string> refusal(const std::string& attachment_id) const;
  // The attachment ended: its wait is answered idle (a push in flight still gets its result or times out).
  void release(const std::string& attachment_id);
  void stop();

 private:
  using Clock = std::chrono::steady_clock;
  struct Wait {
    Clock::time_point deadline;
    Reply reply;
  };
  struct Pending {
    std::string attachment_id;
    Clock::time_point deadline;
    PushDone done;
  };
  void answer_idle(Wait& w);
  void finish(const std::string& push_id, PushResult result);
  void arm();
  void run_due();

  uv_timer_t* timer_;
  std::map<std::string, Wait> waits_;        // attachment id -> its parked wait
  std::map<std::string, Pending> pending_;   // push id -> the push waiting for the extension's result
  std::map<std::string, std::string> refusals_;  // attachment id -> why its Pi cannot be steered
  std::uint64_t next_push_ = 1;
};

}  // namespace agentworks::bridge::native
