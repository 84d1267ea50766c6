// The answer to one local-socket request. Sent exactly once, possibly later (after a server round trip);
// copies share the state, so the dispatcher can still answer when a handler throws after keeping a copy.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/error.hpp"

namespace agentworks::bridge {

class Reply {
 public:
  using Sink = std::function<void(std::string line)>;  // receives one compact JSON line ending in "\n"
  // Told once whether the line was written whole to the client (false: the client went away first).
  using Written = std::function<void(bool written)>;
  // A sink that reports when its line was written (the socket server's); `written` may be empty.
  using Transport = std::function<void(std::string line, Written written)>;
  // Whether the client still holds its connection: a parked answer (channel_take's long poll) is not handed to a
  // client that has gone, so nothing is offered to nobody.
  using Connected = std::function<bool()>;

  // A plain sink (in-process callers): a line handed to it counts as written.
  Reply(std::shared_ptr<const nlohmann::json> id, Sink sink);
  Reply(std::shared_ptr<const nlohmann::json> id, Transport transport, Connected connected = nullptr);

  // {"id":N,"ok":true, ...fields}; `fields` must be an object (or null for none).
  void ok(const nlohmann::json& fields) const;
  // The same, and `written` learns whether the answer reached the client's socket (R-B6: an offer is
  // confirmed only then). Called exactly once, maybe later; false also when the answer was already sent.
  void ok(const nlohmann::json& fields, Written written) const;
  // {"id":N,"error":{"code","message"}}
  void error(ErrorCode code, const std::string& message) const;
  bool sent() const { return state_->sent; }
  // False once the client is known to have gone; true when its transport cannot tell.
  bool connected() const { return !state_->connected || state_->connected(); }
  // A Reply with the same id for an inner op whose success continues in `on_ok` (which must answer this Reply,
  // now or later); an inner error is passed on unchanged. A throw from `on_ok` becomes an error answer.
  Reply then(std::function<void(const nlohmann::json& fields)> on_ok) const;
  // `seen` is told the answer as it is sent: its fields, or nullptr for an error. It must not throw. One per Reply.
  void observe(std::function<void(const nlohmann::json* fields)> seen) const { state_->observer = std::move(seen); }

 private:
  struct State {
    std::shared_ptr<const nlohmann::json> id;
    Transport sink;
    Connected connected;
    std::function<void(const nlohmann::json* fields)> observer;
    bool sent = false;
  };
  std::shared_ptr<State> state_;
};

// The error line for a request whose id is unknown or unusable ("id": null).
std::string error_line(const nlohmann::json& id, ErrorCode code, const std::string& message);

}  // namespace agentworks::bridge
