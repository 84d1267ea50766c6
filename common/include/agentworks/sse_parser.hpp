// Incremental parser for a text/event-stream body, following the WHATWG HTML
// "server-sent events" interpretation rules. Bytes may arrive split anywhere (even
// between the CR and LF of one line end); complete events come out of a callback.
// Memory is bounded: an over-long line or event puts the parser into an error state
// instead of growing without limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agentworks {

struct SseEvent {
  std::string type = "message";  // the "event" field, "message" when absent
  std::string data;              // "data" lines joined with "\n"
  std::string id;                // the stream's last event id at dispatch (persists across events)
  bool has_id = false;           // true when this event's own block carried a valid "id" field
};

class SseParser {
 public:
  using EventHandler = std::function<void(const SseEvent&)>;
  using RetryHandler = std::function<void(std::uint64_t milliseconds)>;
  using CommentHandler = std::function<void(std::string_view text)>;

  static constexpr std::size_t kDefaultMaxBytes = std::size_t{1} << 20;  // 1 MiB

  // max_bytes bounds the partial line plus the pending event (data, type and id buffers).
  explicit SseParser(EventHandler on_event, std::size_t max_bytes = kDefaultMaxBytes);

  // Optional: called for each valid "retry" field and each ":" comment line (text after
  // the colon, unmodified). Comments carry heartbeats; callers that watch liveness should
  // count every fed byte, not only comments.
  void set_retry_handler(RetryHandler handler) { on_retry_ = std::move(handler); }
  void set_comment_handler(CommentHandler handler) { on_comment_ = std::move(handler); }

  // Consumes the next bytes of the stream. Returns false once the parser has failed
  // (then every later call is ignored and returns false until finish()).
  bool feed(std::string_view chunk);

  // End of the stream: an unfinished event (no blank line yet) is discarded, as the spec
  // says. Resets the per-stream state (buffers, BOM check, error) so the same parser can
  // read the next connection's stream; last_event_id() and retry_ms() are kept.
  void finish();

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }  // empty unless failed()

  // The id to send as Last-Event-ID when reconnecting: set when an event block is
  // dispatched (or ends empty), never by a half-received block.
  const std::string& last_event_id() const { return last_event_id_; }
  std::optional<std::uint64_t> retry_ms() const { return retry_ms_; }
  std::uint64_t bytes_received() const { return bytes_received_; }

 private:
  void consume(std::string_view bytes);
  void process_line(std::string_view line);
  void process_field(std::string_view name, std::string_view value);
  void dispatch();
  std::size_t pending_bytes() const;
  void fail(std::string message);

  EventHandler on_event_;
  RetryHandler on_retry_;
  CommentHandler on_comment_;
  std::size_t max_bytes_;

  std::string line_;        // a line not yet ended by CR/LF
  std::string data_;        // data buffer
  std::string type_;        // event type buffer
  std::string id_buffer_;   // last event ID buffer (per spec; persists between events)
  bool block_has_id_ = false;
  bool after_cr_ = false;   // the previous byte was a CR line end: a following LF belongs to it
  std::string bom_prefix_;  // first bytes of the stream while deciding whether they are a BOM
  bool bom_checked_ = false;

  std::string last_event_id_;
  std::optional<std::uint64_t> retry_ms_;
  std::uint64_t bytes_received_ = 0;
  std::string error_;
};

}  // namespace agentworks
