// The Claude session inbox adapter against registration and key files laid out as Claude Code 2.1.332
// writes them (docs/native-routes.md, "Claude session inbox") and real Unix sockets in a temp dir.
// R-N1: only the exact registration (pid, procStart, sessionId) binds; never another session's file.
// R-N3: unknown protocol or version, foreign/loose/symlinked files, a changed process -> route off with a reason.
// R-N4: the frame asks for priority "next", never "now".
// R-N2: connect failure -> refused (nothing written); anything unclean after the connect -> ambiguous.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "agentworks/process_ancestry.hpp"
#include "agentworks/sha256.hpp"
#include "native/claude_inbox.hpp"
#include "support/uv_loop_test.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bridge::native {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kSession = "43363ba9-4a35-485a-8429-821167b8206a";

void write_text(const fs::path& p, const std::string& text, mode_t mode) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  ASSERT_EQ(::chmod(p.c_str(), mode), 0);
}

// A listening (or, after close_listener, stale) Unix socket whose peer behaviour the test chooses.
class UnixServer {
 public:
  enum class Mode { read_all_then_close, close_without_reading, hold_open };

  UnixServer(const std::string& path, Mode mode) : mode_(mode) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    ok_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 && ::listen(fd_, 4) == 0 &&
          ::chmod(path.c_str(), 0600) == 0;
    if (ok_ && mode != Mode::hold_open) thread_ = std::thread([this] { serve(); });
    if (ok_ && mode == Mode::hold_open) thread_ = std::thread([this] { hold(); });
  }
  ~UnixServer() {
    release_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return ok_; }
  std::string received() {
    if (thread_.joinable() && mode_ != Mode::hold_open) thread_.join();
    return received_;
  }
  // Leaves the socket file behind with nobody listening: connect answers ECONNREFUSED.
  void close_listener() {
    release_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
    fd_ = -1;
  }
  int accepted() const { return accepted_; }

 private:
  int accept_one() {
    pollfd p{fd_, POLLIN, 0};
    while (!release_) {
      if (::poll(&p, 1, 50) == 1) {
        ++accepted_;
        return ::accept(fd_, nullptr, nullptr);
      }
    }
    return -1;
  }
  void serve() {
    const int c = accept_one();
    if (c < 0) return;
    if (mode_ == Mode::close_without_reading) {
      pollfd p{c, POLLIN, 0};
      ::poll(&p, 1, 5000);  // the frames are in our receive buffer: closing now resets the writer
      ::close(c);
      return;
    }
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::read(c, buf, sizeof(buf))) > 0) received_.append(buf, static_cast<std::size_t>(n));
    ::close(c);
  }
  void hold() {
    const int c = accept_one();
    if (c < 0) return;
    char buf[4096];
    while (!release_) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 50) == 1 && ::read(c, buf, sizeof(buf)) <= 0) break;
    }
    while (!release_) std::this_thread::sleep_for(10ms);
    ::close(c);
  }

  Mode mode_;
  int fd_ = -1;
  bool ok_ = false;
  std::atomic<bool> release_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
  std::string received_;
};

class ClaudeInboxTest : public agentworks::testing::UvLoopTest {
 protected:
  void SetUp() override {
    std::signal(SIGPIPE, SIG_IGN);  // as the bridge does (run.cpp): a reset peer must be an error, not a signal
    dir_ = agentworks::testing::make_temp_dir("cin_", "/tmp");
    sessions_ = dir_ / "sessions";
    socks_ = dir_ / "cc-socks";
    fs::create_directory(sessions_);
    fs::create_directory(socks_);
    ASSERT_EQ(::chmod(sessions_.c_str(), 0700), 0);
    ASSERT_EQ(::chmod(socks_.c_str(), 0700), 0);
    ASSERT_EQ(::chmod(dir_.c_str(), 0700), 0);
    pid_ = static_cast<long>(::getpid());
    const auto key = process::key_of(pid_);
    ASSERT_TRUE(key.has_value());
    start_ = key->start;
    socket_path_ = (socks_ / (std::to_string(pid_) + ".sock")).string();
    UvLoopTest::SetUp();
  }
  void TearDown() override {
    close_loop();
    if (std::getenv("AGENTWORKS_KEEP_TEST_DIRS") == nullptr) fs::remove_all(dir_);
  }

