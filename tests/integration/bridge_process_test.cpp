// The bridge process and its private socket, with real agentworks-bridge processes in a temp HOME:
// permissions (R-B9, invariant 9), one bridge for concurrent starts (R-B1, race-free start), robustness of the
// local protocol, foreign uids refused.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>
#include <thread>
#include <vector>

#include "testing/binaries.hpp"
#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

using nlohmann::json;

RunOptions in_home(const TempHome& home) {
  RunOptions o;
  o.env = home.env();
  o.timeout = std::chrono::seconds(30);
  return o;
}

mode_t mode_of(const std::filesystem::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// R-B9: directory 0700, socket 0600, lock file 0600; daemon mode returns once it answers.
TEST(BridgeProcess, DaemonStartsWithPrivateDirAndSocket_RB9) {
  TempHome home;
  const auto r = run_process({bridge_binary()}, in_home(home));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("started"), std::string::npos) << r.out;
  const auto dir = home.bridge_dir();
  EXPECT_EQ(mode_of(dir), 0700u);
  EXPECT_EQ(mode_of(dir / "bridge.sock"), 0600u);
  EXPECT_EQ(mode_of(dir / "bridge.lock"), 0600u);
  EXPECT_EQ(mode_of(home.state_home() / "agentworks" / "journal.db"), 0600u);
  const auto ping = bridge_call(home, {{"op", "ping"}});
  ASSERT_TRUE(ping);
  const pid_t pid = (*ping)["pid"].get<pid_t>();
  EXPECT_TRUE(process_alive(pid));
  const auto stop = bridge_call(home, {{"op", "shutdown"}});
  ASSERT_TRUE(stop);
  EXPECT_EQ((*stop)["ok"], true);
  EXPECT_TRUE(wait_until([&] { return !process_alive(pid); }, std::chrono::seconds(20)));
  EXPECT_FALSE(std::filesystem::exists(dir / "bridge.sock"));  // removed under the lock on a clean stop
}

// Race-free start: concurrent starts leave exactly one bridge (R-B1).
TEST(BridgeProcess, ConcurrentStartsLeaveOneBridge_RB1) {
  TempHome home;
  constexpr int kStarters = 5;
  std::vector<ProcessResult> results(kStarters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kStarters; ++i) {
    threads.emplace_back([&, i] { results[static_cast<std::size_t>(i)] = run_process({bridge_binary()}, in_home(home)); });
  }
  for (auto& t : threads) t.join();
  int started = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    if (r.out.find("started") != std::string::npos) ++started;
  }
  EXPECT_EQ(started, 1);
  const auto ping = bridge_call(home, {{"op", "ping"}});
  ASSERT_TRUE(ping);
  const pid_t pid = (*ping)["pid"].get<pid_t>();
  // Every later connection reaches the same process.
  for (int i = 0; i < 5; ++i) EXPECT_EQ((*bridge_call(home, {{"op", "ping"}}))["pid"].get<pid_t>(), pid);
  // A start after a crash (stale socket, lock released by the kernel) works again.
  ::kill(pid, SIGKILL);
  ASSERT_TRUE(wait_until([&] { return !process_alive(pid); }, std::chrono::seconds(20)));
  EXPECT_TRUE(std::filesystem::exists(home.bridge_socket()));
  const auto again = run_process({bridge_binary()}, in_home(home));
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("started"), std::string::npos) << again.out;
  const auto ping2 = bridge_call(home, {{"op", "ping"}});
  ASSERT_TRUE(ping2);
  EXPECT_NE((*ping2)["pid"].get<pid_t>(), pid);
  bridge_call(home, {{"op", "shutdown"}});
}

// Invariant 9: a symlinked runtime directory makes the bridge refuse to start with a clear message.
TEST(BridgeProcess, SymlinkedRuntimeDirIsRefused_RB9) {
  TempHome home;
  const auto target = home.path("elsewhere");
  std::filesystem::create_directories(target);
  ::chmod(target.c_str(), 0700);
  std::filesystem::create_directories(home.bridge_dir().parent_path());
  std::filesystem::create_directory_symlink(target, home.bridge_dir());
  const auto r = run_process({bridge_binary(), "--foreground"}, in_home(home));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("symlink"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(target / "bridge.sock"));
}

