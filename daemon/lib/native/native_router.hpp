// Native push (R-N1..R-N4): waiting messages go straight into an attached chat through the
// provider's own route (Claude Code's session inbox, Codex's queue) instead of waiting for the next Stop hook.
// One route per attachment, bound to the exact provider process that runs the session (pid + start time) and
// re-bound on attach, resume, the session's next hook event and bridge start; never chosen by name or recency.
// A push follows the one offer order (release check -> offer persisted -> text -> push); its outcome decides
// what happens to the offered messages (push_result.hpp). When a route is off the Stop hook keeps delivering and
// `view` says why.
#pragma once

#include <uv.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/process_ancestry.hpp"
#include "delivery/delivery_text.hpp"
#include "delivery/notify.hpp"
#include "delivery/offer_flow.hpp"
#include "native/pi_steer.hpp"
#include "request/request_fields.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

class DeliveryServices;
class Outbox;

namespace native {

struct PushResult;
struct PushState;

// What status shows for one attachment.
struct RouteView {
  std::string route;   // claude-inbox | codex-queue | stop-hook
  bool native = false;  // the native route is bound and verified
  bool checking = false;  // Codex: the installed CLI is being checked
  std::string reason;  // why it is not (empty when native)
  std::string last;    // the last push's outcome, one line ("" before the first)
};

// {"route","native","reason","last"} for the status answers (docs/protocol.md).
nlohmann::json route_json(const RouteView& v);
// One sentence for the person: how `subject` ("Messages to agent:NAME") reach this chat now.
std::string route_sentence(const RouteView& v, const std::string& subject);

// The person's per-attachment choices and what the provider's hooks reported, stored in the journal.
struct NativeSettings {
  bool enabled = true;     // attach --no-native turns it off
  std::string remote;      // Codex: unix:///ABSOLUTE/SOCKET of a separate app-server ("" = none)
  std::string home;        // CLAUDE_CONFIG_DIR / CODEX_HOME as the provider process saw it ("" = default)
};
NativeSettings parse_settings(const std::string& json_text);
std::string settings_json(const NativeSettings& s);

class NativeRouter {
 public:
  // `outbox` carries the acks of messages a Codex queue admitted.
  NativeRouter(DeliveryServices& bridge, Outbox& outbox);
  ~NativeRouter();
  NativeRouter(const NativeRouter&) = delete;
  NativeRouter& operator=(const NativeRouter&) = delete;

  // A hook event of exactly this session from this provider process: a new process of an attached session
  // becomes the bound one; a changed provider home is remembered.
  void observe(const SessionKey& key, const std::optional<process::ProcessKey>& process,
               const std::optional<std::string>& home);
  // (Re)binds the route of an attachment from the journal (attach, resume, bridge start).
  void refresh(const std::string& attachment_id);
  // Messages were cached for the attachment: push them soon when its route is on.
  void kick(const std::string& attachment_id);
  // Offline, detach, fence: the route ends (a push in flight still settles its messages).
  void forget(const std::string& attachment_id);
  RouteView view(const std::string& attachment_id) const;
  void stop();

  // Pi (pi_steer.hpp): the extension of this attachment parked a wait; `fresh` (a new extension instance) clears a
  // refusal. Binds the route when it was off, pushes what waits.
  void pi_waiting(const std::string& attachment_id, std::chrono::milliseconds wait, Reply reply, bool fresh);
  // The extension cannot steer this Pi (`reason`): the route is off and the turn-end delivery takes over (R-N3).
  void pi_refused(const std::string& attachment_id, std::string reason);
  // The extension's result of a push; false when nothing waits for it.
  bool pi_result(const std::string& attachment_id, const std::string& push_id, const PushResult& result);

 private:
  struct Route;
  Route* find(const std::string& attachment_id);
  void bind(Route& r);
  void turn_off(Route& r, std::string reason);
  // Codex: finds the TUI that shows the chat and watches it; its end takes the attachment offline.
  void watch_codex_tui(Route& r);
  void tui_ended(const std::string& attachment_id, std::uint64_t generation);
  void schedule(Route& r, std::chrono::milliseconds delay);
  void arm_timer();
  void on_timer();
  void start_push(Route& r);
  void offer_done(const std::shared_ptr<PushState>& st, const DeliveryNotices& notices, OfferOutcome outcome);
  void push_offered(const std::shared_ptr<PushState>& st, const DeliveryNotices& notices,
                    const OfferOutcome& outcome);
  void settle(const PushState& st, const std::vector<CachedMessage>& included, bool guidance,
              std::optional<std::int64_t> previous_guidance, const PushResult& result);
  void record_queue_admission(const PushState& st, const std::vector<CachedMessage>& included);
  void finished(const std::string& attachment_id);

  DeliveryServices& bridge_;
  Outbox& outbox_;
  DesktopNotifier notifier_;
  std::map<std::string, std::unique_ptr<Route>> routes_;
  PiSteer pi_steer_;
  uv_timer_t* timer_ = nullptr;
  std::uint64_t next_generation_ = 1;
  bool stopped_ = false;
};

}  // namespace native
}  // namespace agentworks::bridge
