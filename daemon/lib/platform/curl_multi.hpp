// libcurl multi driven by the bridge's libuv loop (curl's multi-uv pattern): one uv_poll per curl socket and
// one uv_timer. Rules kept here once: a 0 ms curl timeout ("act now") runs at the loop's next turn through an idle
// handle, not a timer (a 1 ms timer put a fixed millisecond in front of every request, e.g. each take's release
// check), a polled fd is never closed by us (curl owns it), poll errors are passed on as CURL_CSELECT_ERR. No thread
// per transfer.
#pragma once

#include <curl/curl.h>
#include <uv.h>

#include <functional>
#include <map>
#include <vector>

namespace agentworks::bridge {

class CurlMulti {
 public:
  using Done = std::function<void(CURLcode result)>;

  explicit CurlMulti(uv_loop_t* loop);
  ~CurlMulti();
  CurlMulti(const CurlMulti&) = delete;
  CurlMulti& operator=(const CurlMulti&) = delete;

  // Starts a transfer on `easy` (not owned). `done` runs on the loop once the transfer ends; the handle has
  // already been removed from the multi by then, so `done` may free it or add it again. Safe from inside a curl
  // callback (e.g. a stream's write callback): the handle is then added right after curl returns.
  void add(CURL* easy, Done done);
  // Stops a transfer without calling its `done`. Safe for unknown handles. Never call from a curl callback.
  void remove(CURL* easy);
  // Resumes a transfer whose write callback paused it (CURL_WRITEFUNC_PAUSE); curl may hand over the held data
  // from inside this call, so it counts as driving (adds from those callbacks are deferred). Never call it from a
  // curl callback.
  void unpause(CURL* easy);
  // Removes every transfer and closes the timer; the loop then runs out of handles.
  void close();
  std::size_t active() const { return transfers_.size(); }

 private:
  struct SocketContext;
  static int on_socket(CURL* easy, curl_socket_t s, int action, void* userp, void* socketp);
  static int on_timeout(CURLM* multi, long timeout_ms, void* userp);
  static void on_timer(uv_timer_t* timer);
  static void on_kick(uv_idle_t* idle);
  static void on_poll(uv_poll_t* poll, int status, int events);
  void drive(curl_socket_t s, int flags);
  void after_callbacks();
  void finish_done();

  uv_loop_t* loop_;
  CURLM* multi_;
  uv_timer_t* timer_;
  uv_idle_t* kick_;  // active while curl asked to act now
  std::map<CURL*, Done> transfers_;
  std::vector<CURL*> deferred_adds_;  // added while curl was running callbacks (curl forbids re-entry)
  bool driving_ = false;
  bool closed_ = false;
};

}  // namespace agentworks::bridge
