#include "delivery/outbox.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/server_client.hpp"
#include "platform/http_client.hpp"
#include "platform/log.hpp"
#include "services/clock.hpp"
#include "services/server_calls.hpp"
#include "state/journal.hpp"
#include "platform/uv_handle.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {


}  // namespace

Outbox::Outbox(ServerCalls& bridge)
    : bridge_(bridge),
      retry_timer_(open_timer(bridge.loop(), this)),
      wait_timer_(open_timer(bridge.loop(), this)),
      rng_(std::random_device{}()) {}

Outbox::~Outbox() { stop(); }

void Outbox::stop() {
  if (stopped_) return;
  stopped_ = true;
  close_timer(retry_timer_);
  close_timer(wait_timer_);
  for (auto& [seq, waiter] : waiting_) {
    waiter.reply.ok({{"queued", true},
                     {"state", "queued"},
                     {"submission_id", waiter.submission_id},
                     {"note", "the bridge is stopping; it retries after a restart"}});
  }
  waiting_.clear();
}

std::int64_t Outbox::queued() {
  sql::Stmt s(bridge_.journal().db(), "SELECT count(*) FROM outbox WHERE state = 'queued'");
  return s.step() ? s.int64(0) : 0;
}

void Outbox::submit(const std::string& attachment_id, const std::string& kind, const std::string& path,
                    const json& body, const std::string& submission_id, const Reply& reply) {
  OutboxItem item;
  item.submission_id = submission_id;
  item.attachment_id = attachment_id;
  item.kind = kind;
  item.method = "POST";
  item.path = path;
  item.body = body.dump();
  const auto seq = bridge_.journal().outbox_add(item, unix_now());  // persisted before any answer or attempt
  if (unreachable_ || stopped_) {
    // The line is waiting for the backoff (or a restart): nothing would tell this caller more by waiting.
    reply.ok({{"queued", true},
              {"state", "queued"},
              {"submission_id", submission_id},
              {"note", "the server could not be reached at the last attempt; the bridge retries it, oldest first"}});
    if (!stopped_ && !in_flight_ && !uv_is_active(reinterpret_cast<uv_handle_t*>(retry_timer_))) schedule_retry();
    return;
  }
  waiting_.emplace(seq, Waiter{reply, submission_id, uv_now(bridge_.loop()) + kAnswerWaitMs});
  arm_wait_timer();
  if (!in_flight_) attempt_next();  // else the attempt in flight goes on to this item when it ends
}

void Outbox::kick() {
  if (stopped_ || in_flight_) return;
  uv_timer_stop(retry_timer_);
  attempt_next();
}

void Outbox::schedule_retry() {
  const auto delay = backoff_delay_ms(backoff_, failures_, rng_);
  if (failures_ < 16) ++failures_;
  log::info("outbox retry in " + std::to_string(delay + 50) + " ms");
  uv_timer_start(retry_timer_, [](uv_timer_t* t) { static_cast<Outbox*>(t->data)->kick(); }, delay + 50, 0);
}

void Outbox::answer_queued(std::int64_t seq, const std::string& note) {
  const auto it = waiting_.find(seq);
  if (it == waiting_.end()) return;
  const Waiter waiter = it->second;
  waiting_.erase(it);
  waiter.reply.ok({{"queued", true}, {"state", "queued"}, {"submission_id", waiter.submission_id}, {"note", note}});
}

void Outbox::arm_wait_timer() {
  if (stopped_ || waiting_.empty() || uv_is_active(reinterpret_cast<uv_handle_t*>(wait_timer_))) return;
  // Deadlines grow with seq (both are taken at submit), so the first waiter is always the next one due.
  const auto now = uv_now(bridge_.loop());
  const auto due = waiting_.begin()->second.deadline_ms;
  uv_timer_start(wait_timer_, [](uv_timer_t* t) { static_cast<Outbox*>(t->data)->answer_overdue(); },
                 due > now ? due - now : 0, 0);
}

