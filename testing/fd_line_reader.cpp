#include "testing/fd_line_reader.hpp"

#include <poll.h>
#include <unistd.h>

namespace agentworks::testing {

std::optional<std::string> read_fd_line(int fd, std::string& buffer, std::chrono::steady_clock::time_point deadline,
                                        std::string* transcript) {
  while (true) {
    const auto nl = buffer.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return line;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buffer.append(chunk, static_cast<std::size_t>(n));
    if (transcript != nullptr) transcript->append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace agentworks::testing
