// WHATWG HTML "server-sent events", section "Interpreting an event stream".
#include "agentworks/sse_parser.hpp"

#include <limits>

namespace agentworks {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// Index of the first CR or LF in `bytes`, or npos.
std::size_t find_line_end(std::string_view bytes) {
  const char* begin = bytes.data();
  const std::size_t size = bytes.size();
  for (std::size_t i = 0; i < size; ++i) {
    const char c = begin[i];
    if (c == '\n' || c == '\r') return i;
  }
  return std::string_view::npos;
}

bool all_ascii_digits(std::string_view value) {
  if (value.empty()) return false;
  for (char c : value) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Base-ten value of an all-digit string, saturating instead of overflowing.
std::uint64_t parse_digits(std::string_view value) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t result = 0;
  for (char c : value) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (result > (max - digit) / 10) return max;
    result = result * 10 + digit;
  }
  return result;
}

}  // namespace

SseParser::SseParser(EventHandler on_event, std::size_t max_bytes)
    : on_event_(std::move(on_event)), max_bytes_(max_bytes) {}

bool SseParser::feed(std::string_view chunk) {
  if (failed()) return false;
  bytes_received_ += chunk.size();
  if (!bom_checked_) {
    // The BOM may itself arrive split; hold up to three bytes until we know.
    while (!chunk.empty() && bom_prefix_.size() < kBom.size()) {
      if (chunk.front() != kBom[bom_prefix_.size()]) break;
      bom_prefix_.push_back(chunk.front());
      chunk.remove_prefix(1);
    }
    if (bom_prefix_.size() == kBom.size()) {
      bom_checked_ = true;  // a complete BOM: drop it
    } else if (!chunk.empty()) {
      bom_checked_ = true;  // mismatch: the held bytes were ordinary content
      std::string held;
      held.swap(bom_prefix_);
      consume(held);
    } else {
      return true;  // still undecided (chunk ended inside a possible BOM)
    }
    bom_prefix_.clear();
  }
  consume(chunk);
  return !failed();
}

void SseParser::consume(std::string_view bytes) {
  while (!bytes.empty() && !failed()) {
    if (after_cr_) {
      after_cr_ = false;
      if (bytes.front() == '\n') {  // second half of a CRLF line end
        bytes.remove_prefix(1);
        continue;
      }
    }
    const std::size_t end = find_line_end(bytes);
    if (end == std::string_view::npos) {
      if (line_.size() + bytes.size() + pending_bytes() > max_bytes_) {
        fail("server-sent event line exceeds " + std::to_string(max_bytes_) + " bytes");
        return;
      }
      line_.append(bytes);
      return;
    }
    if (line_.empty()) {
      // Fast path: the whole line is inside this chunk, no copy.
      if (end + pending_bytes() > max_bytes_) {
        fail("server-sent event line exceeds " + std::to_string(max_bytes_) + " bytes");
        return;
      }
      process_line(bytes.substr(0, end));
    } else {
      if (line_.size() + end + pending_bytes() > max_bytes_) {
        fail("server-sent event line exceeds " + std::to_string(max_bytes_) + " bytes");
        return;
      }
      line_.append(bytes.substr(0, end));
      std::string line;
      line.swap(line_);
      process_line(line);
    }
    after_cr_ = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
  }
}

void SseParser::process_line(std::string_view line) {
  if (line.empty()) {
    dispatch();
    return;
  }
  if (line.front() == ':') {
    if (on_comment_) on_comment_(line.substr(1));
    return;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    process_field(line, {});
    return;
  }
  std::string_view value = line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  process_field(line.substr(0, colon), value);
}

void SseParser::process_field(std::string_view name, std::string_view value) {
  if (name == "data") {
    if (pending_bytes() + value.size() + 1 > max_bytes_) {
      fail("server-sent event exceeds " + std::to_string(max_bytes_) + " bytes");
      return;
    }
    data_.append(value);
    data_.push_back('\n');
  } else if (name == "event") {
    type_.assign(value);
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) {
      id_buffer_.assign(value);
      block_has_id_ = true;
    }
  } else if (name == "retry") {
    if (all_ascii_digits(value)) {
      retry_ms_ = parse_digits(value);
      if (on_retry_) on_retry_(*retry_ms_);
    }
  }
  // Any other field name is ignored.
}

void SseParser::dispatch() {
  last_event_id_ = id_buffer_;
  const bool has_id = block_has_id_;
  block_has_id_ = false;
  if (data_.empty()) {
    type_.clear();
    return;
  }
  data_.pop_back();  // every data line appended "\n"; drop the last one
  SseEvent event;
  if (!type_.empty()) event.type = std::move(type_);
  event.data = std::move(data_);
  event.id = id_buffer_;
  event.has_id = has_id;
  data_.clear();
  type_.clear();
  if (on_event_) on_event_(event);
}

std::size_t SseParser::pending_bytes() const { return data_.size() + type_.size() + id_buffer_.size(); }

void SseParser::fail(std::string message) {
  error_ = std::move(message);
  line_.clear();
  line_.shrink_to_fit();
  data_.clear();
  data_.shrink_to_fit();
}

void SseParser::finish() {
  line_.clear();
  data_.clear();
  type_.clear();
  // Browsers seed a new stream's id buffer with the last dispatched id, so an id-less
  // event after a reconnect does not make the client forget where to resume from.
  id_buffer_ = last_event_id_;
  block_has_id_ = false;
  after_cr_ = false;
  bom_prefix_.clear();
  bom_checked_ = false;
  error_.clear();
}

}  // namespace agentworks