void Outbox::answer_overdue() {
  const auto now = uv_now(bridge_.loop());
  while (!waiting_.empty() && waiting_.begin()->second.deadline_ms <= now) {
    answer_queued(waiting_.begin()->first,
                  "the server has not answered yet (earlier items go first); the bridge sends it, oldest first");
  }
  arm_wait_timer();
}

void Outbox::attempt_next() {
  if (stopped_ || bridge_.stopping()) return;
  std::vector<OutboxItem> items;
  if (!bridge_.guard_journal("in the outbox", [&] { items = bridge_.journal().outbox_queued(1); })) return;
  if (items.empty()) {
    failures_ = 0;
    unreachable_ = false;  // nothing waits for a retry, so the next item is tried (and answered) at once
    return;
  }
  const OutboxItem item = items.front();
  auto finish = [this, submission = item.submission_id](std::int64_t seq, OutboxState state,
                                                        const json& answer) {
    bridge_.journal().outbox_finish(seq, state, answer.dump(), unix_now());
    if (auto it = waiting_.find(seq); it != waiting_.end()) {
      const Reply reply = it->second.reply;
      waiting_.erase(it);
      if (state == OutboxState::done) {
        reply.ok({{"state", "sent"}, {"submission_id", submission}, {"answer", answer}});
      } else {
        const auto& err = answer.contains("error") ? answer["error"] : json::object();
        const auto code = parse_code(err.value("code", "internal")).value_or(ErrorCode::internal);
        reply.error(code, err.value("message", "the server refused the request"));
      }
    }
  };
  const auto row = bridge_.journal().attachment(item.attachment_id);
  const auto token = row ? bridge_.token_for(*row) : std::nullopt;
  if (!row || !token) {
    finish(item.seq, OutboxState::failed,
           {{"error", {{"code", "not_found"}, {"message", "the attachment is gone; nothing was sent"}}}});
    attempt_next();
    return;
  }
  in_flight_ = true;
  const std::string url = join_url(row->server_url, item.path);
  bridge_.http().request(item.method, url, *token, item.body, [this, item, url, finish](const HttpResponse& r) {
    in_flight_ = false;
    if (stopped_) return;
    bool retrying = false;
    const bool journaled = bridge_.guard_journal("in the outbox", [&] {
      // A Crew at its limit answers a call `busy`: an answer, not an outage (calls are never queued, R-F2).
      const bool busy_crew = item.kind == "call" && r.reached() && r.status == 503 &&
                             error_from_response(r.status, r.body, url).code() == ErrorCode::busy;
      const bool transient = !busy_crew && (!r.reached() || r.status >= 500 || r.status == 408);
      if (transient) {
        const std::string why = r.reached() ? "HTTP " + std::to_string(r.status) : r.transport_error;
        bridge_.journal().outbox_attempted(item.seq, why);
        log::info("outbox " + item.kind + " " + item.submission_id + " waits: " + why);
        // Every item waits behind this one until the backoff ends: tell all their callers now.
        unreachable_ = true;
        const std::string note = "the server is unreachable (" + why + "); the bridge retries it, oldest first";
        while (!waiting_.empty()) answer_queued(waiting_.begin()->first, note);
        schedule_retry();
        retrying = true;
        return;
      }
      unreachable_ = false;
      failures_ = 0;
      bridge_.journal().outbox_attempted(item.seq, "");
      json answer = json::parse(r.body, nullptr, false);
      if (answer.is_discarded()) answer = json::object();
      if (r.ok()) {
        log::info("outbox " + item.kind + " " + item.submission_id + " sent");
        finish(item.seq, OutboxState::done, answer);
      } else {
        const Error e = error_from_response(r.status, r.body, url);
        finish(item.seq, OutboxState::failed,
               {{"error", {{"code", std::string(code_name(e.code()))}, {"message", e.what()}}}});
        log::warn("outbox " + item.kind + " " + item.submission_id + " refused: " + e.what());
      }
    });
    if (!journaled || retrying) return;
    attempt_next();
  });
}

}  // namespace agentworks::bridge
