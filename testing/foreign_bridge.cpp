#include "testing/foreign_bridge.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace agentworks::testing {
namespace fs = std::filesystem;

ForeignBridge::ForeignBridge(const fs::path& socket) : socket_(socket) {
  fs::create_directories(socket.parent_path());
  fs::permissions(socket.parent_path(), fs::perms::owner_all, fs::perm_options::replace);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string p = socket.string();
  if (p.size() >= sizeof addr.sun_path) throw std::runtime_error("foreign socket path too long: " + p);
  std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ::unlink(p.c_str());
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 16) != 0 || ::pipe2(stop_pipe_, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    throw std::runtime_error("cannot plant a foreign socket at " + p + ": " + why);
  }
  thread_ = std::thread([this] { serve(); });
}

ForeignBridge::~ForeignBridge() {
  const char stop = 'x';
  [[maybe_unused]] const auto n = ::write(stop_pipe_[1], &stop, 1);
  thread_.join();
  ::close(listen_fd_);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  std::error_code ec;
  fs::remove(socket_, ec);
}

void ForeignBridge::serve() {
  // Looks like a bridge to a client that does not check who listens; answers every request "ok".
  const std::string greeting = "{\"agentworks_bridge\":1,\"protocol\":1,\"capabilities\":[],\"foreign\":true}\n";
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if ((fds[1].revents & POLLIN) != 0) return;
    const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    ++connections_;
    [[maybe_unused]] const auto w = ::send(c, greeting.data(), greeting.size(), MSG_NOSIGNAL);
    ::close(c);
  }
}

}  // namespace agentworks::testing