TEST(BridgeProcess, WideRuntimeDirIsRefused_RB9) {
  TempHome home;
  const auto dir = home.bridge_dir();
  std::filesystem::create_directories(dir);
  ::chmod(dir.c_str(), 0755);
  const auto r = run_process({bridge_binary()}, in_home(home));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("0700"), std::string::npos) << r.err;
}

// Nothing a client sends crashes the bridge; errors come back as objects and the connection stays usable.
TEST(BridgeProcess, MalformedRequestsKeepTheConnectionUsable) {
  TempHome home;
  BridgeProcess bridge(home);
  bridge.start();
  BridgeClient c(bridge_socket(home));
  const auto g = c.greeting();
  EXPECT_EQ(g["agentworks_bridge"], 1);
  EXPECT_EQ(g["protocol"], 1);
  EXPECT_TRUE(g["capabilities"].is_array());
  c.mark_greeted();
  const std::vector<std::string> bad = {"garbage", "{\"id\":1", "[]", "{\"id\":2,\"op\":7}", "{\"id\":3,\"op\":\"zz\"}",
                                        std::string("\xff\xfe\x00\x01", 4), "{\"id\":4,\"op\":\"take\",\"provider\":1}",
                                        std::string(2 << 20, 'x')};
  for (const auto& line : bad) {
    ASSERT_TRUE(c.send_raw(line + "\n"));
    const auto answer = c.read_line();
    ASSERT_TRUE(answer) << "no answer to a bad line of " << line.size() << " bytes";
    const auto j = json::parse(*answer);
    EXPECT_TRUE(j.contains("error")) << *answer;
    EXPECT_TRUE(j["error"]["code"].is_string());
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
  }
  const auto ping = c.call({{"op", "ping"}});
  EXPECT_EQ(ping["ok"], true);
  EXPECT_EQ(ping["pid"].get<pid_t>(), bridge.child().pid());
  // A client that disconnects mid-line does not hurt either.
  {
    BridgeClient half(bridge_socket(home));
    half.send_raw("{\"id\":1,\"op\":\"pi");
  }
  EXPECT_EQ(c.call({{"op", "ping"}})["ok"], true);
  EXPECT_EQ(bridge.stop(), 0);
}

// Invariant 9: a connection from another uid is refused (SO_PEERCRED), even when the filesystem would let it in.
TEST(BridgeProcess, ForeignUidIsRefused_RB9) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to run a client under another uid";
  TempHome home;
  BridgeProcess bridge(home);
  bridge.start();
  // Loosen the filesystem on purpose, so only the peer-uid check stands in the way.
  for (auto p = bridge_socket(home).parent_path(); p != home.root().parent_path(); p = p.parent_path()) {
    ::chmod(p.c_str(), 0755);
  }
  ::chmod(bridge_socket(home).c_str(), 0666);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(10);
    try {
      BridgeClient c(bridge_socket(home));
      const auto line = c.read_line(std::chrono::seconds(5));
      _exit(line ? 20 : 0);  // a greeting would mean the foreign uid got in
    } catch (const std::exception&) {
      _exit(11);
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setuid failed, 11: could not connect, 20: foreign uid was greeted";
  EXPECT_NE(bridge.log().find("refused a local connection from uid 65534"), std::string::npos) << bridge.log();
  EXPECT_EQ(bridge_call(home, {{"op", "ping"}}).value_or(json())["ok"], true);
  EXPECT_EQ(bridge.stop(), 0);
}

// Invariant 10: a corrupt journal stops the bridge with a non-zero exit and a clear message.
TEST(BridgeProcess, CorruptJournalRefusesToRun) {
  TempHome home;
  const auto state = home.state_home() / "agentworks";
  std::filesystem::create_directories(state);
  {
    std::ofstream f(state / "journal.db", std::ios::binary);
    f << std::string(8192, 'x');
  }
  const auto r = run_process({bridge_binary(), "--foreground"}, in_home(home));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("cannot start"), std::string::npos) << r.err;
  EXPECT_FALSE(bridge_call(home, {{"op", "ping"}}));
}

}  // namespace
}  // namespace agentworks::testing
