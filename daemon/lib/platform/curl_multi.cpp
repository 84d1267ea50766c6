#include "platform/curl_multi.hpp"
#include "platform/uv_handle.hpp"

#include <vector>

namespace agentworks::bridge {

struct CurlMulti::SocketContext {
  uv_poll_t poll;
  CurlMulti* owner;
  curl_socket_t fd;
};

CurlMulti::CurlMulti(uv_loop_t* loop)
    : loop_(loop), multi_(curl_multi_init()), timer_(open_timer(loop, this)), kick_(new uv_idle_t) {
  uv_idle_init(loop_, kick_);
  kick_->data = this;
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlMulti::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlMulti::on_timeout);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
}

CurlMulti::~CurlMulti() { close(); }

void CurlMulti::close() {
  if (closed_) return;
  closed_ = true;
  for (auto& [easy, done] : transfers_) curl_multi_remove_handle(multi_, easy);  // no-op for deferred ones
  transfers_.clear();
  deferred_adds_.clear();
  curl_multi_cleanup(multi_);  // removes remaining sockets through on_socket(CURL_POLL_REMOVE)
  multi_ = nullptr;
  close_timer(timer_);
  uv_idle_stop(kick_);
  close_handle(kick_);
}

void CurlMulti::add(CURL* easy, Done done) {
  if (closed_) return;
  transfers_[easy] = std::move(done);
  if (driving_) {
    deferred_adds_.push_back(easy);
    return;
  }
  curl_multi_add_handle(multi_, easy);  // schedules a 0 ms timeout through on_timeout
}

void CurlMulti::remove(CURL* easy) {
  if (closed_) return;
  if (transfers_.erase(easy) == 0) return;
  for (auto it = deferred_adds_.begin(); it != deferred_adds_.end(); ++it) {
    if (*it == easy) {
      deferred_adds_.erase(it);
      return;  // never reached curl
    }
  }
  curl_multi_remove_handle(multi_, easy);
}

int CurlMulti::on_socket(CURL*, curl_socket_t s, int action, void* userp, void* socketp) {
  auto* self = static_cast<CurlMulti*>(userp);
  auto* ctx = static_cast<SocketContext*>(socketp);
  if (action == CURL_POLL_REMOVE) {
    if (ctx != nullptr) {
      // Stop watching now; the fd belongs to curl, which closes it after this callback.
      uv_poll_stop(&ctx->poll);
      uv_close(reinterpret_cast<uv_handle_t*>(&ctx->poll),
               [](uv_handle_t* h) { delete static_cast<SocketContext*>(h->data); });
      if (self->multi_ != nullptr) curl_multi_assign(self->multi_, s, nullptr);
    }
    return 0;
  }
  if (ctx == nullptr) {
    ctx = new SocketContext{};
    ctx->owner = self;
    ctx->fd = s;
    uv_poll_init_socket(self->loop_, &ctx->poll, s);
    ctx->poll.data = ctx;
    curl_multi_assign(self->multi_, s, ctx);
  }
  int events = 0;
  if (action == CURL_POLL_IN || action == CURL_POLL_INOUT) events |= UV_READABLE;
  if (action == CURL_POLL_OUT || action == CURL_POLL_INOUT) events |= UV_WRITABLE;
  uv_poll_start(&ctx->poll, events, &CurlMulti::on_poll);
  return 0;
}

int CurlMulti::on_timeout(CURLM*, long timeout_ms, void* userp) {
  auto* self = static_cast<CurlMulti*>(userp);
  // Each call replaces the previous timeout.
  uv_timer_stop(self->timer_);
  uv_idle_stop(self->kick_);
  if (timeout_ms == 0) {
    // "Act now", but not from inside curl's callback (re-entry is not allowed): at the loop's next turn, after one
    // I/O poll (an idle handle makes that poll not wait). A 0 ms timer would run within the same timer pass when
    // curl asks again from on_timer, without ever polling I/O.
    uv_idle_start(self->kick_, &CurlMulti::on_kick);
  } else if (timeout_ms > 0) {
    uv_timer_start(self->timer_, &CurlMulti::on_timer, static_cast<uint64_t>(timeout_ms), 0);
  }
  return 0;
}

void CurlMulti::on_kick(uv_idle_t* idle) {
  auto* self = static_cast<CurlMulti*>(idle->data);
  uv_idle_stop(idle);
  self->drive(CURL_SOCKET_TIMEOUT, 0);
}

void CurlMulti::on_timer(uv_timer_t* timer) {
  auto* self = static_cast<CurlMulti*>(timer->data);
  self->drive(CURL_SOCKET_TIMEOUT, 0);
}

void CurlMulti::on_poll(uv_poll_t* poll, int status, int events) {
  auto* ctx = static_cast<SocketContext*>(poll->data);
  int flags = 0;
  if (status < 0) {
    flags = CURL_CSELECT_ERR;
  } else {
    if ((events & UV_READABLE) != 0) flags |= CURL_CSELECT_IN;
    if ((events & UV_WRITABLE) != 0) flags |= CURL_CSELECT_OUT;
  }
  ctx->owner->drive(ctx->fd, flags);
}

void CurlMulti::drive(curl_socket_t s, int flags) {
  if (closed_) return;
  int running = 0;
  driving_ = true;
  curl_multi_socket_action(multi_, s, flags, &running);
  driving_ = false;
  after_callbacks();
}

void CurlMulti::unpause(CURL* easy) {
  if (closed_ || driving_ || transfers_.count(easy) == 0) return;
  driving_ = true;
  curl_easy_pause(easy, CURLPAUSE_CONT);
  driving_ = false;
  after_callbacks();
}

void CurlMulti::after_callbacks() {
  std::vector<CURL*> adds;
  adds.swap(deferred_adds_);
  for (CURL* easy : adds) {
    if (transfers_.count(easy) > 0) curl_multi_add_handle(multi_, easy);
  }
  finish_done();
}

void CurlMulti::finish_done() {
  // Collect first: a done callback may add or remove transfers.
  std::vector<std::pair<CURL*, CURLcode>> finished;
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
    if (msg->msg == CURLMSG_DONE) finished.emplace_back(msg->easy_handle, msg->data.result);
  }
  for (auto [easy, result] : finished) {
    auto it = transfers_.find(easy);
    if (it == transfers_.end()) continue;
    Done done = std::move(it->second);
    transfers_.erase(it);
    curl_multi_remove_handle(multi_, easy);
    if (done) done(result);
    if (closed_) return;
  }
}

}  // namespace agentworks::bridge
