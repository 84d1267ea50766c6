// The durable outbox (R-B2, invariant 3): acks, replies and sends made through the bridge are journaled with a
// submission id minted once before the first attempt, sent oldest first, and retried with backoff while the
// server is unreachable.
//
// Every accepted request is answered promptly and truthfully: "sent" or the server's refusal when
// its own item's attempt ends within kAnswerWaitMs; otherwise "queued" (journaled, retried until the server
// answers). While the outbox knows the server is unreachable a new item is answered "queued" at once, and a
// transient failure answers every caller still waiting, since the whole line now waits for the backoff.
#pragma once

#include <uv.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "platform/backoff.hpp"
#include "request/reply.hpp"

namespace agentworks::bridge {

class ServerCalls;

class Outbox {
 public:
  // How long a caller may wait for its own item's outcome before it is answered "queued"; far below the 30 s
  // the CLI and MCP tools wait for the bridge, so a server that hangs never turns into a client timeout.
  static constexpr std::uint64_t kAnswerWaitMs = 5000;

  explicit Outbox(ServerCalls& bridge);
  ~Outbox();
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  // Journals the request (kind: ack|reply|send) and answers `reply` as the header describes.
  void submit(const std::string& attachment_id, const std::string& kind, const std::string& path,
              const nlohmann::json& body, const std::string& submission_id, const Reply& reply);
  // Tries the oldest queued item now, even during a backoff (e.g. after a stream reconnected).
  void kick();
  void stop();
  std::int64_t queued();

 private:
  struct Waiter {
    Reply reply;
    std::string submission_id;
    std::uint64_t deadline_ms;  // uv_now() after which it is answered "queued"
  };

  void attempt_next();
  void schedule_retry();
  // Answers the waiter of `seq` (if any) with "queued" and `note`.
  void answer_queued(std::int64_t seq, const std::string& note);
  // Answers every waiter whose deadline has passed and re-arms the wait timer for the next one.
  void answer_overdue();
  void arm_wait_timer();

  ServerCalls& bridge_;
  uv_timer_t* retry_timer_;
  uv_timer_t* wait_timer_;
  std::map<std::int64_t, Waiter> waiting_;  // outbox seq -> caller still waiting for its item's outcome
  bool in_flight_ = false;
  bool unreachable_ = false;  // the last attempt could not reach the server; cleared when one does
  bool stopped_ = false;
  unsigned failures_ = 0;
  BackoffPolicy backoff_;
  JitterRng rng_;
};

}  // namespace agentworks::bridge