  // The registration as 2.1.332 writes it (mode 0644 inside the 0700 directory).
  json registration(long pid, const std::string& start, const std::string& socket_path) const {
    return {{"pid", pid},
            {"sessionId", kSession},
            {"cwd", dir_.string()},
            {"startedAt", 1796076893383},
            {"procStart", start},
            {"version", "2.1.332"},
            {"peerProtocol", 1},
            {"peerFeatures", json::array({"notify_idle"})},
            {"kind", "interactive"},
            {"entrypoint", "sdk-cli"},
            {"messagingSocketPath", socket_path},
            {"name", "proj-51"},
            {"status", "idle"}};
  }
  fs::path reg_path(long pid) const { return sessions_ / (std::to_string(pid) + ".json"); }
  fs::path key_path(long pid, const std::string& socket_path) const {
    return sessions_ / (std::to_string(pid) + "." + sha256_hex(socket_path) + ".key");
  }
  void write_reg(const json& reg, long pid) { write_text(reg_path(pid), reg.dump(), 0644); }
  void write_key(long pid, const std::string& start, const std::string& socket_path, mode_t mode = 0600) {
    write_text(key_path(pid, socket_path),
               json{{"peerToken", "16f17f02759b775c576f8a3338bfd3bf"}, {"procStart", start}}.dump(), mode);
  }
  // A complete, valid layout for this test process; tests then break one thing.
  void write_all() {
    write_reg(registration(pid_, start_, socket_path_), pid_);
    write_key(pid_, start_, socket_path_);
  }
  ClaudeBind bind() const { return bind_claude_session(sessions_, pid_, start_, kSession); }

  std::optional<PushResult> push(const ClaudeBinding& b, const std::string& text,
                                 std::chrono::milliseconds timeout = kClaudePushTimeout) {
    std::optional<PushResult> result;
    int calls = 0;
    push_claude(&loop_, b, "msg-1", text, [&](PushResult r) {
      ++calls;
      result = std::move(r);
    }, timeout);
    EXPECT_EQ(calls, 0) << "done must never run from inside push_claude";
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(calls, 1);
    return result;
  }

  fs::path dir_, sessions_, socks_;
  long pid_ = 0;
  std::string start_, socket_path_;
};

// --- binding: R-N1, R-N3 ---

TEST_F(ClaudeInboxTest, AllThreeMatchingBindsWithTokenAndSocket) {  // R-N1
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  ASSERT_TRUE(server.ok());
  write_all();
  const auto bound = bind();
  ASSERT_TRUE(bound.binding.has_value()) << bound.reason;
  EXPECT_EQ(bound.binding->pid, pid_);
  EXPECT_EQ(bound.binding->proc_start, start_);
  EXPECT_EQ(bound.binding->session_id, kSession);
  EXPECT_EQ(bound.binding->socket_path, socket_path_);
  EXPECT_EQ(bound.binding->token, "16f17f02759b775c576f8a3338bfd3bf");
  EXPECT_EQ(bound.binding->version, "2.1.332");
  EXPECT_EQ(bound.binding->entrypoint, "sdk-cli");
  EXPECT_TRUE(bound.reason.empty());
}

TEST_F(ClaudeInboxTest, OnlyThePidsOwnFileIsReadNeverAnotherSessionsWithTheSameId) {  // R-N1
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  // Another process's registration names the same session id and a valid socket: it must not be chosen.
  const long other = pid_ + 100000;
  write_reg(registration(other, start_, socket_path_), other);
  write_key(other, start_, socket_path_);
  const auto bound = bind();
  EXPECT_FALSE(bound.binding.has_value());
  EXPECT_NE(bound.reason.find("missing"), std::string::npos) << bound.reason;
}

TEST_F(ClaudeInboxTest, ProcStartMismatchIsRefused) {  // R-N1, R-N3
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_reg(registration(pid_, start_ + "1", socket_path_), pid_);
  write_key(pid_, start_ + "1", socket_path_);
  const auto bound = bind();
  EXPECT_FALSE(bound.binding.has_value());
  EXPECT_EQ(bound.reason, "registration procStart does not match this process");
}

