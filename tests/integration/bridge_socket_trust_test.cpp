// Every agentworks program finds the same bridge whatever environment its host passes, and
// none talks to a socket another local user planted. Clients check the socket's directory (this user's, 0700,
// not a symlink) and the listener's uid before they send a byte. The tests that play another user need root
// (CI runs as root); the others run as anyone.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "testing/binaries.hpp"
#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/cli_runner.hpp"
#include "testing/foreign_bridge.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "support/hook_runner.hpp"

#ifndef AGENTWORKS_IMPOSTOR_BRIDGE_BIN
#error "AGENTWORKS_IMPOSTOR_BRIDGE_BIN must be defined by CMake"
#endif

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
constexpr uid_t kOtherUser = 65534;  // nobody

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The impostor process; `record` collects every request line it was sent.
class Impostor {
 public:
  Impostor(const TempHome& home, const fs::path& socket, std::optional<uid_t> uid) : record_(home.path("impostor.log")) {
    std::vector<std::string> argv = {AGENTWORKS_IMPOSTOR_BRIDGE_BIN, socket.string(), record_.string()};
    if (uid) argv.push_back(std::to_string(*uid));
    child_ = Child::start(argv, {}, home.path("impostor.out"), home.path("impostor.err"));
    const bool ready = wait_until([&] { return child_.read_stdout().find("ready") != std::string::npos; },
                                  std::chrono::seconds(20));
    if (!ready) throw std::runtime_error("the impostor did not start: " + child_.read_stderr());
  }
  std::string received() const { return fs::exists(record_) ? read_file(record_) : std::string(); }

 private:
  fs::path record_;
  Child child_;
};

// The Claude hook for `event` with `input`, as Claude Code runs it.
ProcessResult run_hook(const TempHome& home, const std::string& event, const json& input,
                       const EnvOverrides& env_extra = {}) {
  return testing::run_hook(home, "claude", event, input.dump(), env_extra, std::chrono::seconds(30));
}

json stop_event() {
  return {{"session_id", "s-trust-1"}, {"hook_event_name", "Stop"}, {"stop_hook_active", false}, {"cwd", "/"}};
}

json typed(const std::string& prompt) {
  return {{"session_id", "s-trust-1"}, {"hook_event_name", "UserPromptSubmit"}, {"prompt", prompt}, {"cwd", "/"}};
}

// What a person and their agent do that talks to the bridge, each checked to refuse and to send nothing.
void expect_every_client_refuses(const TempHome& home, const Impostor& impostor, const std::string& why) {
  const Cli cli(home.env());
  const auto send = cli.json({"bridge", "message", "send", "--provider", "claude",
                              "--target", "agent:boss", "--message", "confidential text"});
  EXPECT_EQ(send.exit_code, 3) << send.describe();
  EXPECT_EQ(send.error_code(), "forbidden") << send.describe();
  EXPECT_NE(send.out.find(why), std::string::npos) << send.describe();
  EXPECT_NE(send.out.find("nothing was sent"), std::string::npos) << send.describe();

  const auto stop = run_hook(home, "Stop", stop_event());
  EXPECT_EQ(stop.exit_code, 0);
  EXPECT_EQ(stop.out, "") << "the Stop hook must not print what a planted socket answers";

  const auto attach = run_hook(home, "UserPromptSubmit", typed("/agentworks attach secret-name \"secret purpose\""));
  EXPECT_EQ(attach.out.find("IMPOSTOR"), std::string::npos) << attach.out;
  EXPECT_NE(attach.out.find(why), std::string::npos) << "the person is told why: " << attach.out;

  const auto status = cli.json({"daemon", "status"});
  EXPECT_EQ(status.error_code(), "forbidden") << status.describe();

  const auto start = cli.run({"daemon", "start"});
  EXPECT_NE(start.exit_code, 0) << start.describe();
  EXPECT_NE(start.err.find(why), std::string::npos) << start.describe();
  EXPECT_EQ(count_of(start.err, "refusing"), 1u) << "said once: " << start.describe();

  EXPECT_EQ(impostor.received(), "") << "a client sent requests to the impostor";
}

class SocketTrust : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(home_.bridge_dir().parent_path()); }
  void need_root() {
    if (::geteuid() != 0) GTEST_SKIP() << "playing a second local user needs root (CI runs as root)";
  }
  TempHome home_;
};

// another user created the bridge's directory first and listens in it.
TEST_F(SocketTrust, DirectoryPlantedByAnotherUserIsRefusedByEveryClient) {
  need_root();
  const fs::path dir = home_.bridge_dir();
  fs::create_directory(dir);
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chown(dir.c_str(), kOtherUser, kOtherUser), 0);
  ASSERT_EQ(::chmod(home_.root().c_str(), 0755), 0);  // so the other user can reach its directory
  for (fs::path p = dir.parent_path(); p != home_.root(); p = p.parent_path()) ::chmod(p.c_str(), 0755);
  const Impostor impostor(home_, dir / "bridge.sock", kOtherUser);
  expect_every_client_refuses(home_, impostor, "owned by uid 65534");
}

