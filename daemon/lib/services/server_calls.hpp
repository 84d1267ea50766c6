// What a flow that asks the server as an agent needs from the bridge: the loop it runs on, whether the bridge is
// stopping, the journal, the HTTP client, the agents' child tokens and journal fault handling. The server call,
// the outbox, reply targets, waiting counts and the name holder take this; the hub implements it.
#pragma once

#include <uv.h>

#include <optional>
#include <string>

#include "services/journal_faults.hpp"

namespace agentworks::bridge {

class HttpClient;
class Journal;
struct AttachmentRow;

class ServerCalls : public JournalFaults {
 public:
  virtual uv_loop_t* loop() const = 0;
  // Shutting down (or stopped by a fatal error): no new work is started.
  virtual bool stopping() const = 0;
  virtual Journal& journal() = 0;
  virtual HttpClient& http() = 0;
  // The child token of an attachment's agent, if stored.
  virtual std::optional<std::string> token_for(const AttachmentRow& row) const = 0;
};

}  // namespace agentworks::bridge
