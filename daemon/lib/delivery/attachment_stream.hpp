// One server SSE stream for one attachment (R-B1, R-B3, R-B4), on the shared CurlMulti: no thread per stream.
// Heartbeat watchdog: 45 s without a byte means the stream is dead. Reconnects with exponential backoff and
// full jitter, resuming from the cursor the owner supplies (Last-Event-ID). A `fenced` event or a 401/403/404
// answer stops it for good: the owner is told at once and delivery for the attachment stops (R-B7).
#pragma once

#include <curl/curl.h>
#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "agentworks/sse_parser.hpp"
#include "platform/backoff.hpp"
#include "platform/curl_multi.hpp"
#include "platform/turn_budget.hpp"

namespace agentworks::bridge {

struct StreamEvent {
  std::string id;    // the SSE id: the mailbox cursor m<N>
  std::string data;  // the Message object as JSON text
};

struct StreamCallbacks {
  std::function<std::string()> resume_cursor;                              // e.g. "m42", or "" for the start
  // Every `message` event of one received chunk, in stream order, so the owner can store them in one commit.
  std::function<void(const std::vector<StreamEvent>& events)> on_messages;
  std::function<void(const std::string& reason)> on_stopped;              // fenced / unauthenticated / ...
  std::function<void()> on_connected;                                     // the `ready` event arrived
};

struct StreamTuning {
  std::uint64_t watchdog_ms = 45000;
  BackoffPolicy backoff;
};

class AttachmentStream {
 public:
  // `budget` paces the chunks of every stream to one per loop turn (turn_budget.hpp).
  AttachmentStream(uv_loop_t* loop, CurlMulti& multi, TurnBudget& budget, std::string url, std::string token,
                   StreamCallbacks callbacks, StreamTuning tuning = {});
  ~AttachmentStream();
  AttachmentStream(const AttachmentStream&) = delete;
  AttachmentStream& operator=(const AttachmentStream&) = delete;

  void start();
  // No more callbacks after this. Never call it from inside a curl callback.
  void stop();
  // connecting | connected | reconnecting | stopped
  const char* state() const;
  unsigned reconnects() const { return reconnects_; }

 private:
  enum class State { idle, connecting, connected, waiting, stopped };
  static size_t on_write(char* data, size_t size, size_t count, void* userp);
  void connect();
  void on_done(CURLcode result);
  void schedule_reconnect();
  void arm_watchdog();
  void stop_for(const std::string& reason);
  void handle_event(const SseEvent& event);
  void cleanup_easy();
  void flush_batch();
  void resume_paused();
  // The transfer ends (stopped, done, silent): no resume is owed to it any more.
  void drop_pause();

  uv_loop_t* loop_;
  CurlMulti& multi_;
  TurnBudget& budget_;
  std::string url_;
  std::string token_;
  StreamCallbacks cb_;
  StreamTuning tuning_;
  SseParser parser_;
  std::vector<StreamEvent> batch_;  // message events parsed from the current chunk
  JitterRng rng_;
  State state_ = State::idle;
  CURL* easy_ = nullptr;
  curl_slist* headers_ = nullptr;
  uv_timer_t* watchdog_;
  uv_timer_t* retry_;
  unsigned attempt_ = 0;
  unsigned reconnects_ = 0;
  long http_status_ = 0;
  std::string error_body_;
  std::string stop_reason_;  // set inside the write callback; acted on when the transfer ends
  bool watchdog_fired_ = false;
  bool paused_ = false;  // the write callback paused the transfer until the budget has room
  char curl_error_[CURL_ERROR_SIZE] = {};  // CURLOPT_ERRORBUFFER of the current transfer
  bool certificate_reported_ = false;
};

}  // namespace agentworks::bridge
