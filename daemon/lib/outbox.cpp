#include "outbox.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/server_client.hpp"
#include "bridge.hpp"
#include "log.hpp"

namespace agentworks::bridge {

using nlohmann::json;

Outbox::Outbox(Bridge& bridge) : bridge_(bridge), retry_timer_(new uv_timer_t), rng_(std::random_device{}()) {
  uv_timer_init(bridge.loop(), retry_timer_);
  retry_timer_->data = this;
}

Outbox::~Outbox() { stop(); }

void Outbox::stop() {
  if (stopped_) return;
  stopped_ = true;
  uv_timer_stop(retry_timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(retry_timer_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  for (auto& [seq, reply] : waiting_) {
    reply.ok({{"queued", true}, {"state", "queued"}, {"note", "the bridge is stopping; it retries after a restart"}});
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
  const auto seq = bridge_.journal().outbox_add(item, Bridge::now());  // persisted before the first attempt
  waiting_.emplace(seq, reply);
  kick();
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

void Outbox::attempt_next() {
  if (stopped_ || bridge_.stopping()) return;
  std::vector<OutboxItem> items;
  try {
    items = bridge_.journal().outbox_queued(1);
  } catch (const sql::SqliteError& e) {
    if (e.fatal()) bridge_.fatal(std::string("journal failure in the outbox: ") + e.what());
    return;
  }
  if (items.empty()) {
    failures_ = 0;
    return;
  }
  const OutboxItem item = items.front();
  auto finish = [this, submission = item.submission_id](std::int64_t seq, const std::string& state,
                                                        const json& answer) {
    bridge_.journal().outbox_finish(seq, state, answer.dump(), Bridge::now());
    if (auto it = waiting_.find(seq); it != waiting_.end()) {
      const Reply reply = it->second;
      waiting_.erase(it);
      if (state == "done") {
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
    finish(item.seq, "failed",
           {{"error", {{"code", "not_found"}, {"message", "the attachment is gone; nothing was sent"}}}});
    attempt_next();
    return;
  }
  in_flight_ = true;
  const std::string url = join_url(row->server_url, item.path);
  bridge_.http().request(item.method, url, *token, item.body, [this, item, url, finish](const HttpResponse& r) {
    in_flight_ = false;
    if (stopped_) return;
    try {
      const bool transient = !r.reached() || r.status >= 500 || r.status == 408;
      if (transient) {
        const std::string why = r.reached() ? "HTTP " + std::to_string(r.status) : r.transport_error;
        bridge_.journal().outbox_attempted(item.seq, why);
        log::info("outbox " + item.kind + " " + item.submission_id + " waits: " + why);
        if (auto it = waiting_.find(item.seq); it != waiting_.end()) {
          it->second.ok({{"queued", true},
                         {"state", "queued"},
                         {"submission_id", item.submission_id},
                         {"note", "the server is unreachable (" + why + "); the bridge retries it, oldest first"}});
          waiting_.erase(it);
        }
        schedule_retry();
        return;
      }
      failures_ = 0;
      bridge_.journal().outbox_attempted(item.seq, "");
      json answer = json::parse(r.body, nullptr, false);
      if (answer.is_discarded()) answer = json::object();
      if (r.ok()) {
        log::info("outbox " + item.kind + " " + item.submission_id + " sent");
        finish(item.seq, "done", answer);
      } else {
        const Error e = error_from_response(r.status, r.body, url);
        finish(item.seq, "failed", {{"error", {{"code", std::string(code_name(e.code()))}, {"message", e.what()}}}});
        log::warn("outbox " + item.kind + " " + item.submission_id + " refused: " + e.what());
      }
    } catch (const sql::SqliteError& e) {
      if (e.fatal()) bridge_.fatal(std::string("journal failure in the outbox: ") + e.what());
      return;
    }
    attempt_next();
  });
}

}  // namespace agentworks::bridge
