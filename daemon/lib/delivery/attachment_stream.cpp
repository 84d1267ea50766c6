#include "delivery/attachment_stream.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/server_trust.hpp"
#include "platform/log.hpp"
#include "platform/login_trust.hpp"
#include "platform/uv_handle.hpp"

namespace agentworks::bridge {
namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;

std::string reason_for_status(long status, const std::string& body) {
  if (status == 401) return "unauthenticated";
  if (status == 403) return "forbidden";
  if (status == 404) return "not_found";
  if (status == 409) {
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("error") && j["error"].is_object() && j["error"].value("code", "") == "fenced") {
      return "fenced";
    }
  }
  return {};
}

}  // namespace

AttachmentStream::AttachmentStream(uv_loop_t* loop, CurlMulti& multi, TurnBudget& budget, std::string url,
                                   std::string token, StreamCallbacks callbacks, StreamTuning tuning)
    : loop_(loop),
      multi_(multi),
      budget_(budget),
      url_(std::move(url)),
      token_(std::move(token)),
      cb_(std::move(callbacks)),
      tuning_(tuning),
      parser_([this](const SseEvent& e) { handle_event(e); }),
      rng_(std::random_device{}()),
      watchdog_(open_timer(loop, this)),
      retry_(open_timer(loop, this)) {}

AttachmentStream::~AttachmentStream() {
  stop();
  close_timer(watchdog_);
  close_timer(retry_);
}

const char* AttachmentStream::state() const {
  switch (state_) {
    case State::connected:
      return "connected";
    case State::connecting:
    case State::idle:
      return reconnects_ == 0 ? "connecting" : "reconnecting";
    case State::waiting:
      return "reconnecting";
    case State::stopped:
      return "stopped";
  }
  return "stopped";
}

void AttachmentStream::start() {
  if (state_ != State::idle) return;
  connect();
}

void AttachmentStream::stop() {
  if (state_ == State::stopped) return;
  state_ = State::stopped;
  uv_timer_stop(watchdog_);
  uv_timer_stop(retry_);
  drop_pause();
  if (easy_ != nullptr) multi_.remove(easy_);
  cleanup_easy();
}

void AttachmentStream::cleanup_easy() {
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
  easy_ = nullptr;
  curl_slist_free_all(headers_);
  headers_ = nullptr;
}

void AttachmentStream::connect() {
  state_ = State::connecting;
  http_status_ = 0;
  error_body_.clear();
  stop_reason_.clear();
  watchdog_fired_ = false;
  parser_.finish();
  easy_ = curl_easy_init();
  headers_ = curl_slist_append(headers_, ("Authorization: Bearer " + token_).c_str());
  headers_ = curl_slist_append(headers_, "Accept: text/event-stream");
  const std::string cursor = cb_.resume_cursor ? cb_.resume_cursor() : std::string();
  if (!cursor.empty()) headers_ = curl_slist_append(headers_, ("Last-Event-ID: " + cursor).c_str());
  curl_easy_setopt(easy_, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers_);
  curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS, 10000L);  // no CURLOPT_TIMEOUT: streams are long-lived
  curl_easy_setopt(easy_, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy_, CURLOPT_PROTOCOLS_STR, "http,https");
  apply_server_trust(easy_, ca_file_for(url_));
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, curl_error_);
  curl_error_[0] = '\0';
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &AttachmentStream::on_write);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, this);
  // A chunk is one journal commit and one loop turn (turn_budget.hpp): ~30-60 messages of a catch-up, small enough
  // that a socket request waiting behind one is answered within milliseconds. The receive buffer is resident for
  // as long as the stream is open, idle or not: 16 KiB (curl's default) keeps 100 idle chats near 20 MiB where
  // 64 KiB cost 4.6 MiB more; a catch-up pays with more, smaller commits (docs/benchmarks.md, "Idle RSS").
  curl_easy_setopt(easy_, CURLOPT_BUFFERSIZE, 16L * 1024L);
  arm_watchdog();
  multi_.add(easy_, [this](CURLcode result) { on_done(result); });
}

