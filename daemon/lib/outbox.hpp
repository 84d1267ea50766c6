// The durable outbox (R-B2, invariant 3): acks, replies and sends made through the bridge are journaled with a
// submission id minted once before the first attempt, sent oldest first, and retried with backoff while the
// server is unreachable. The caller is answered after the first attempt: the server's answer, or "queued".
#pragma once

#include <uv.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "backoff.hpp"
#include "reply.hpp"

namespace agentworks::bridge {

class Bridge;

class Outbox {
 public:
  explicit Outbox(Bridge& bridge);
  ~Outbox();
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  // Journals the request (kind: ack|reply|send) and tries it now; `reply` gets the outcome of the first attempt.
  void submit(const std::string& attachment_id, const std::string& kind, const std::string& path,
              const nlohmann::json& body, const std::string& submission_id, const Reply& reply);
  // Tries the oldest queued item now (e.g. after a stream reconnected).
  void kick();
  void stop();
  std::int64_t queued();

 private:
  void attempt_next();
  void schedule_retry();

  Bridge& bridge_;
  uv_timer_t* retry_timer_;
  std::map<std::int64_t, Reply> waiting_;  // outbox seq -> caller still waiting for the first attempt
  bool in_flight_ = false;
  bool stopped_ = false;
  unsigned failures_ = 0;
  BackoffPolicy backoff_;
  std::mt19937_64 rng_;
};

}  // namespace agentworks::bridge
