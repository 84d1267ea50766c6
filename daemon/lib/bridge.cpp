#include "bridge.hpp"

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "agentworks/paths.hpp"
#include "native/native_router.hpp"
#include "platform/log.hpp"
#include "services/clock.hpp"
#include "platform/uv_handle.hpp"

namespace agentworks::bridge {
namespace {

constexpr std::uint64_t kCleanupIntervalMs = 3600 * 1000;


// "m42" -> 42; anything else -> 0 (not a mailbox cursor).
std::int64_t mailbox_seq(const std::string& cursor) {
  if (cursor.size() < 2 || cursor[0] != 'm') return 0;
  std::int64_t v = 0;
  for (std::size_t i = 1; i < cursor.size(); ++i) {
    const char c = cursor[i];
    if (c < '0' || c > '9' || v > (INT64_MAX - 9) / 10) return 0;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

Bridge::Bridge(uv_loop_t* loop, BridgeOptions options)
    : loop_(loop),
      options_(std::move(options)),
      journal_((options_.state_dir / "journal.db").string(), options_.limits),
      multi_(loop),
      stream_budget_(loop),
      http_(multi_),
      children_(options_.state_dir / "children"),
      outbox_(*this),
      cleanup_timer_(open_timer(loop, this)),
      reap_timer_(open_timer(loop, this)),
      resume_timer_(open_timer(loop, this)),
      heap_trim_(loop),
      channel_waiters_(loop),
      native_(std::make_unique<native::NativeRouter>(*this, outbox_)) {}

Bridge::~Bridge() { shutdown(exit_code_); }

std::int64_t Bridge::now() { return unix_now(); }

void Bridge::start() {
  // R-B6: offers the last bridge was handing out when it died may not have reached their chat; the next delivery
  // to each chat lists them. Marked before the cleanup, which keeps such notices (only the person clears them).
  if (const auto unsure = journal_.unsettled_offers_unsure(); unsure > 0) {
    log::warn(std::to_string(unsure) + " offered messages were being handed out when the bridge last stopped; "
              "the next delivery to their chats lists them as possibly not arrived");
  }
  const auto removed = journal_.cleanup(now(), CleanupScope::automatic);
  if (removed.processed_removed + removed.offered_removed > 0) {
    log::info("cleanup: removed " + std::to_string(removed.processed_removed) + " processed and " +
              std::to_string(removed.offered_removed) + " old offered messages");
  }
  for (const auto& row : journal_.attachments()) {
    if (row.state != AttachmentState::attached) continue;
    open_stream(row);
    native_->refresh(row.attachment_id);  // binds again when the bound provider process still runs
  }
  uv_timer_start(
      cleanup_timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<Bridge*>(t->data);
        self->guard_journal("during cleanup", [self] { self->journal_.cleanup(now(), CleanupScope::automatic); });
      },
      kCleanupIntervalMs, kCleanupIntervalMs);
  outbox_.kick();
  heap_trim_.start();
  // R-R1: a Crew this computer serves is served while its bridge runs.
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  runners_ = std::make_unique<RunnerSupervisor>(loop_, find_cli_beside(ec ? "." : self.parent_path().string()),
                                                paths::served_crews_dir(), paths::state_dir());
  runners_->start();
  waiting_ = std::make_unique<WaitingWatch>(loop_, [this]() {
    std::vector<WaitSample> samples;
    for (const auto& row : journal_.attachments()) {
      if (row.state != AttachmentState::attached) continue;
      samples.push_back({row.attachment_id, row.agent_name, journal_.counts(row.attachment_id).pending > 0});
    }
    return samples;
  });
  waiting_->start();
}

void Bridge::shutdown(int exit_code) {
  if (exit_code != 0) exit_code_ = exit_code;
  if (cleanup_timer_ == nullptr) return;  // already shut down
  stopping_ = true;
  for (auto& [id, stream] : streams_) stream->stop();
  streams_.clear();
  retired_.clear();
  outbox_.stop();
  native_->stop();
  channel_waiters_.stop();
  if (waiting_) waiting_->stop();
  if (runners_) runners_->stop();
  multi_.close();
  stream_budget_.close();
  heap_trim_.stop();
  close_timer(cleanup_timer_);
  close_timer(reap_timer_);
  close_timer(resume_timer_);
  log::info("bridge stopping (exit code " + std::to_string(exit_code_) + ")");
  if (shutdown_hook_) {
    auto hook = std::move(shutdown_hook_);
    shutdown_hook_ = nullptr;
    hook(exit_code_);
  }
}

void Bridge::fatal(const std::string& what) {
  log::error("FATAL: " + what + "; delivery stopped, the bridge exits. Check the disk and " +
             (options_.state_dir / "journal.db").string());
  log::flush();
  exit_code_ = 1;
  stopping_ = true;
  // Never tear down transfers from inside a curl callback: finish on the next loop turn.
  uv_timer_start(
      open_timer(loop_, this),
      [](uv_timer_t* timer) {
        auto* self = static_cast<Bridge*>(timer->data);
        close_timer(timer);
        self->shutdown(1);
      },
      0, 0);
}

namespace {

std::string journal_words(const char* what, std::string_view where, const sql::SqliteError& e) {
  std::string out = what;
  if (!where.empty()) out.append(" ").append(where);
  return out + ": " + e.what();
}

}  // namespace

bool Bridge::journal_fatal(std::string_view where, const sql::SqliteError& e) {
  if (!e.fatal()) return false;
  fatal(journal_words("journal failure", where, e));
  return true;
}

void Bridge::journal_error(std::string_view where, const sql::SqliteError& e) {
  if (!journal_fatal(where, e)) log::error(journal_words("journal error", where, e));
}

std::optional<std::string> Bridge::token_for(const AttachmentRow& row) const {
  const auto c = children_.load(row.server_url, row.agent_name);
  if (!c) return std::nullopt;
  return c->token;
}

void Bridge::open_stream(const AttachmentRow& row) {
  if (stopping_) return;
  close_stream(row.attachment_id);
  const auto token = token_for(row);
  if (!token) {
    log::warn("attachment " + row.attachment_id + " (" + row.agent_name +
              ") has no stored child credential; delivery stays off until it is attached again");
    return;
  }
  const std::string id = row.attachment_id;
  const std::string server = row.server_url;
  const std::string agent = row.agent_name;
  StreamCallbacks cb;
  cb.resume_cursor = [this, server, agent]() {
    const auto mark = journal_.watermark(server, agent);
    return mark > 0 ? "m" + std::to_string(mark) : std::string();
  };
  cb.on_messages = [this, id](const std::vector<StreamEvent>& events) { on_stream_messages(id, events); };
  cb.on_stopped = [this, id](const std::string& reason) { fence(id, reason); };
  cb.on_connected = [this, id, agent]() {
    log::info("stream connected: " + agent + " (" + id + ")");
    outbox_.kick();
  };
  held_.resume(id);  // a new stream starts at the watermark: what was held back comes again
  auto stream = std::make_unique<AttachmentStream>(loop_, multi_, stream_budget_,
                                                   join_url(server, "/v1/attachments/" + id + "/stream"), *token,
                                                   std::move(cb), options_.stream);
  stream->start();
  streams_[id] = std::move(stream);
}

void Bridge::close_stream(const std::string& attachment_id) {
  channel_waiters_.wake(attachment_id);  // a detach or fence answers them now; a reopen parks them again
  auto it = streams_.find(attachment_id);
  if (it == streams_.end()) return;
  it->second->stop();
  // The stream may be the caller (its own on_stopped); free it on a later loop turn.
  retired_[attachment_id + "#" + std::to_string(retired_.size())] = std::move(it->second);
  streams_.erase(it);
  if (reap_timer_ != nullptr) {
    uv_timer_start(reap_timer_, [](uv_timer_t* t) { static_cast<Bridge*>(t->data)->reap_streams(); }, 0, 0);
  }
}

void Bridge::reap_streams() { retired_.clear(); }

void Bridge::room_freed() {
  if (resume_timer_ == nullptr || held_.paused_attachments().empty()) return;
  // Not from inside whatever freed the room (possibly a curl callback): on the next loop turn.
  uv_timer_start(resume_timer_, [](uv_timer_t* t) { static_cast<Bridge*>(t->data)->resume_held(); }, 0, 0);
}

void Bridge::resume_held() {
  if (stopping_) return;
  guard_journal("while resuming held-back messages", [this] {
    // Hysteresis: a tenth of the quota must be free, so a large backlog is not fetched again for every message.
    const auto& limits = journal_.limits();
    const auto slots = std::max<std::int64_t>(1, limits.max_messages_per_session / 10);
    const auto bytes = std::max<std::int64_t>(1, limits.max_total_body_bytes / 10);
    if (journal_.free_body_bytes() < bytes) return;
    for (const auto& id : held_.paused_attachments()) {
      const auto row = journal_.attachment(id);
      if (!row || row->state != AttachmentState::attached) continue;
      if (journal_.free_slots(id) < slots) continue;
      log::info("journal room again for " + row->agent_name + " (" + id + "): fetching the " +
                std::to_string(held_.count(id)) + " held-back messages from the server");
      open_stream(*row);
    }
  });
}

void Bridge::end_native_route(const std::string& attachment_id) { native_->forget(attachment_id); }

std::string Bridge::stream_state(const std::string& attachment_id) const {
  const auto it = streams_.find(attachment_id);
  return it == streams_.end() ? "stopped" : it->second->state();
}

void Bridge::fence(const std::string& attachment_id, const std::string& reason) {
  log::warn("attachment " + attachment_id + " stopped: " + reason + "; no further deliveries");
  guard_journal("while fencing", [&] {
    const auto row = journal_.attachment(attachment_id);
    if (row && row->state != AttachmentState::fenced && reason == "fenced:superseded") {
      // R-H7: another chat took the name. Its turn end and status tell the losing chat (the taking attach
      // on this bridge records who took it); the person also gets a desktop notice naming the agent (R-B15).
      journal_.record_name_loss(attachment_id, "", now());
      DesktopNotifier(loop_).notify(waiting_title(), name_moved_text(row->agent_name));
    }
    journal_.set_attachment_state(attachment_id, AttachmentState::fenced);
    native_->forget(attachment_id);
  });
  close_stream(attachment_id);
}

void Bridge::on_stream_messages(const std::string& attachment_id, const std::vector<StreamEvent>& events) {
  if (stopping_) return;
  std::vector<IncomingMessage> batch;
  batch.reserve(events.size());
  for (const auto& event : events) {
    const auto j = nlohmann::json::parse(event.data, nullptr, false);
    if (!j.is_object() || !j.contains("message_id") || !j["message_id"].is_string()) {
      log::warn("stream " + attachment_id + ": ignoring an event that is not a Message object");
      continue;
    }
    IncomingMessage msg;
    msg.message_id = j["message_id"].get<std::string>();
    std::string cursor = event.id;
    if (j.contains("cursor") && j["cursor"].is_string()) cursor = j["cursor"].get<std::string>();
    msg.seq = mailbox_seq(cursor);
    if (msg.seq <= 0) {
      log::warn("stream " + attachment_id + ": message " + msg.message_id + " without a mailbox cursor, ignored");
      continue;
    }
    if (j.contains("delivery") && j["delivery"].is_object()) {
      const auto state = j["delivery"].value("state", "stored");
      msg.acknowledged = state == "admitted" || state == "processed";
    }
    if (j.value("kind", std::string("message")) == "message" && j.contains("inbox_id") && j["inbox_id"].is_string())
      msg.inbox_id = j["inbox_id"].get<std::string>();
    msg.body = event.data;
    batch.push_back(std::move(msg));
  }
  if (batch.empty()) return;
  guard_journal("while receiving", [&] {
    const auto row = journal_.attachment(attachment_id);
    if (!row || row->state != AttachmentState::attached) return;
    if (held_.paused(attachment_id)) {
      // R-B9: the journal is full for this attachment; nothing is journaled and the watermark stays,
      // so these come again when the stream is reopened with room.
      for (const auto& msg : batch) held_.dropped(attachment_id, msg.seq);
      return;
    }
    const bool was_held = held_.count(attachment_id) > 0;
    const auto results = journal_.record_received_batch(*row, batch, now());
    if (std::find(results.begin(), results.end(), ReceiveResult::cached) != results.end()) {
      native_->kick(attachment_id);
      channel_waiters_.wake(attachment_id);
    }
    for (std::size_t i = 0; i < results.size(); ++i) held_.received(attachment_id, batch[i].seq, results[i]);
    if (held_.paused(attachment_id) && !was_held) {
      log::warn("journal quota reached for " + row->agent_name + " (" + attachment_id +
                "): further messages wait on the server and are fetched again once delivered ones free room; "
                "`agentworks status --agents` shows how many");
    }
  });
}

}  // namespace agentworks::bridge
