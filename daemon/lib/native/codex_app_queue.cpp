#include "native/codex_app_queue.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "agentworks/paths.hpp"
#include "native/websocket_frames.hpp"
#include "platform/uv_handle.hpp"

namespace agentworks::bridge::native {

using nlohmann::json;
namespace ws = websocket;

namespace {

constexpr std::size_t kMaxHead = 16 * 1024;

class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(uv_loop_t* loop, std::string thread_id, std::string text,
           std::function<void(DirectOutcome, std::string)> done)
      : loop_(loop), thread_id_(std::move(thread_id)), text_(std::move(text)), done_(std::move(done)) {}

  void start(const std::string& socket_path, std::chrono::milliseconds timeout) {
    pipe_ = new uv_pipe_t;
    uv_pipe_init(loop_, pipe_, 0);
    pipe_->data = new std::shared_ptr<Exchange>(shared_from_this());
    timer_ = open_timer(loop_, pipe_->data);
    uv_timer_start(
        timer_, [](uv_timer_t* t) { self_of(t)->finish(DirectOutcome::unavailable, "no answer in time"); },
        static_cast<std::uint64_t>(timeout.count()), 0);
    auto* req = new uv_connect_t;
    req->data = pipe_->data;
    uv_pipe_connect(req, pipe_, socket_path.c_str(), [](uv_connect_t* r, int status) {
      auto self = *static_cast<std::shared_ptr<Exchange>*>(r->data);
      delete r;
      self->on_connect(status);
    });
  }

 private:
  static Exchange* self_of(uv_timer_t* t) { return static_cast<std::shared_ptr<Exchange>*>(t->data)->get(); }
  static Exchange* self_of(uv_stream_t* s) { return static_cast<std::shared_ptr<Exchange>*>(s->data)->get(); }