TEST_F(ClaudeInboxTest, ProcStartAsANumberIsRefused) {  // R-N3: 2.1.332 writes a string; anything else is unknown
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  auto reg = registration(pid_, start_, socket_path_);
  reg["procStart"] = std::stoll(start_);
  write_reg(reg, pid_);
  write_key(pid_, start_, socket_path_);
  EXPECT_FALSE(bind().binding.has_value());
}

TEST_F(ClaudeInboxTest, SessionIdMismatchIsRefused) {  // R-N1
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_all();
  const auto bound = bind_claude_session(sessions_, pid_, start_, "00000000-0000-0000-0000-000000000000");
  EXPECT_FALSE(bound.binding.has_value());
  EXPECT_EQ(bound.reason, "registration sessionId does not match the attached session");
}

TEST_F(ClaudeInboxTest, PidFieldMismatchInsideTheFileIsRefused) {  // R-N1
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_reg(registration(pid_ + 1, start_, socket_path_), pid_);
  write_key(pid_, start_, socket_path_);
  EXPECT_EQ(bind().reason, "registration pid does not match this process");
}

TEST_F(ClaudeInboxTest, UnknownPeerProtocolIsOff) {  // R-N3
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  auto reg = registration(pid_, start_, socket_path_);
  reg["peerProtocol"] = 2;
  write_reg(reg, pid_);
  write_key(pid_, start_, socket_path_);
  const auto bound = bind();
  EXPECT_FALSE(bound.binding.has_value());
  EXPECT_EQ(bound.reason, "Claude Code 2.1.332 speaks an unknown session protocol");
}

TEST_F(ClaudeInboxTest, OldVersionWithoutInboxIsOffWithItsVersionInTheReason) {  // R-N3
  // 2.1.197 writes a registration with peerProtocol 1 but no socket and no key file.
  auto reg = registration(pid_, start_, socket_path_);
  reg["version"] = "2.1.197";
  reg.erase("messagingSocketPath");
  write_reg(reg, pid_);
  const auto bound = bind();
  EXPECT_FALSE(bound.binding.has_value());
  EXPECT_EQ(bound.reason, "Claude Code 2.1.197 has no session inbox the bridge knows");
}

TEST_F(ClaudeInboxTest, UncheckedVersionIsOffEvenWithASocket) {  // R-N3: fail closed on versions nobody checked
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  for (const char* version : {"2.1.331", "2.2.0", "3.0.0", "2.1.332-beta", ""}) {
    auto reg = registration(pid_, start_, socket_path_);
    reg["version"] = version;
    write_reg(reg, pid_);
    write_key(pid_, start_, socket_path_);
    EXPECT_FALSE(bind().binding.has_value()) << version;
  }
}

TEST_F(ClaudeInboxTest, GroupOrWorldReadableKeyIsRefused) {  // R-N3
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_all();
  for (const mode_t mode : {mode_t{0640}, mode_t{0604}, mode_t{0660}}) {
    ASSERT_EQ(::chmod(key_path(pid_, socket_path_).c_str(), mode), 0);
    const auto bound = bind();
    EXPECT_FALSE(bound.binding.has_value()) << std::oct << mode;
    EXPECT_NE(bound.reason.find("other users"), std::string::npos) << bound.reason;
  }
}

TEST_F(ClaudeInboxTest, SymlinkedKeyIsRefused) {  // R-N3
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_reg(registration(pid_, start_, socket_path_), pid_);
  const fs::path real = dir_ / "real.key";
  write_text(real, json{{"peerToken", "t"}, {"procStart", start_}}.dump(), 0600);
  fs::create_symlink(real, key_path(pid_, socket_path_));
  const auto bound = bind();
  EXPECT_FALSE(bound.binding.has_value());
  EXPECT_NE(bound.reason.find("symlink"), std::string::npos) << bound.reason;
}

TEST_F(ClaudeInboxTest, SymlinkedRegistrationIsRefused) {  // R-N3
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_text(dir_ / "real.json", registration(pid_, start_, socket_path_).dump(), 0644);
  fs::create_symlink(dir_ / "real.json", reg_path(pid_));
  write_key(pid_, start_, socket_path_);
  EXPECT_FALSE(bind().binding.has_value());
}

