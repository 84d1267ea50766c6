// The bridge's state on its one libuv loop: the offer journal, the server streams of the attachments, the HTTP
// client for one-off requests, the outbox and the timers. The socket server and the ops drive it; nothing here
// blocks the loop on the network. The flows below the hub see it only through the services/ interfaces it
// implements.
#pragma once

#include <uv.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "agentworks/sqlite.hpp"
#include "delivery/attachment_stream.hpp"
#include "delivery/channel_waiters.hpp"
#include "delivery/notify.hpp"
#include "delivery/outbox.hpp"
#include "platform/curl_multi.hpp"
#include "platform/heap_trim.hpp"
#include "platform/http_client.hpp"
#include "platform/turn_budget.hpp"
#include "serving/runner_supervisor.hpp"
#include "services/delivery_services.hpp"
#include "services/session_lookup.hpp"
#include "state/child_credentials.hpp"
#include "state/chat_turns.hpp"
#include "state/held_back.hpp"
#include "state/hook_state.hpp"
#include "state/journal.hpp"
#include "state/session_registry.hpp"

namespace agentworks::bridge {

namespace native {
class NativeRouter;
}

struct BridgeOptions {
  std::filesystem::path state_dir;  // journal.db, bridge.log, children/
  JournalLimits limits;
  StreamTuning stream;
  std::string version = "0.1.0";
};

class Bridge final : public DeliveryServices, public SessionLookup {
 public:
  Bridge(uv_loop_t* loop, BridgeOptions options);
  ~Bridge() override;
  Bridge(const Bridge&) = delete;
  Bridge& operator=(const Bridge&) = delete;

  // Opens the streams of every attached attachment and starts the periodic cleanup and the outbox.
  void start();
  // Stops streams, transfers and timers; then calls the shutdown hook (the socket server closes). Idempotent.
  void shutdown(int exit_code);
  void set_shutdown_hook(std::function<void(int exit_code)> hook) { shutdown_hook_ = std::move(hook); }
  // Invariant 10: an SQLite I/O, full-disk or corruption error stops delivery; the bridge exits non-zero.
  void fatal(const std::string& what);
  // The one way a caught journal error is handled (invariant 10); guard_journal() is JournalFaults'.
  bool journal_fatal(std::string_view where, const sql::SqliteError& e) override;
  void journal_error(std::string_view where, const sql::SqliteError& e) override;
  int exit_code() const { return exit_code_; }
  bool stopping() const override { return stopping_; }

  uv_loop_t* loop() const override { return loop_; }
  Journal& journal() override { return journal_; }
  HttpClient& http() override { return http_; }
  Outbox& outbox() { return outbox_; }
  const ChildCredentials& children() const { return children_; }
  SessionRegistry& registry() override { return registry_; }
  HookState& hook_state() { return hook_state_; }
  native::NativeRouter& native() { return *native_; }
  ChannelWaiters& channel_waiters() { return channel_waiters_; }
  const BridgeOptions& options() const { return options_; }
  // The runners of the Crews this computer serves (R-R1); empty before start().
  std::vector<RunnerState> runner_states() const { return runners_ ? runners_->states() : std::vector<RunnerState>{}; }
  static std::int64_t now();

  // The child token of an attachment's agent, if stored.
  std::optional<std::string> token_for(const AttachmentRow& row) const override;

  // Streams: at most one per attachment.
  void open_stream(const AttachmentRow& row);
  void close_stream(const std::string& attachment_id) override;
  std::string stream_state(const std::string& attachment_id) const;
  // Delivery for this attachment stops at once (fenced, revoked, unauthorised): state `fenced`, stream closed.
  void fence(const std::string& attachment_id, const std::string& reason) override;
  void end_native_route(const std::string& attachment_id) override;

  // Messages waiting on the server because the journal was full (R-B9).
  const HeldBack& held_back() const override { return held_; }
  ChatTurns& chat_turns() override { return chat_turns_; }
  // Something left the quota (an offer, a cleanup): on a later loop turn, every paused attachment with room again
  // reopens its stream from the watermark, so the server sends what was held back.
  void room_freed() override;

 private:
  void on_stream_messages(const std::string& attachment_id, const std::vector<StreamEvent>& events);
  void reap_streams();
  void resume_held();

  uv_loop_t* loop_;
  BridgeOptions options_;
  Journal journal_;
  CurlMulti multi_;
  TurnBudget stream_budget_;  // one received chunk cached per loop turn, across all streams
  HttpClient http_;
  ChildCredentials children_;
  Outbox outbox_;
  SessionRegistry registry_;
  HookState hook_state_;
  ChatTurns chat_turns_;
  std::map<std::string, std::unique_ptr<AttachmentStream>> streams_;
  std::map<std::string, std::unique_ptr<AttachmentStream>> retired_;  // freed on a later loop turn
  uv_timer_t* cleanup_timer_;
  uv_timer_t* reap_timer_;
  uv_timer_t* resume_timer_;
  HeapTrim heap_trim_;
  HeldBack held_;
  ChannelWaiters channel_waiters_;  // parked channel_take requests, resumed when their stream caches a message
  std::unique_ptr<native::NativeRouter> native_;  // Claude's session inbox, Codex's queue
  std::unique_ptr<WaitingWatch> waiting_;  // desktop notifications for messages left waiting (R-B15)
  std::unique_ptr<RunnerSupervisor> runners_;  // the runners of the Crews this computer serves (R-R1)
  std::function<void(int)> shutdown_hook_;
  bool stopping_ = false;
  int exit_code_ = 0;
};

}  // namespace agentworks::bridge