  void on_connect(int status) {
    if (finished_) return;
    if (status != 0) return finish(DirectOutcome::unavailable, std::string("no app server: ") + uv_strerror(status));
    uv_os_fd_t fd = -1;
    uv_fileno(reinterpret_cast<uv_handle_t*>(pipe_), &fd);
    ucred cred{};
    socklen_t len = sizeof cred;
    // Only this user's daemon gets the text (the same check the bridge's own socket makes).
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != ::getuid()) {
      return finish(DirectOutcome::unavailable, "the app server socket is not this user's");
    }
    key_ = ws::new_key();
    write(ws::upgrade_request(key_));
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(pipe_),
        [](uv_handle_t*, size_t, uv_buf_t* buf) {
          static thread_local char block[64 * 1024];
          *buf = uv_buf_init(block, sizeof block);
        },
        [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
          Exchange* self = self_of(s);
          if (n < 0) return self->on_closed(uv_strerror(static_cast<int>(n)));
          if (n > 0) self->on_bytes(std::string_view(buf->base, static_cast<std::size_t>(n)));
        });
  }

  void write(std::string bytes) {
    auto* req = new uv_write_t;
    auto* owned = new std::string(std::move(bytes));
    req->data = owned;
    uv_buf_t buf = uv_buf_init(owned->data(), static_cast<unsigned>(owned->size()));
    uv_write(req, reinterpret_cast<uv_stream_t*>(pipe_), &buf, 1, [](uv_write_t* r, int) {
      delete static_cast<std::string*>(r->data);
      delete r;
    });
  }

  void send(const json& message) {
    write(ws::client_frame(ws::Opcode::text, message.dump(-1, ' ', false, json::error_handler_t::replace),
                           ws::new_mask()));
  }

  void on_bytes(std::string_view bytes) {
    if (finished_) return;
    if (!upgraded_) {
      head_.append(bytes);
      const auto end = head_.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (head_.size() > kMaxHead) finish(DirectOutcome::unavailable, "the app server's answer head is too long");
        return;
      }
      if (!ws::upgrade_accepted(head_.substr(0, end + 4))) {
        return finish(DirectOutcome::unavailable, "the app server refused the WebSocket upgrade");
      }
      upgraded_ = true;
      reader_.feed(std::string_view(head_).substr(end + 4));
      head_.clear();
      send({{"id", 1},
            {"method", "initialize"},
            {"params", {{"clientInfo", {{"name", "agentworks-bridge"}, {"version", "0.1.0"}}},
                        {"capabilities", {{"experimentalApi", true}}}}}});
    } else {
      reader_.feed(bytes);
    }
    while (auto m = reader_.next()) {
      if (finished_) return;
      if (m->opcode == ws::Opcode::ping) {
        write(ws::client_frame(ws::Opcode::pong, m->payload, ws::new_mask()));
      } else if (m->opcode == ws::Opcode::close) {
        return on_closed("the app server closed the connection");
      } else {
        on_message(m->payload);
      }
    }
    if (reader_.failed()) on_closed("the app server broke the WebSocket framing");
  }

  void on_message(const std::string& text) {
    const json m = json::parse(text, nullptr, false);
    if (!m.is_object() || !m.contains("id") || m.contains("method")) return;  // notifications, server requests
    const auto id = m["id"];
    if (id == 1) {
      if (m.contains("error")) return finish(DirectOutcome::unavailable, "initialize refused: " + error_text(m));
      send({{"method", "initialized"}});
      const std::string client_id = "agentworks-" + ws::new_key();
      send({{"id", 2},
            {"method", "thread/queue/add"},
            {"params",
             {{"threadId", thread_id_},
              {"clientUserMessageId", client_id},
              {"input", json::array({{{"type", "text"}, {"text", text_}, {"text_elements", json::array()}}})}}}});
      sent_add_ = true;
    } else if (id == 2) {
      if (m.contains("error")) return finish(DirectOutcome::refused, "thread/queue/add refused: " + error_text(m));
      finish(DirectOutcome::accepted, "queued through Codex's app server");
    }
  }

  static std::string error_text(const json& m) {
    const auto& e = m["error"];
    return e.is_object() && e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>()
                                                                              : e.dump();
  }

  void on_closed(const std::string& why) {
    finish(sent_add_ ? DirectOutcome::ambiguous : DirectOutcome::unavailable, why);
  }

  void finish(DirectOutcome outcome, std::string detail) {
    if (finished_) return;
    finished_ = true;
    if (outcome == DirectOutcome::unavailable && sent_add_) outcome = DirectOutcome::ambiguous;  // the deadline
    close_timer(timer_);
    uv_close(reinterpret_cast<uv_handle_t*>(pipe_), [](uv_handle_t* h) {
      delete static_cast<std::shared_ptr<Exchange>*>(h->data);  // the last owner: the exchange goes with the pipe
      delete reinterpret_cast<uv_pipe_t*>(h);
    });
    auto done = std::move(done_);
    done(outcome, std::move(detail));
  }

  uv_loop_t* loop_;
  std::string thread_id_;
  std::string text_;
  std::function<void(DirectOutcome, std::string)> done_;
  uv_pipe_t* pipe_ = nullptr;
  uv_timer_t* timer_ = nullptr;
  std::string key_;
  std::string head_;
  ws::FrameReader reader_;
  bool upgraded_ = false;
  bool sent_add_ = false;
  bool finished_ = false;
};

}  // namespace

std::string app_server_socket(const CodexBinding& b) {
  constexpr std::string_view kUnix = "unix://";
  if (b.remote.rfind(kUnix, 0) == 0) return b.remote.substr(kUnix.size());
  const std::filesystem::path home =
      b.codex_home.empty() ? paths::home_dir() / ".codex" : std::filesystem::path(b.codex_home);
  return (home / "app-server-control" / "app-server-control.sock").string();
}

void queue_through_app_server(uv_loop_t* loop, const std::string& socket_path, const std::string& thread_id,
                              const std::string& text, std::chrono::milliseconds timeout,
                              std::function<void(DirectOutcome, std::string)> done) {
  auto exchange = std::make_shared<Exchange>(loop, thread_id, text, std::move(done));
  exchange->start(socket_path, timeout);
}

}  // namespace agentworks::bridge::native
