#include "ops/socket_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <array>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "ops/command_table.hpp"
#include "platform/line_reader.hpp"
#include "platform/log.hpp"

namespace agentworks::bridge {
namespace {

constexpr std::size_t kMaxQueuedWriteBytes = 64u << 20;  // a client that never reads is dropped

struct WriteRequest {
  uv_write_t req;
  std::string data;
  Reply::Written written;
};

void close_pipe(uv_pipe_t* pipe) {
  if (uv_is_closing(reinterpret_cast<uv_handle_t*>(pipe)) != 0) return;
  uv_close(reinterpret_cast<uv_handle_t*>(pipe), [](uv_handle_t* h) { delete reinterpret_cast<uv_pipe_t*>(h); });
}

}  // namespace

long peer_uid(int fd) {
#ifdef SO_PEERCRED
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
  return static_cast<long>(cred.uid);
#else
  uid_t uid = 0;
  gid_t gid = 0;
  if (::getpeereid(fd, &uid, &gid) != 0) return -1;
  return static_cast<long>(uid);
#endif
}

struct SocketServer::Connection : std::enable_shared_from_this<Connection> {
  SocketServer* server = nullptr;
  std::uint64_t id = 0;
  uv_pipe_t* pipe = nullptr;
  LineReader reader{kMaxRequestLineBytes};
  std::array<char, 65536> buffer{};
  bool closing = false;

  // `written` (may be empty) learns whether the whole line went into the socket.
  void write(std::string line, Reply::Written written = nullptr) {
    if (closing) {
      if (written) written(false);
      return;
    }
    if (uv_stream_get_write_queue_size(reinterpret_cast<uv_stream_t*>(pipe)) > kMaxQueuedWriteBytes) {
      log::warn("local client does not read its answers; dropping it");
      shutdown_and_close();
      if (written) written(false);
      return;
    }
    // Straight into the socket when nothing is queued: the answer counts as written before the loop moves on
    // (an offer is confirmed at once, R-B6); what does not fit is queued.
    std::size_t sent = 0;
    auto* stream = reinterpret_cast<uv_stream_t*>(pipe);
    if (uv_stream_get_write_queue_size(stream) == 0) {
      uv_buf_t whole = uv_buf_init(line.data(), static_cast<unsigned>(line.size()));
      const int n = uv_try_write(stream, &whole, 1);
      if (n > 0) sent = static_cast<std::size_t>(n);
      if (sent == line.size()) {
        if (written) written(true);
        return;
      }
    }
    auto* w = new WriteRequest{};
    w->data = line.substr(sent);
    w->written = std::move(written);
    uv_buf_t buf = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
    const int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(pipe), &buf, 1, [](uv_write_t* req, int status) {
      auto* done = reinterpret_cast<WriteRequest*>(req);
      auto report = std::move(done->written);
      delete done;
      if (report) report(status == 0);
    });
    if (rc != 0) {
      auto failed = std::move(w->written);
      delete w;
      shutdown_and_close();
      if (failed) failed(false);
    }
  }

  // Flushes queued answers, then closes. The pipe frees itself; this object may go first.
  void shutdown_and_close() {
    if (closing) return;
    closing = true;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(pipe));
    pipe->data = nullptr;
    auto* req = new uv_shutdown_t;
    if (uv_shutdown(req, reinterpret_cast<uv_stream_t*>(pipe), [](uv_shutdown_t* r, int) {
          close_pipe(reinterpret_cast<uv_pipe_t*>(r->handle));
          delete r;
        }) != 0) {
      delete req;
      close_pipe(pipe);
    }
    server->drop(id);
  }
};

SocketServer::SocketServer(uv_loop_t* loop, int listen_fd, std::string greeting, LineHandler on_line)
    : loop_(loop), listener_(new uv_pipe_t), greeting_(std::move(greeting)), on_line_(std::move(on_line)) {
  uv_pipe_init(loop_, listener_, 0);
  listener_->data = this;
  uv_pipe_open(listener_, listen_fd);
  const int rc = uv_listen(reinterpret_cast<uv_stream_t*>(listener_), 64, &SocketServer::on_connection);
  if (rc != 0) throw Error(ErrorCode::internal, std::string("cannot listen on the bridge socket: ") + uv_strerror(rc));
}

SocketServer::~SocketServer() { close(); }

void SocketServer::close() {
  if (closed_) return;
  closed_ = true;
  listener_->data = nullptr;
  close_pipe(listener_);
  auto all = connections_;  // shutdown_and_close() erases from the map
  for (auto& [id, c] : all) c->shutdown_and_close();
}

void SocketServer::drop(std::uint64_t id) { connections_.erase(id); }

void SocketServer::on_connection(uv_stream_t* server, int status) {
  auto* self = static_cast<SocketServer*>(server->data);
  if (self == nullptr || status < 0) return;
  self->accept_one();
}

void SocketServer::accept_one() {
  auto* pipe = new uv_pipe_t;
  uv_pipe_init(loop_, pipe, 0);
  if (uv_accept(reinterpret_cast<uv_stream_t*>(listener_), reinterpret_cast<uv_stream_t*>(pipe)) != 0) {
    close_pipe(pipe);
    return;
  }
  uv_os_fd_t fd = -1;
  uv_fileno(reinterpret_cast<uv_handle_t*>(pipe), &fd);
  const long uid = peer_uid(fd);
  if (uid != static_cast<long>(::getuid())) {
    // Invariant 9: only the bridge's own user may talk to it.
    log::warn("refused a local connection from uid " + std::to_string(uid));
    close_pipe(pipe);
    return;
  }
  auto conn = std::make_shared<Connection>();
  conn->server = this;
  conn->id = next_id_++;
  conn->pipe = pipe;
  pipe->data = conn.get();
  connections_[conn->id] = conn;
  conn->write(greeting_);
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(pipe),
      [](uv_handle_t* h, size_t, uv_buf_t* buf) {
        auto* c = static_cast<Connection*>(h->data);
        if (c == nullptr) {
          *buf = uv_buf_init(nullptr, 0);
          return;
        }
        *buf = uv_buf_init(c->buffer.data(), static_cast<unsigned>(c->buffer.size()));
      },
      [](uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
        auto* raw = static_cast<Connection*>(stream->data);
        if (raw == nullptr) return;
        auto c = raw->shared_from_this();  // stays alive while its lines are handled
        if (nread < 0) {
          c->shutdown_and_close();
          return;
        }
        std::weak_ptr<Connection> weak = c;
        const Reply::Transport sink = [weak](std::string line, const Reply::Written& written) {
          if (auto alive = weak.lock()) {
            alive->write(std::move(line), written);
          } else if (written) {
            written(false);  // the client went away before its answer
          }
        };
        const Reply::Connected connected = [weak]() {
          const auto alive = weak.lock();
          return alive != nullptr && !alive->closing;
        };
        c->reader.feed(
            std::string_view(buf->base, static_cast<std::size_t>(nread)),
            [&](std::string_view line) {
              if (!c->closing) c->server->on_line_(line, sink, connected);
            },
            [&] {
              sink(error_line(nullptr, ErrorCode::payload_too_large,
                              "request line over 1 MiB; it was skipped, the connection stays usable"),
                   nullptr);
            });
      });
}

}  // namespace agentworks::bridge
