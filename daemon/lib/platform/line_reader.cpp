#include "platform/line_reader.hpp"

namespace agentworks::bridge {

void LineReader::feed(std::string_view bytes, const LineHandler& on_line, const OversizeHandler& on_oversize) {
  while (!bytes.empty()) {
    const auto nl = bytes.find('\n');
    const std::string_view part = bytes.substr(0, nl);
    if (skipping_) {
      if (nl == std::string_view::npos) return;
      skipping_ = false;
    } else if (buffer_.size() + part.size() > max_) {
      buffer_.clear();
      on_oversize();
      if (nl == std::string_view::npos) {
        skipping_ = true;
        return;
      }
    } else if (nl == std::string_view::npos) {
      buffer_.append(part);
      return;
    } else {
      buffer_.append(part);
      std::string line;
      line.swap(buffer_);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) on_line(line);
    }
    bytes.remove_prefix(nl + 1);
  }
}

}  // namespace agentworks::bridge