TEST_F(ClaudeInboxTest, KeyProcStartMismatchIsRefused) {  // R-N1
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_reg(registration(pid_, start_, socket_path_), pid_);
  write_key(pid_, start_ + "9", socket_path_);
  EXPECT_EQ(bind().reason, "key file procStart does not match this process");
}

TEST_F(ClaudeInboxTest, KeyOfAnotherSocketIsNotUsed) {  // R-N1: the key is named after the socket path
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_reg(registration(pid_, start_, socket_path_), pid_);
  write_key(pid_, start_, (socks_ / "other.sock").string());
  EXPECT_FALSE(bind().binding.has_value());
}

TEST_F(ClaudeInboxTest, LooseSocketOrSessionsDirIsRefused) {  // R-N3
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_all();
  ASSERT_EQ(::chmod(socks_.c_str(), 0750), 0);
  EXPECT_EQ(bind().reason, "the session's socket directory is not private to this user");
  ASSERT_EQ(::chmod(socks_.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(socket_path_.c_str(), 0666), 0);
  EXPECT_EQ(bind().reason, "the session's socket is not private to this user");
  ASSERT_EQ(::chmod(socket_path_.c_str(), 0600), 0);
  ASSERT_EQ(::chmod(sessions_.c_str(), 0770), 0);
  EXPECT_EQ(bind().reason, "Claude's sessions directory is not private to this user");
  ASSERT_EQ(::chmod(sessions_.c_str(), 0700), 0);
  EXPECT_TRUE(bind().binding.has_value()) << bind().reason;
}

TEST_F(ClaudeInboxTest, MissingSocketIsRefused) {  // R-N3
  write_all();
  EXPECT_NE(bind().reason.find("socket is missing"), std::string::npos);
}

TEST_F(ClaudeInboxTest, ExitedProcessIsRefusedAtBindAndAtPush) {  // R-N1, R-N3: a recycled pid never matches
  // A child that is alive while we read its start time, then exits.
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char c = 0;
    (void)!::read(ready[0], &c, 1);
    ::_exit(0);
  }
  const auto key = process::key_of(child);
  ASSERT_TRUE(key.has_value());
  const std::string sock = (socks_ / (std::to_string(child) + ".sock")).string();
  UnixServer server(sock, UnixServer::Mode::hold_open);
  write_reg(registration(child, key->start, sock), child);
  write_key(child, key->start, sock);
  const auto alive = bind_claude_session(sessions_, child, key->start, kSession);
  ASSERT_TRUE(alive.binding.has_value()) << alive.reason;
  (void)!::write(ready[1], "x", 1);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  const auto gone = bind_claude_session(sessions_, child, key->start, kSession);
  EXPECT_FALSE(gone.binding.has_value());
  EXPECT_EQ(gone.reason, "the Claude process has exited");
  const auto r = push(*alive.binding, "hello");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, PushOutcome::refused) << r->detail;
  EXPECT_EQ(server.accepted(), 0) << "nothing may be written to a process that is gone";
}

TEST(ClaudeInboxPureTest, VersionRangeAndSessionsDir) {  // R-N3
  EXPECT_TRUE(claude_version_known("2.1.332"));
  EXPECT_TRUE(claude_version_known("2.1.400"));
  EXPECT_FALSE(claude_version_known("2.1.197"));
  EXPECT_FALSE(claude_version_known("2.1.331"));
  EXPECT_FALSE(claude_version_known("2.2.0"));
  EXPECT_FALSE(claude_version_known("2.1.332.1"));
  EXPECT_FALSE(claude_version_known("v2.1.332"));
  EXPECT_FALSE(claude_version_known(""));
  EXPECT_TRUE(claude_peer_protocol_known(1));
  EXPECT_FALSE(claude_peer_protocol_known(2));
  EXPECT_EQ(claude_sessions_dir("", "/home/a"), fs::path("/home/a/.claude/sessions"));
  EXPECT_EQ(claude_sessions_dir("/cfg", "/home/a"), fs::path("/cfg/sessions"));
}

// --- frames: R-N4 ---

