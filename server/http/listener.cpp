#include "http/listener.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace agentworks::server {
namespace {
constexpr int kAcceptsPerWakeup = 64;  // then let the loop serve what was accepted
constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{1000};
}  // namespace

Listener::Listener(event_base* base, int fd, AcceptFn on_accept) : fd_(fd), on_accept_(std::move(on_accept)) {
  accept_ev_ = event_new(base, fd_, EV_READ | EV_PERSIST, &Listener::on_readable, this);
  resume_ev_ = evtimer_new(base, &Listener::on_resume, this);
  event_add(accept_ev_, nullptr);
}

Listener::~Listener() {
  stop();
  event_free(accept_ev_);
  event_free(resume_ev_);
}

void Listener::stop() {
  if (fd_ < 0) return;
  event_del(accept_ev_);
  event_del(resume_ev_);
  ::close(fd_);
  fd_ = -1;
}

void Listener::on_readable(int, short, void* arg) { static_cast<Listener*>(arg)->accept_some(); }

void Listener::on_resume(int, short, void* arg) {
  auto* self = static_cast<Listener*>(arg);
  if (self->fd_ < 0) return;
  event_add(self->accept_ev_, nullptr);
  self->accept_some();
}

void Listener::accept_some() {
  for (int i = 0; i < kAcceptsPerWakeup && fd_ >= 0; ++i) {
    const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      backoff_ = std::chrono::milliseconds(0);
      on_accept_(fd);
      continue;
    }
    const int err = errno;
    if (err == EAGAIN || err == EWOULDBLOCK) return;
    // The client gave up before we accepted it, or a signal: nothing wrong with us.
    if (err == EINTR || err == ECONNABORTED || err == EPROTO || err == EPERM) continue;
    back_off(err);
    return;
  }
}

void Listener::back_off(int err) {
  backoff_ = backoff_.count() == 0 ? kFirstBackoff : std::min(kMaxBackoff, backoff_ * 2);
  if (const auto n = error_log_.hit())
    spdlog::warn("accept failed {} time(s) since the last report: {}; pausing accepts for {} ms", *n,
                 std::strerror(err), backoff_.count());
  event_del(accept_ev_);
  const auto ms = backoff_.count();
  const timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
  evtimer_add(resume_ev_, &tv);
}

}  // namespace agentworks::server
