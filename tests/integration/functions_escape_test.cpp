// An execution that tries to get out of its keeper (R-F2, R-F6): kill -9 of its parent, kill -STOP of its parent,
// a double fork and setsid. Whatever it does, once the call has an outcome nothing of its tree is left running, and
// a timeout still ends it. The processes are found by a marker in their command line (a sleep of a unique length).
#include <gtest/gtest.h>

#include <dirent.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/crew_fixture.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

// Host pids of the processes whose command line holds `marker` as an argument.
std::vector<pid_t> processes_with(const std::string& marker) {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::ifstream in("/proc/" + std::string(e->d_name) + "/cmdline", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string arg;
    while (std::getline(text, arg, '\0')) {
      if (arg == marker) {
        out.push_back(static_cast<pid_t>(pid));
        break;
      }
    }
  }
  ::closedir(d);
  return out;
}

// The keeper launchers started by `parent`: its children started as `agentworks-keeper --launcher` (the keepers
// they fork carry the same command line, one level further down).
std::vector<pid_t> launchers_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const pid_t pid : processes_with("--launcher")) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close_paren = text.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(text.substr(close_paren + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(pid);
  }
  return out;
}

// Whether this machine lets the keeper give an execution a PID namespace (root, or unprivileged user namespaces):
// without one a process that made its own session after its keeper was killed is out of reach.
bool pid_namespaces_allowed() {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::unshare(CLONE_NEWPID) == 0) _exit(0);
    _exit(::unshare(CLONE_NEWUSER) == 0 && ::unshare(CLONE_NEWPID) == 0 ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

class FunctionsEscape : public CrewTest {
 protected:
  // A sleep argument no other process has: "86<6 random digits>.5".
  static std::string marker() {
    static std::mt19937 rng(std::random_device{}());
    return "86" + std::to_string(100000 + rng() % 900000) + ".5";
  }
  // Runs `script` as function `escape` (timeout `timeout_seconds`) to its end; then no process with any of
  // `markers` may be left. Returns the terminal call.
  json run_and_expect_nothing_left(const std::string& script, const std::vector<std::string>& markers,
                                   int timeout_seconds = 30) {
    make_crew("api", json::array({function_decl("escape", {{"timeout_seconds", timeout_seconds}})}),
              {{"tools/escape.sh", script}});
    const std::string id = call_ok("api", "escape").at("call_id").get<std::string>();
    // The marked processes started (or the call ended before they could, which the check below shows).
    wait_until([&] {
      for (const auto& m : markers)
        if (processes_with(m).empty()) return false;
      return true;
    });
    const json done = wait_terminal(id, std::chrono::seconds(60));
    for (const auto& m : markers) {
      // A SIGKILLed process may still be on its way out for a moment; it must not stay.
      EXPECT_TRUE(wait_until([&] { return processes_with(m).empty(); }, std::chrono::seconds(3)))
          << "a process of the call (sleep " << m << ") outlived its outcome: " << done.dump().substr(0, 1500);
    }
    return done;
  }
  void TearDown() override {
    for (const pid_t pid : processes_with_any()) ::kill(pid, SIGKILL);  // never leave one behind on failure
    CrewTest::TearDown();
  }
  std::vector<pid_t> processes_with_any() {
    std::vector<pid_t> all;
    for (const auto& m : used_) {
      const auto p = processes_with(m);
      all.insert(all.end(), p.begin(), p.end());
    }
    return all;
  }
  std::string use(std::string m) {
    used_.push_back(m);
    return m;
  }
  std::vector<std::string> used_;
};

// R-F6: the program kills its keeper (kill -9 $PPID) and leaves a child and a setsid grandchild: the call still gets
// an outcome, and nothing of its tree is left after it.
TEST_F(FunctionsEscape, KillNineOfTheKeeperLeavesNothingRunning_R_F6) {
  if (!pid_namespaces_allowed()) GTEST_SKIP() << "no PID namespaces here (the keeper falls back to a process group)";
  start_server();
  const std::string child = use(marker());
  const std::string session = use(marker());
  const json done = run_and_expect_nothing_left("sleep " + child + " &\nsetsid sleep " + session +
                                                    " &\nsleep 0.2\nkill -9 $PPID\nsleep 0.5\necho after",
                                                {child, session});
  EXPECT_TRUE(done.at("status") == "completed" || done.at("status") == "failed") << done.dump();
}

// R-F2: the program stops its keeper (kill -STOP $PPID): the call still ends at its timeout, as `timeout`, and its
// slot is free again.
TEST_F(FunctionsEscape, StopOfTheKeeperStillEndsAtTheTimeout_R_F2) {
  start_server();
  const std::string child = use(marker());
  const json done = run_and_expect_nothing_left(
      "sleep " + child + " &\nkill -STOP $PPID\nwhile :; do sleep 0.1; done", {child}, /*timeout_seconds=*/1);
  EXPECT_EQ(done.at("status"), "failed") << done.dump();
  EXPECT_EQ(done.at("error").value("code", ""), "timeout") << done.dump();
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200).value("running", -1), 0);
}

