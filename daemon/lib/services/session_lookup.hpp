// What resolving the session of a request needs from the bridge: the journal's attachments and the in-memory
// registrations of the provider processes. The hub implements it.
#pragma once

namespace agentworks::bridge {

class Journal;
class SessionRegistry;

class SessionLookup {
 public:
  virtual ~SessionLookup() = default;
  virtual Journal& journal() = 0;
  virtual SessionRegistry& registry() = 0;
};

}  // namespace agentworks::bridge