TEST(ClaudeInboxPureTest, FramesAreAuthThenOneUserFrameWithPriorityNext) {  // R-N4
  ClaudeBinding b;
  b.session_id = kSession;
  b.token = "tok";
  const std::string text = "line 1\n\"quoted\" \\ ünï 🙂";
  const std::string frames = claude_frames(b, "m-42", text);
  ASSERT_EQ(frames.back(), '\n');
  const auto nl = frames.find('\n');
  ASSERT_EQ(frames.find('\n', nl + 1), frames.size() - 1) << "exactly two lines";
  const json auth = json::parse(frames.substr(0, nl));
  const json user = json::parse(frames.substr(nl + 1));
  EXPECT_EQ(auth, (json{{"type", "auth"}, {"token", "tok"}}));
  EXPECT_EQ(user["type"], "user");
  EXPECT_EQ(user["session_id"], kSession);
  EXPECT_EQ(user["msg_id"], "m-42");
  EXPECT_EQ(user["priority"], "next");
  EXPECT_EQ(user["message"], (json{{"role", "user"}, {"content", text}}));
  EXPECT_FALSE(user.contains("from")) << "a from address would ask for receipts on a socket we do not own";
  EXPECT_EQ(frames.find("\"now\""), std::string::npos);
  EXPECT_NO_THROW(claude_frames(b, "m", std::string("bad \xff utf8")));
}

// --- push outcomes: R-N2 ---

TEST_F(ClaudeInboxTest, PushWritesExactlyTheFramesAndIsAcceptedOnCleanClose) {  // R-N2
  UnixServer server(socket_path_, UnixServer::Mode::read_all_then_close);
  write_all();
  const auto bound = bind();
  ASSERT_TRUE(bound.binding.has_value()) << bound.reason;
  const auto r = push(*bound.binding, "hello from the terminal");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, PushOutcome::accepted) << r->detail;
  EXPECT_EQ(server.received(), claude_frames(*bound.binding, "msg-1", "hello from the terminal"));
}

TEST_F(ClaudeInboxTest, StaleSocketWithNoListenerIsRefused) {  // R-N2: ECONNREFUSED, nothing written
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_all();
  const auto bound = bind();
  ASSERT_TRUE(bound.binding.has_value()) << bound.reason;
  server.close_listener();
  const auto r = push(*bound.binding, "hello");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, PushOutcome::refused) << r->detail;
  EXPECT_NE(r->detail.find("ECONNREFUSED"), std::string::npos) << r->detail;
}

TEST_F(ClaudeInboxTest, SocketGoneIsRefused) {  // R-N2: the session exited after binding
  std::optional<ClaudeBinding> b;
  {
    UnixServer server(socket_path_, UnixServer::Mode::hold_open);
    write_all();
    b = bind().binding;
    ASSERT_TRUE(b.has_value());
  }
  fs::remove(socket_path_);
  const auto r = push(*b, "hello");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, PushOutcome::refused) << r->detail;
}

TEST_F(ClaudeInboxTest, PeerThatResetsAfterAcceptIsAmbiguous) {  // R-N2: it may or may not have arrived
  UnixServer server(socket_path_, UnixServer::Mode::close_without_reading);
  write_all();
  const auto bound = bind();
  ASSERT_TRUE(bound.binding.has_value()) << bound.reason;
  const auto r = push(*bound.binding, "hello");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, PushOutcome::ambiguous) << r->detail;
}

TEST_F(ClaudeInboxTest, PeerThatNeverClosesTimesOutAmbiguous) {  // R-N2
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_all();
  const auto bound = bind();
  ASSERT_TRUE(bound.binding.has_value()) << bound.reason;
  const auto r = push(*bound.binding, "hello", 200ms);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, PushOutcome::ambiguous) << r->detail;
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(ClaudeInboxTest, EmptyOrOversizedTextIsRefusedWithoutConnecting) {  // R-N2, Claude's inbound limits
  UnixServer server(socket_path_, UnixServer::Mode::hold_open);
  write_all();
  const auto bound = bind();
  ASSERT_TRUE(bound.binding.has_value()) << bound.reason;
  const auto empty = push(*bound.binding, "");
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->outcome, PushOutcome::refused);
  const auto big = push(*bound.binding, std::string(kClaudeMaxFrameBytes, 'x'));
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->outcome, PushOutcome::refused);
  EXPECT_EQ(server.accepted(), 0);
}

}  // namespace
}  // namespace agentworks::bridge::native
