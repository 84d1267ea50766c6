// The outcome of one native push (Claude's session inbox, Codex's queue). The router decides what happens to the
// offered messages from it: accepted stays offered, refused returns them to pending for the Stop hook, ambiguous
// keeps them offered and tells the person (never a retry: neither CLI de-duplicates).
#pragma once

#include <functional>
#include <string>

namespace agentworks::bridge::native {

enum class PushOutcome {
  accepted,   // Claude: frames written, write side shut, peer closed cleanly; Codex: `codex queue` exited 0
  refused,    // a definite failure before anything was written or queued
  ambiguous,  // anything else: it may or may not have arrived
};

struct PushResult {
  PushOutcome outcome = PushOutcome::ambiguous;
  std::string detail;  // one line for the log and status
};

// Called exactly once, on the loop thread.
using PushDone = std::function<void(PushResult)>;

}  // namespace agentworks::bridge::native
