// One push into Claude Code's session inbox on the libuv loop: connect, write the two frames, shut down writing,
// read until the session closes. The session answers nothing, so a clean close after our EOF is the only "it
// took the bytes" signal; everything after the connect that is not clean is ambiguous (never retried: Claude
// would run a repeated message twice).
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "native/claude_inbox.hpp"

namespace agentworks::bridge::native {
namespace {

struct InboxPush {
  uv_loop_t* loop = nullptr;
  uv_pipe_t pipe{};
  uv_timer_t timer{};
  uv_connect_t connect_req{};
  uv_write_t write_req{};
  uv_shutdown_t shutdown_req{};
  std::string socket_path;
  std::string frames;               // must outlive the write
  std::array<char, 256> read_buf{};  // the session sends nothing; whatever comes is read and ignored
  PushDone done;
  PushResult early;                 // a refusal decided before any handle I/O, reported from the timer
  bool pipe_open = false;
  bool connected = false;
  bool written = false;
  bool finished = false;
  int open_handles = 0;
};

void on_inbox_handle_closed(uv_handle_t* h) {
  auto* s = static_cast<InboxPush*>(h->data);
  if (--s->open_handles == 0) delete s;
}

// Reports once, then closes the handles; the state is freed when both close callbacks ran.
void finish(InboxPush* s, PushOutcome outcome, std::string detail) {
  if (s->finished) return;
  s->finished = true;
  uv_timer_stop(&s->timer);
  uv_close(reinterpret_cast<uv_handle_t*>(&s->timer), on_inbox_handle_closed);
  if (s->pipe_open) {
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&s->pipe));
    uv_close(reinterpret_cast<uv_handle_t*>(&s->pipe), on_inbox_handle_closed);
  }
  PushDone done = std::move(s->done);
  done(PushResult{outcome, std::move(detail)});
}

std::string uv_text(int status) { return std::string(uv_err_name(status)) + " (" + uv_strerror(status) + ")"; }

void on_inbox_reply(uv_stream_t* stream, ssize_t nread, const uv_buf_t*) {
  auto* s = static_cast<InboxPush*>(stream->data);
  if (nread >= 0) return;  // data (none expected) or EAGAIN: keep waiting for the close
  if (nread == UV_EOF && s->written) {
    finish(s, PushOutcome::accepted, "written to Claude's session inbox " + s->socket_path);
    return;
  }
  if (nread == UV_EOF) {
    finish(s, PushOutcome::ambiguous, "Claude's session closed the connection before the write completed");
    return;
  }
  finish(s, PushOutcome::ambiguous,
         "reading from Claude's session inbox failed: " + uv_text(static_cast<int>(nread)));
}

void on_shutdown(uv_shutdown_t* req, int status) {
  auto* s = static_cast<InboxPush*>(req->data);
  if (s->finished || status == UV_ECANCELED) return;
  // The peer may close right after reading everything; its EOF (or reset) on the read side decides.
  if (status != 0 && status != UV_ENOTCONN && status != UV_EPIPE) {
    finish(s, PushOutcome::ambiguous, "closing the write side failed: " + uv_text(status));
  }
}

void on_write(uv_write_t* req, int status) {
  auto* s = static_cast<InboxPush*>(req->data);
  if (s->finished || status == UV_ECANCELED) return;
  if (status != 0) {
    finish(s, PushOutcome::ambiguous, "writing to Claude's session inbox failed: " + uv_text(status));
    return;
  }
  s->written = true;
  s->shutdown_req.data = s;
  const int rc = uv_shutdown(&s->shutdown_req, reinterpret_cast<uv_stream_t*>(&s->pipe), on_shutdown);
  if (rc != 0 && rc != UV_ENOTCONN) finish(s, PushOutcome::ambiguous, "closing the write side failed: " + uv_text(rc));
}

void on_connect(uv_connect_t* req, int status) {
  auto* s = static_cast<InboxPush*>(req->data);
  if (s->finished || status == UV_ECANCELED) return;
  if (status != 0) {  // nothing was written: the messages can go back to pending
    finish(s, PushOutcome::refused, "cannot connect to Claude's session inbox " + s->socket_path + ": " +
                                        uv_text(status));
    return;
  }
  s->connected = true;
  auto* stream = reinterpret_cast<uv_stream_t*>(&s->pipe);
  const int read_rc = uv_read_start(
      stream,
      [](uv_handle_t* h, size_t, uv_buf_t* buf) {
        auto* st = static_cast<InboxPush*>(h->data);
        *buf = uv_buf_init(st->read_buf.data(), static_cast<unsigned>(st->read_buf.size()));
      },
      on_inbox_reply);
  if (read_rc != 0) {
    finish(s, PushOutcome::refused, "cannot read from Claude's session inbox: " + uv_text(read_rc));
    return;
  }
  uv_buf_t buf = uv_buf_init(s->frames.data(), static_cast<unsigned>(s->frames.size()));
  s->write_req.data = s;
  const int rc = uv_write(&s->write_req, stream, &buf, 1, on_write);
  if (rc != 0) finish(s, PushOutcome::refused, "cannot write to Claude's session inbox: " + uv_text(rc));
}

void on_timer(uv_timer_t* t) {
  auto* s = static_cast<InboxPush*>(t->data);
  if (!s->early.detail.empty()) {
    finish(s, s->early.outcome, s->early.detail);
  } else if (!s->connected) {
    finish(s, PushOutcome::refused, "connecting to Claude's session inbox timed out");
  } else {
    finish(s, PushOutcome::ambiguous, "Claude's session did not close the connection in time");
  }
}

}  // namespace

void push_claude(uv_loop_t* loop, const ClaudeBinding& b, std::string msg_id, std::string text, PushDone done,
                 std::chrono::milliseconds timeout) {
  auto* s = new InboxPush;
  s->loop = loop;
  s->socket_path = b.socket_path;
  s->done = std::move(done);
  uv_timer_init(loop, &s->timer);
  s->timer.data = s;
  s->open_handles = 1;

  std::string refusal;
  if (text.empty()) {
    refusal = "empty text: Claude's inbox takes a non-empty message";
  } else {
    s->frames = claude_frames(b, msg_id, text);
    if (s->frames.size() > kClaudeMaxFrameBytes) {
      refusal = "the frame is larger than Claude's inbox takes (" + std::to_string(s->frames.size()) + " bytes)";
    } else {
      refusal = claude_push_precheck(b);
    }
  }
  if (!refusal.empty()) {  // reported from the loop, never from inside this call
    s->early = PushResult{PushOutcome::refused, std::move(refusal)};
    uv_timer_start(&s->timer, on_timer, 0, 0);
    return;
  }

  uv_pipe_init(loop, &s->pipe, 0);
  s->pipe.data = s;
  s->pipe_open = true;
  s->open_handles = 2;
  s->connect_req.data = s;
  const auto ms = timeout.count() > 0 ? static_cast<std::uint64_t>(timeout.count()) : 0;
  uv_timer_start(&s->timer, on_timer, ms, 0);
  // libuv reports connect errors (ENOENT, ECONNREFUSED) through the callback, on a later loop iteration.
  uv_pipe_connect(&s->connect_req, &s->pipe, s->socket_path.c_str(), on_connect);
}

}  // namespace agentworks::bridge::native
