// The server bounds what clients can make it hold (issue items "server spins at the fd limit" and "non-reading
// SSE streams buffer without bound"): a connection cap with a JSON refusal, an absolute deadline for a request
// to arrive, quiet back-off when accept runs out of descriptors, and caps on streams and their unsent output.
#include <gtest/gtest.h>

#include <cstdlib>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "testing/sse_client.hpp"
#include "testing/wait.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

using Clock = std::chrono::steady_clock;

// utime + stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15).
long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(in, text);
  std::istringstream rest(text.substr(text.rfind(')') + 2));  // fields after "(comm)"
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

// VmRSS of a process in KiB.
long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

int open_fd_count(pid_t pid) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) ++n;
  return n;
}

// A client socket with a tiny receive buffer that never reads unless asked: it stands for a stuck client.
class StuckClient {
 public:
  explicit StuckClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int small = 4096;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) throw std::runtime_error("connect failed");
  }
  ~StuckClient() { ::close(fd_); }
  StuckClient(const StuckClient&) = delete;
  StuckClient& operator=(const StuckClient&) = delete;
  void send(const std::string& bytes) {
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }
  // Reads (and drops) everything until the server closes; false when the deadline passes first.
  bool drained_to_close(Clock::time_point deadline) {
    const timeval tv{0, 200000};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[65536];
    while (Clock::now() < deadline) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return true;
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return true;  // reset: closed too
    }
    return false;
  }

 private:
  int fd_ = -1;
};

class HttpLimits : public MessagingTest {
 protected:
  std::uintmax_t log_bytes() {
    std::uintmax_t total = 0;
    for (const auto& e : std::filesystem::directory_iterator(server_->data_dir().parent_path()))
      if (e.path().filename().string().rfind("server.", 0) == 0) total += e.file_size();
    return total;
  }
};

// Issue "no connection limit": over --max-connections a new connection gets a JSON 503 `busy` and is closed; once
// the others close, the server answers again.
TEST_F(HttpLimits, ConnectionsOverTheCapGetJsonBusy) {
  start_server({"--max-connections", "6"});
  // Each held connection is answered before the next opens, so the server has accepted all six before the seventh
  // comes. The server sees a client's close asynchronously: the readiness poll's connection may still count for a
  // moment, and a connection refused for it is dropped and opened again.
  std::vector<std::unique_ptr<Connection>> held;
  for (int i = 0; i < 6; ++i) {
    int unexpected = 0;
    ASSERT_TRUE(wait_until(
        [&] {
          auto c = std::make_unique<Connection>(server_->port());
          HttpResponse answered;
          if (!c->write_all("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n") ||
              !read_response_head(*c, Clock::now() + std::chrono::seconds(10), answered))
            return false;
          if (answered.status == 200) held.push_back(std::move(c));
          else if (answered.status != 503) unexpected = answered.status;
          return answered.status != 503;
        },
        std::chrono::seconds(20)))
        << "connection " << i << " was never served below the cap";
    ASSERT_EQ(unexpected, 0) << "a connection below the cap must be served or refused as busy";
  }

  const HttpResponse refused = HttpClient(server_->url()).get("/v1/health");
  EXPECT_EQ(refused.status, 503) << describe(refused);
  EXPECT_EQ(error_code_of(refused.body), "busy") << describe(refused);
  const auto type = refused.headers.find("content-type");
  EXPECT_TRUE(type != refused.headers.end() && type->second.find("application/json") != std::string::npos)
      << describe(refused);

  held.clear();
  EXPECT_TRUE(wait_until([&] { return HttpClient(server_->url()).get("/v1/health").status == 200; },
                         std::chrono::seconds(20)))
      << server_->log();
}

// Issue "a client that trickles one header byte every 10 s outlives the 60 s timeout": the request deadline runs
// from accept and is not extended by trickling; meanwhile other clients are served.
TEST_F(HttpLimits, TricklingClientIsCutAtTheRequestDeadline) {
  start_server();
  Connection slow(server_->port());
  ASSERT_TRUE(slow.write_all("GET /v1/health HTTP/1.1\r\nX-Slow: "));
  const auto give_up = Clock::now() + std::chrono::seconds(45);  // the default deadline is 15 s
  bool closed = false;
  bool others_served = false;
  while (!closed && Clock::now() < give_up) {
    if (!slow.write_all("a")) {
      closed = true;
      break;
    }
    // A byte every 500 ms; whatever comes back (an error, then EOF) means the server cut us.
    if (slow.read_some(Clock::now() + std::chrono::milliseconds(500)) || slow.eof()) closed = true;
    if (!others_served) others_served = HttpClient(server_->url()).get("/v1/health").status == 200;
  }
  EXPECT_TRUE(closed) << "a trickling client kept its connection for 45 s";
  EXPECT_TRUE(others_served);
  EXPECT_EQ(HttpClient(server_->url()).get("/v1/health").status, 200);
}