// the directory is the person's, but the process behind the socket runs as another user.
TEST_F(SocketTrust, ListenerRunningAsAnotherUserIsRefused) {
  need_root();
  const fs::path dir = home_.bridge_dir();
  fs::create_directory(dir);
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  const TempDir theirs("aw-other-");
  ASSERT_EQ(::chown(theirs.path().c_str(), kOtherUser, kOtherUser), 0);
  ASSERT_EQ(::chmod(home_.root().c_str(), 0755), 0);
  const Impostor impostor(home_, theirs.path() / "s", kOtherUser);
  fs::rename(theirs.path() / "s", dir / "bridge.sock");
  expect_every_client_refuses(home_, impostor, "runs as uid 65534");
}

// Another user's directory that the person cannot even open (mode 0700) is `forbidden` naming its owner, not an
// internal error: the client runs as an unprivileged user, the directory belongs to root.
TEST_F(SocketTrust, ForeignDirectoryThatCannotBeOpenedIsForbiddenNamingItsOwner) {
  need_root();
  const fs::path dir = home_.bridge_dir();
  fs::create_directory(dir);
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);  // root's, and closed to the person below
  for (fs::path p = dir.parent_path(); p != home_.root().parent_path(); p = p.parent_path()) {
    ASSERT_EQ(::chown(p.c_str(), kOtherUser, kOtherUser), 0) << p;
    ::chmod(p.c_str(), 0755);
  }
  EnvOverrides env = home_.env();
  // setpriv keeps the environment (the temp HOME and XDG folders); runuser would reset HOME.
  const ProcessResult r = run_process({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                       cli_binary(), "daemon", "status", "--json"},
                                      RunOptions{env, std::nullopt, std::chrono::seconds(30), {}});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("\"forbidden\""), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("owned by uid 0"), std::string::npos) << r.out << r.err;
}

// A directory the person owns but left open to others is refused too: nobody else may reach the socket.
TEST_F(SocketTrust, WideDirectoryIsRefused) {
  const fs::path dir = home_.bridge_dir();
  fs::create_directory(dir);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  const Impostor impostor(home_, dir / "bridge.sock", std::nullopt);
  const auto send = Cli(home_.env()).json({"bridge", "message", "send", "--provider", "claude",
                                           "--target", "agent:boss", "--message", "confidential text"});
  EXPECT_EQ(send.error_code(), "forbidden") << send.describe();
  EXPECT_NE(send.out.find("chmod 700"), std::string::npos) << send.describe();
  EXPECT_EQ(run_hook(home_, "Stop", stop_event()).out, "");
  EXPECT_EQ(impostor.received(), "");
}

TEST_F(SocketTrust, SymlinkedDirectoryIsRefused) {
  const TempDir elsewhere("aw-link-");
  ASSERT_EQ(::chmod(elsewhere.path().c_str(), 0700), 0);
  fs::create_directory_symlink(elsewhere.path(), home_.bridge_dir());
  const Impostor impostor(home_, elsewhere.path() / "bridge.sock", std::nullopt);
  const auto send = Cli(home_.env()).json({"bridge", "message", "send", "--provider", "claude",
                                           "--target", "agent:boss", "--message", "confidential text"});
  EXPECT_EQ(send.error_code(), "forbidden") << send.describe();
  EXPECT_NE(send.out.find("symlink"), std::string::npos) << send.describe();
  EXPECT_EQ(impostor.received(), "");
}

// a host that strips the environment (Codex starts MCP servers with HOME, PATH and a few more only)
// or sets XDG_RUNTIME_DIR differently still reaches the one bridge of this user.
TEST_F(SocketTrust, EveryEnvironmentFindsTheSameBridge) {
  BridgeProcess bridge(home_);
  bridge.start();
  const auto expected = bridge_call(home_, {{"op", "ping"}});
  ASSERT_TRUE(expected);
  const EnvOverrides stripped = {{"HOME", home_.home().string()}, {"XDG_CONFIG_HOME", std::nullopt},
                                 {"XDG_STATE_HOME", std::nullopt}, {"XDG_DATA_HOME", std::nullopt},
                                 {"XDG_RUNTIME_DIR", std::nullopt}, {"AGENTWORKS_CONFIG", std::nullopt}};
  const auto other_runtime = home_.path("other-run");
  fs::create_directories(other_runtime);
  for (const auto& env : {home_.env(), stripped, merge_env(home_.env(), {{"XDG_RUNTIME_DIR", other_runtime.string()}})}) {
    const auto r = Cli(env).json({"daemon", "status"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.json()["pid"], (*expected)["pid"]) << r.describe();
    EXPECT_EQ(r.json()["socket"], home_.bridge_socket().string()) << r.describe();
  }
}

// the old fallback under /tmp, which any user could create first, is never used.
TEST_F(SocketTrust, OldTmpFallbackIsNeverUsed) {
  const fs::path old = fs::path("/tmp") / ("agentworks-" + std::to_string(::getuid())) / "bridge.sock";
  if (fs::exists(old.parent_path())) GTEST_SKIP() << old.parent_path() << " exists on this machine; not touching it";
  std::optional<ForeignBridge> planted;
  planted.emplace(old);
  BridgeProcess bridge(home_, {{"XDG_RUNTIME_DIR", std::nullopt}});
  bridge.start();
  const auto r = Cli(merge_env(home_.env(), {{"XDG_RUNTIME_DIR", std::nullopt}})).json({"daemon", "status"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(run_hook(home_, "Stop", stop_event(), {{"XDG_RUNTIME_DIR", std::nullopt}}).out, "");
  EXPECT_EQ(planted->connections(), 0);
  planted.reset();
  fs::remove_all(old.parent_path());
}

}  // namespace
}  // namespace agentworks::testing
