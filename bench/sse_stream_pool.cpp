#include "sse_stream_pool.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "agentworks/sse_parser.hpp"
#include "http_client.hpp"
#include "testing/http_wire.hpp"

namespace agentworks::bench {

using testing::ChunkedDecoder;
using testing::parse_response_head;

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct SseStreamPool::Stream {
  explicit Stream(SseStreamPool* pool)
      : parser([pool, this](const SseEvent& event) { pool_event(pool, event); }) {}

  void pool_event(SseStreamPool* pool, const SseEvent& event) {
    pool->events_.fetch_add(1, std::memory_order_relaxed);
    if (event.type == "ready") {
      pool->ready_.fetch_add(1);
      return;
    }
    if (event.type != "message") return;
    if (event.has_id && event.id.size() > 1 && event.id[0] == 'm') {
      last_seq.store(std::strtoull(event.id.c_str() + 1, nullptr, 10), std::memory_order_relaxed);
    }
    const std::size_t at = event.data.find(kTimestampMarker);
    if (at == std::string::npos) return;
    const std::int64_t sent = std::strtoll(event.data.c_str() + at + kTimestampMarker.size(), nullptr, 10);
    pool->delivered_.fetch_add(1, std::memory_order_relaxed);
    if (sent < pool->measure_since_.load(std::memory_order_relaxed)) return;
    const std::int64_t latency = steady_now_ns() - sent;
    std::lock_guard lock(pool->mutex_);
    pool->latencies_.push_back(latency);
  }

  int fd = -1;
  bool in_body = false;
  bool chunked = false;
  std::string head;
  ChunkedDecoder decoder;
  SseParser parser;
  std::atomic<std::uint64_t> last_seq{0};
};

SseStreamPool::SseStreamPool(std::string host, std::uint16_t port, std::string token, std::size_t source_addresses)
    : host_(std::move(host)), port_(port), token_(std::move(token)), source_addresses_(source_addresses) {}

SseStreamPool::~SseStreamPool() {
  stop();
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

bool SseStreamPool::open(const std::vector<StreamTarget>& targets, std::string* error, const std::string& after) {
  if (epoll_fd_ < 0) epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) {
    *error = std::string("epoll_create1: ") + std::strerror(errno);
    return false;
  }
  for (const auto& target : targets) {
    auto stream = std::make_unique<Stream>(this);
    const std::size_t source = streams_.size() % std::max<std::size_t>(1, source_addresses_);
    stream->fd = connect_tcp(host_, port_, error, source_addresses_ > 1 ? "127.0.0." + std::to_string(1 + source) : "");
    if (stream->fd < 0) return false;
    const std::string path = "/v1/attachments/" + target.attachment_id + "/stream" +
                             (after.empty() ? "" : "?after=" + after);
    const std::string req = "GET " + path + " HTTP/1.1\r\nHost: " + host_ + "\r\nAuthorization: Bearer " + token_ +
                            "\r\nAccept: text/event-stream\r\n\r\n";
    if (::send(stream->fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
      *error = std::string("send stream request: ") + std::strerror(errno);
      ::close(stream->fd);
      return false;
    }
    ::fcntl(stream->fd, F_SETFL, ::fcntl(stream->fd, F_GETFL) | O_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = stream.get();
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stream->fd, &ev) != 0) {
      *error = std::string("epoll_ctl: ") + std::strerror(errno);
      ::close(stream->fd);
      return false;
    }
    streams_.push_back(std::move(stream));
  }
  return true;
}

void SseStreamPool::start() { thread_ = std::thread([this] { run(); }); }

void SseStreamPool::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  for (auto& stream : streams_) {
    if (stream->fd >= 0) ::close(stream->fd);
    stream->fd = -1;
  }
}

void SseStreamPool::run() {
  std::vector<epoll_event> events(256);
  while (!stop_.load()) {
    const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), 100);
    for (int i = 0; i < n; ++i) {
      on_readable(*static_cast<Stream*>(events[static_cast<std::size_t>(i)].data.ptr));
    }
  }
}

void SseStreamPool::close_stream(Stream& stream, bool failed) {
  if (stream.fd < 0) return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, stream.fd, nullptr);
  ::close(stream.fd);
  stream.fd = -1;
  if (failed) failed_.fetch_add(1);
}

void SseStreamPool::on_readable(Stream& stream) {
  char buf[65536];
  for (;;) {
    if (stream.fd < 0) return;
    const ssize_t n = ::recv(stream.fd, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      close_stream(stream, true);
      return;
    }
    if (n == 0) {
      close_stream(stream, true);  // the benchmark never expects the server to end a stream
      return;
    }
    std::string_view bytes(buf, static_cast<std::size_t>(n));
    if (!stream.in_body) {
      stream.head.append(bytes);
      const std::size_t end = stream.head.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (stream.head.size() > 65536) close_stream(stream, true);
        continue;
      }
      const auto head = parse_response_head(std::string_view(stream.head).substr(0, end));
      if (!head || head->status != 200) {
        close_stream(stream, true);
        return;
      }
      stream.in_body = true;
      stream.chunked = head->chunked;
      const std::string rest = stream.head.substr(end + 4);
      stream.head.clear();
      stream.head.shrink_to_fit();
      if (!feed_body(stream, rest)) close_stream(stream, true);
      continue;
    }
    if (!feed_body(stream, bytes)) close_stream(stream, true);
  }
}

bool SseStreamPool::feed_body(Stream& stream, std::string_view bytes) {
  if (!stream.chunked) return stream.parser.feed(bytes);
  bool ok = true;
  std::size_t consumed = 0;
  const auto state =
      stream.decoder.feed(bytes, &consumed, [&](std::string_view data) { ok = stream.parser.feed(data) && ok; });
  return ok && state == ChunkedDecoder::Result::more;
}


std::vector<std::int64_t> SseStreamPool::take_latencies() {
  std::lock_guard lock(mutex_);
  std::vector<std::int64_t> out;
  out.swap(latencies_);
  return out;
}

std::string SseStreamPool::last_cursor(std::size_t index) const {
  if (index >= streams_.size()) return "0";
  const std::uint64_t seq = streams_[index]->last_seq.load(std::memory_order_relaxed);
  return seq == 0 ? "0" : "m" + std::to_string(seq);
}

std::uint64_t SseStreamPool::highest_seq() const {
  std::uint64_t highest = 0;
  for (const auto& stream : streams_) highest = std::max(highest, stream->last_seq.load(std::memory_order_relaxed));
  return highest;
}

}  // namespace agentworks::bench
