// A tiny HTTP/1.1 server on 127.0.0.1 for the mock model API: one thread per connection, one request per
// connection (every answer says Connection: close), so a slow streamed answer never holds up other requests.
// The handler writes the answer itself, which lets it stream Server-Sent Events with pauses in between.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace agentworks::e2e {

struct HttpRequest {
  std::string method;
  std::string target;                          // path and query, e.g. /v1/messages?beta=true
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;                            // de-chunked
};

// Writes one answer on the connection. Writes after the peer went away are ignored (the writer reports it).
class HttpWriter {
 public:
  explicit HttpWriter(int fd) : fd_(fd) {}
  bool head(int status, const std::string& content_type, long content_length = -1);  // -1: until close
  bool write(const std::string& bytes);
  bool ok() const { return ok_; }

 private:
  int fd_;
  bool ok_ = true;
};

class HttpListener {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpWriter&)>;
  explicit HttpListener(Handler handler);  // binds 127.0.0.1:0 and starts accepting
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;
  ~HttpListener();  // stops accepting, shuts every open connection down, joins all threads

  int port() const { return port_; }

 private:
  void accept_loop();
  void serve(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;
  std::vector<int> open_fds_;
};

}  // namespace agentworks::e2e
