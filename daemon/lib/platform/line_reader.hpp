// Splits a byte stream into lines for the local socket protocol (one JSON object per line). Memory is bounded:
// a line longer than the limit is reported once and skipped up to its newline, so the connection stays usable.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace agentworks::bridge {

class LineReader {
 public:
  using LineHandler = std::function<void(std::string_view line)>;
  using OversizeHandler = std::function<void()>;

  explicit LineReader(std::size_t max_line_bytes) : max_(max_line_bytes) {}

  // Calls on_line for each complete line (without "\n" and a trailing "\r"); empty lines are skipped.
  void feed(std::string_view bytes, const LineHandler& on_line, const OversizeHandler& on_oversize);
  std::size_t buffered() const { return buffer_.size(); }

 private:
  std::size_t max_;
  std::string buffer_;
  bool skipping_ = false;  // inside an oversize line: drop bytes until the next newline
};

}  // namespace agentworks::bridge