// Issue "at the fd limit libevent's accept path loops: 24 s of CPU in 30 s, 615 MB of log lines in 30 s": with
// the descriptor table full, accept backs off and logs rarely; when descriptors free up, the server answers.
TEST_F(HttpLimits, AcceptAtTheFdLimitBacksOffQuietly) {
  start_server();
  const pid_t pid = server_->pid();
  rlimit original{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, nullptr, &original), 0);
  const auto fds = static_cast<rlim_t>(open_fd_count(pid));
  const rlimit tight{fds + 2, original.rlim_max};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &tight, nullptr), 0) << std::strerror(errno);

  std::vector<std::unique_ptr<Connection>> clients;
  for (int i = 0; i < 20; ++i) clients.push_back(std::make_unique<Connection>(server_->port()));  // backlog takes them
  // A measurement window, not a wait for readiness: CPU and log growth are judged over a fixed time.
  const std::uintmax_t log_before = log_bytes();
  const long ticks_before = cpu_ticks(pid);
  const auto window = std::chrono::seconds(5);
  std::this_thread::sleep_for(window);
  const long ticks = cpu_ticks(pid) - ticks_before;
  const std::uintmax_t logged = log_bytes() - log_before;
  const long window_ticks = 5 * ::sysconf(_SC_CLK_TCK);
  EXPECT_LT(ticks, window_ticks / 10) << "the server spun at the fd limit: " << ticks << " of " << window_ticks << " ticks";
  EXPECT_LT(logged, 16u * 1024u) << "the server flooded its log at the fd limit";

  clients.clear();
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &original, nullptr), 0);
  EXPECT_TRUE(wait_until([&] { return HttpClient(server_->url()).get("/v1/health").status == 200; },
                         std::chrono::seconds(20)))
      << server_->log();
  EXPECT_TRUE(server_->running());
}

// Issue "a client that does not read an SSE stream makes the server buffer without bound": at most 4 streams per
// attachment (a new one closes the oldest) and 1 MiB of unsent output per stream; a reading stream gets every
// message and the server's memory stays bounded.
TEST_F(HttpLimits, NonReadingStreamsAreClosedAndMemoryStaysBounded) {
#if defined(__SANITIZE_ADDRESS__)
  // ASan keeps freed blocks in a quarantine (256 MiB by default) that counts as the server's RSS; without it,
  // RSS measures what the server really holds. The server inherits this process's environment.
  const char* asan = std::getenv("ASAN_OPTIONS");
  ::setenv("ASAN_OPTIONS", (std::string(asan != nullptr ? asan : "") + ":quarantine_size_mb=0").c_str(), 1);
#endif
  start_server({"--rate-limit-per-hour", "1000000", "--inbox-history", "5000"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const json att = http_json(owner_http(), "POST", "/v1/attachments",
                             json{{"agent_name", "reviewer"}, {"purpose", "Review PRs"}, {"provider", "claude"},
                                  {"native_session_id", "s1"}}
                                 .dump(),
                             201);
  const std::string path = "/v1/attachments/" + att.at("attachment_id").get<std::string>() + "/stream";
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + owner_token() +
                              "\r\nAccept: text/event-stream\r\n\r\n";
  std::vector<std::unique_ptr<StuckClient>> stuck;
  for (int i = 0; i < 6; ++i) {
    stuck.push_back(std::make_unique<StuckClient>(server_->port()));
    stuck.back()->send(request);
  }
  // The newest stream wins: opened last, the reading stream is never the one closed for the per-attachment cap.
  ASSERT_TRUE(wait_until(
      [&] { return http_json(owner_http(), "GET", "/v1/agents/reviewer", std::nullopt, 200).at("connected") == true; }));
  SseStream reader(server_->url(), path, owner_token());
  ASSERT_EQ(reader.status(), 200) << reader.error_body();
  ASSERT_TRUE(reader.next_event_named("ready").has_value());

  constexpr int kMessages = 1200;
  std::atomic<int> received{0};
  std::atomic<bool> reading{true};
  std::thread read_thread([&] {
    while (reading && received < kMessages) {
      const auto ev = reader.next_event(std::chrono::seconds(30));
      if (!ev) break;
      if (ev->event == "message") ++received;
    }
  });
  std::atomic<long> peak_kib{rss_kib(server_->pid())};
  const long base_kib = peak_kib;
  std::atomic<bool> sampling{true};
  std::thread sampler([&] {
    while (sampling) {
      peak_kib = std::max<long>(peak_kib, rss_kib(server_->pid()));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const std::string text(20000, 'x');
  const std::string body = json{{"agent_name", "worker"}, {"target", "agent:reviewer"}, {"message", text}}.dump();
  std::vector<std::thread> senders;
  std::atomic<int> failed{0};
  for (int t = 0; t < 4; ++t)
    senders.emplace_back([&] {
      for (int i = 0; i < kMessages / 4; ++i)
        if (owner_http().post("/v1/messages", body).status != 201) ++failed;
    });
  for (auto& s : senders) s.join();
  EXPECT_EQ(failed, 0);
  EXPECT_TRUE(wait_until([&] { return received == kMessages; }, std::chrono::seconds(60)))
      << "the reading stream got " << received << " of " << kMessages;
  reading = false;
  read_thread.join();
  sampling = false;
  sampler.join();

  // 1,200 messages of 20 KB are 24 MB per stream: unbounded buffering for the stuck streams would be >100 MB.
  EXPECT_LT(peak_kib - base_kib, 80 * 1024) << "server RSS grew from " << base_kib << " KiB to " << peak_kib << " KiB";
  for (std::size_t i = 0; i < stuck.size(); ++i)
    EXPECT_TRUE(stuck[i]->drained_to_close(Clock::now() + std::chrono::seconds(30)))
        << "stuck stream " << i << " was not closed";
  EXPECT_TRUE(server_->running());
}

}  // namespace
}  // namespace agentworks::testing