size_t AttachmentStream::on_write(char* data, size_t size, size_t count, void* userp) {
  auto* self = static_cast<AttachmentStream*>(userp);
  const size_t n = size * count;
  if (self->state_ == State::stopped) return 0;
  if (self->http_status_ == 0) curl_easy_getinfo(self->easy_, CURLINFO_RESPONSE_CODE, &self->http_status_);
  self->arm_watchdog();
  if (self->http_status_ != 200) {
    if (self->error_body_.size() + n <= kMaxErrorBody) self->error_body_.append(data, n);
    return n;
  }
  if (!self->budget_.try_take()) {
    // Curl keeps these bytes and hands them over again once resumed.
    self->paused_ = true;
    self->budget_.wait(self, [self] { self->resume_paused(); });
    return CURL_WRITEFUNC_PAUSE;
  }
  const bool parsed = self->parser_.feed(std::string_view(data, n));
  self->flush_batch();  // events before a parse error or a fence are still stored
  if (!parsed) return 0;                       // malformed stream: drop and reconnect
  if (!self->stop_reason_.empty()) return 0;   // fenced: end the transfer now
  return n;
}

void AttachmentStream::resume_paused() {
  if (!paused_ || easy_ == nullptr) return;
  paused_ = false;
  multi_.unpause(easy_);
}

void AttachmentStream::drop_pause() {
  budget_.cancel(this);
  paused_ = false;
}

void AttachmentStream::flush_batch() {
  if (batch_.empty()) return;
  std::vector<StreamEvent> events;
  events.swap(batch_);
  if (cb_.on_messages) cb_.on_messages(events);
}

void AttachmentStream::handle_event(const SseEvent& event) {
  if (!stop_reason_.empty()) return;
  if (event.type == "ready") {
    state_ = State::connected;
    attempt_ = 0;
    if (cb_.on_connected) cb_.on_connected();
  } else if (event.type == "message") {
    batch_.push_back({event.id, event.data});
  } else if (event.type == "fenced") {
    const auto j = nlohmann::json::parse(event.data, nullptr, false);
    std::string reason = "fenced";
    if (j.is_object() && j.contains("reason") && j["reason"].is_string()) {
      reason = "fenced:" + j["reason"].get<std::string>();
    }
    stop_reason_ = reason;
  }
}

void AttachmentStream::on_done(CURLcode result) {
  if (state_ == State::stopped) return;
  if (is_certificate_failure(result) && !certificate_reported_) {
    // Retried with backoff like any failure (the certificate may be fixed), but said once, with the fix.
    certificate_reported_ = true;
    log::warn(certificate_error(url_, curl_error_[0] != '\0' ? curl_error_ : curl_easy_strerror(result)).what());
  }
  if (result == CURLE_OK) certificate_reported_ = false;
  uv_timer_stop(watchdog_);
  drop_pause();
  if (http_status_ == 0 && easy_ != nullptr) curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &http_status_);
  cleanup_easy();
  std::string reason = stop_reason_;
  if (reason.empty() && http_status_ != 200 && http_status_ != 0) reason = reason_for_status(http_status_, error_body_);
  if (!reason.empty()) {
    stop_for(reason);
    return;
  }
  schedule_reconnect();
}

void AttachmentStream::arm_watchdog() {
  uv_timer_start(
      watchdog_,
      [](uv_timer_t* t) {
        auto* self = static_cast<AttachmentStream*>(t->data);
        if (self == nullptr || self->easy_ == nullptr) return;
        // Silent for too long: the connection is dead even if TCP has not noticed.
        self->watchdog_fired_ = true;
        self->drop_pause();
        self->multi_.remove(self->easy_);
        self->cleanup_easy();
        self->schedule_reconnect();
      },
      tuning_.watchdog_ms, 0);
}

void AttachmentStream::stop_for(const std::string& reason) {
  stop();
  if (cb_.on_stopped) cb_.on_stopped(reason);  // last thing: the owner may discard this stream later
}

void AttachmentStream::schedule_reconnect() {
  state_ = State::waiting;
  ++reconnects_;
  const auto delay = backoff_delay_ms(tuning_.backoff, attempt_, rng_);
  if (attempt_ < 16) ++attempt_;
  uv_timer_start(
      retry_,
      [](uv_timer_t* t) {
        auto* self = static_cast<AttachmentStream*>(t->data);
        if (self != nullptr && self->state_ == State::waiting) self->connect();
      },
      delay, 0);
}

}  // namespace agentworks::bridge
