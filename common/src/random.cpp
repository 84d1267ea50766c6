#include "agentworks/random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace agentworks {

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> buf(bytes);
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::getrandom(buf.data() + got, bytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("getrandom failed");
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char b : buf) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xF]);
  }
  return out;
}

std::string new_id(std::string_view prefix) {
  std::string id(prefix);
  id += '_';
  id += random_hex(12);
  return id;
}

std::string new_time_ordered_id(std::string_view prefix) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  std::string id(prefix);
  id += '_';
  for (int shift = 44; shift >= 0; shift -= 4) id.push_back(kHex[(ms >> shift) & 0xF]);
  id += random_hex(6);
  return id;
}

}  // namespace agentworks
