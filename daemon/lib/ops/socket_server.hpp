// The private local socket on the bridge's loop: accepts connections, refuses other uids (SO_PEERCRED,
// invariant 9), greets, splits lines (bounded) and hands each to dispatch(). A client can send anything: bad
// input gets an error line and the connection stays usable.
#pragma once

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "request/reply.hpp"

namespace agentworks::bridge {

class SocketServer {
 public:
  // on_line(line, sink, connected): one request line; the answer goes to sink (once, maybe later), which reports
  // whether it was written to the client; connected() tells whether the client still holds the connection.
  using LineHandler =
      std::function<void(std::string_view line, const Reply::Transport& sink, const Reply::Connected& connected)>;

  // Takes over `listen_fd` (already bound and listening).
  SocketServer(uv_loop_t* loop, int listen_fd, std::string greeting, LineHandler on_line);
  ~SocketServer();
  SocketServer(const SocketServer&) = delete;
  SocketServer& operator=(const SocketServer&) = delete;

  // Stops accepting; flushes what is queued to each client, then closes it.
  void close();
  std::size_t connections() const { return connections_.size(); }

 private:
  struct Connection;
  static void on_connection(uv_stream_t* server, int status);
  void accept_one();
  void drop(std::uint64_t id);

  uv_loop_t* loop_;
  uv_pipe_t* listener_;
  std::string greeting_;
  LineHandler on_line_;
  std::map<std::uint64_t, std::shared_ptr<Connection>> connections_;
  std::uint64_t next_id_ = 1;
  bool closed_ = false;
};

// The uid of the peer of a connected Unix socket, or -1 when it cannot be told.
long peer_uid(int fd);

}  // namespace agentworks::bridge
