// Reads a Server-Sent Events stream event by event, each read bounded by a deadline. Sends Last-Event-ID when
// asked. A non-200 answer keeps its status and JSON body so tests can check the error object.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "testing/http_client.hpp"

namespace agentworks::testing {

struct SseEvent {
  std::string id;     // the event's `id:` (empty when it had none)
  std::string event;  // `event:` name; "message" when absent
  std::string data;   // `data:` lines joined with '\n'
};

class SseStream {
 public:
  // Connects and reads the response head. Throws when the server cannot be reached.
  SseStream(const std::string& base_url, const std::string& path, const std::string& token,
            const std::optional<std::string>& last_event_id = std::nullopt,
            std::chrono::milliseconds timeout = std::chrono::seconds(10));
  SseStream(const SseStream&) = delete;
  SseStream& operator=(const SseStream&) = delete;
  ~SseStream();

  int status() const { return head_.status; }
  const Headers& headers() const { return head_.headers; }
  // The whole body of a non-stream answer (error JSON); reads it on first call.
  const std::string& error_body(std::chrono::milliseconds timeout = std::chrono::seconds(5));

  // The next dispatched event; nullopt when the stream ended or the timeout passed (see ended()).
  std::optional<SseEvent> next_event(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Skips events until one named `name` arrives (events skipped are kept in skipped()).
  std::optional<SseEvent> next_event_named(const std::string& name,
                                           std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // True once the server closed the stream and every buffered event was returned.
  bool ended() const;
  // Waits until the server closes the stream; events still arriving are collected in skipped().
  bool wait_closed(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  const std::vector<SseEvent>& skipped() const { return skipped_; }
  const std::vector<std::string>& comments() const { return comments_; }
  const std::string& retry() const { return retry_; }

 private:
  std::optional<SseEvent> parse_buffered();
  std::unique_ptr<Connection> conn_;
  std::unique_ptr<BodyReader> body_;
  HttpResponse head_;
  std::string error_body_;
  bool error_body_read_ = false;
  std::string pending_;  // decoded body bytes not yet parsed
  SseEvent current_;
  bool current_has_fields_ = false;
  std::vector<SseEvent> skipped_;
  std::vector<std::string> comments_;
  std::string retry_;
};

}  // namespace agentworks::testing