// R-F6: a double fork and a setsid daemon left behind by a program that exits at once die with the call.
TEST_F(FunctionsEscape, DoubleForkAndSetsidDieWithTheCall_R_F6) {
  if (!pid_namespaces_allowed()) GTEST_SKIP() << "no PID namespaces here (the keeper falls back to a process group)";
  start_server();
  const std::string orphan = use(marker());
  const std::string daemon = use(marker());
  const json done = run_and_expect_nothing_left(
      "(sleep " + orphan + " &)\nsetsid sh -c 'exec sleep " + daemon + "' &\nsleep 0.3\necho left", {orphan, daemon});
  EXPECT_EQ(done.at("status"), "completed") << done.dump();
}

// R-F2: the keeper launcher (the one process that forks each call's keeper) killed with -9 in the middle of a call:
// that call ends (its keeper got its parent-death signal and took the tree with it), nothing of it is left, and the
// next call runs under a new launcher.
TEST_F(FunctionsEscape, KillNineOfTheKeeperLauncherEndsItsCallsAndTheNextCallRuns_R_F2) {
  start_server();
  const std::string child = use(marker());
  make_crew("api", json::array({function_decl("long"), function_decl("quick")}),
            {{"tools/long.sh", "sleep " + child + "\necho woke"}, {"tools/quick.sh", "echo quick"}});
  const std::string id = call_ok("api", "long").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_until([&] { return !processes_with(child).empty(); })) << "the call's program never started";
  const auto launchers = launchers_of(server_->pid());
  ASSERT_EQ(launchers.size(), 1u) << "one launcher per server thread that runs calls";
  ::kill(launchers.front(), SIGKILL);
  const json done = wait_terminal(id, std::chrono::seconds(30));
  EXPECT_EQ(done.at("status"), "failed") << done.dump();
  EXPECT_EQ(done.at("error").value("code", ""), "killed") << done.dump();
  EXPECT_TRUE(wait_until([&] { return processes_with(child).empty(); }, std::chrono::seconds(3)))
      << "the call's program outlived its launcher's death";
  const json next = wait_terminal(call_ok("api", "quick").at("call_id").get<std::string>());
  EXPECT_EQ(next.at("status"), "completed") << next.dump();
  EXPECT_EQ(next.value("answer", ""), "quick") << next.dump();
  const auto now = launchers_of(server_->pid());
  ASSERT_EQ(now.size(), 1u);
  EXPECT_NE(now.front(), launchers.front());
}

// Decision 0006: inside its PID namespace an execution has a /proc of its own, so $$ and /proc agree (sandboxes
// such as bubblewrap, which Codex runs its commands in, open /proc/<own pid>).
TEST_F(FunctionsEscape, AnExecutionSeesItsOwnProc) {
  if (!pid_namespaces_allowed()) GTEST_SKIP() << "no PID namespaces here (the keeper falls back to a process group)";
  start_server();
  make_crew("api", json::array({function_decl("proc")}),
            {{"tools/proc.sh", "[ \"$(readlink /proc/$$/ns/pid)\" = \"$(readlink /proc/self/ns/pid)\" ] && "
                               "[ \"$(ls /proc | grep -c '^[0-9]')\" -lt 20 ] && echo own"}});
  const json done = wait_terminal(call_ok("api", "proc").at("call_id").get<std::string>());
  EXPECT_EQ(done.at("status"), "completed") << done.dump();
  EXPECT_EQ(answer_of(done), "own") << done.dump();
}

}  // namespace
}  // namespace agentworks::testing
