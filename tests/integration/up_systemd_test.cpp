// `agentworks up` through the systemd user units of the package when systemd --user has them (a stand-in
// systemctl on PATH answers as systemd would), and plain processes when the unit does not fit.
#include <gtest/gtest.h>

#include <signal.h>

#include <cstdlib>
#include <fstream>

#include "testing/binaries.hpp"
#include "testing/net_probe.hpp"
#include "testing/process.hpp"
#include "testing/wait.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class UpSystemd : public MessagingTest {
 protected:
  void SetUp() override {
    MessagingTest::SetUp();
    units_dir_ = home_.path("fake-systemd");
    std::filesystem::create_directories(units_dir_);
    port_ = closed_loopback_port();
  }
  void TearDown() override {
    for (const char* unit : {"agentworks-bridge.service", "agentworks-server.service"}) {
      if (const pid_t pid = unit_pid(unit); pid > 0) ::kill(pid, SIGKILL);
    }
    MessagingTest::TearDown();
  }
  EnvOverrides env(const std::filesystem::path& unit_data) const {
    const char* path = std::getenv("PATH");
    return merge_env(home_.env(), {{"PATH", std::string(AGENTWORKS_FAKE_SYSTEMCTL_DIR) + ":" + (path ? path : "")},
                                   {"FAKE_SYSTEMD_DIR", units_dir_.string()},
                                   {"FAKE_SERVER_PORT", std::to_string(port_)},
                                   {"FAKE_SERVER_DATA", unit_data.string()},
                                   {"AGENTWORKS_SERVER_BIN", server_binary()},
                                   {"AGENTWORKS_BRIDGE_BIN", bridge_binary()}});
  }
  std::filesystem::path data_dir() const { return home_.data_home() / "agentworks" / "server"; }
  pid_t unit_pid(const std::string& unit) const {
    std::ifstream in(units_dir_ / (unit + ".pid"));
    long pid = 0;
    in >> pid;
    return static_cast<pid_t>(pid);
  }
  int starts_of(const std::string& unit) const {
    std::ifstream in(units_dir_ / "calls.log");
    std::string line;
    int n = 0;
    while (std::getline(in, line)) n += line == "--user start " + unit;
    return n;
  }

  std::filesystem::path units_dir_;
  int port_ = 0;
};

TEST_F(UpSystemd, UpStartsAndAdoptsTheUnitsAndDownStopsThem) {
  Cli cli(env(data_dir()));
  const CliResult up = cli.json({"up"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(up.exit_code, 0) << up.describe();
  const json first = up.json();
  EXPECT_EQ(first.at("supervisor"), "systemd") << first.dump();
  EXPECT_EQ(first.at("bridge").at("supervisor"), "systemd") << first.dump();
  EXPECT_EQ(first.at("server_url"), "http://127.0.0.1:" + std::to_string(port_));
  EXPECT_EQ(first.at("pid"), unit_pid("agentworks-server.service"));
  EXPECT_EQ(first.at("bridge").at("pid"), unit_pid("agentworks-bridge.service"));
  EXPECT_EQ(first.at("already_running"), false);

  cli_ok(cli, {"messages", "register", "--agent", "reviewer"});
  cli_ok(cli, {"messages", "send", "--agent", "reviewer", "--target", "agent:reviewer", "--message", "unit"});
  EXPECT_EQ(texts_of(read_mailbox(cli, "reviewer")), std::vector<std::string>{"unit"});

  // A second `up` finds both running and starts nothing.
  const CliResult again = cli.json({"up"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.json().at("already_running"), true);
  EXPECT_EQ(again.json().at("bridge").at("already_running"), true);
  EXPECT_EQ(starts_of("agentworks-server.service"), 1);
  EXPECT_EQ(starts_of("agentworks-bridge.service"), 1);

  // After a reboot systemd started a new server before anyone ran `up`: `up` adopts it, with the same data.
  const pid_t old_server = unit_pid("agentworks-server.service");
  ::kill(old_server, SIGKILL);
  ASSERT_TRUE(wait_until([&] { return !process_alive(old_server); }));
  RunOptions as_systemd;
  as_systemd.env = env(data_dir());
  const ProcessResult boot = run_process(
      {std::string(AGENTWORKS_FAKE_SYSTEMCTL_DIR) + "/systemctl", "--user", "start", "agentworks-server.service"},
      as_systemd);
  ASSERT_EQ(boot.exit_code, 0) << boot.err;
  const pid_t booted = unit_pid("agentworks-server.service");
  ASSERT_NE(booted, old_server);
  const CliResult adopt = cli.json({"up"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(adopt.exit_code, 0) << adopt.describe();
  EXPECT_EQ(adopt.json().at("pid"), booted);
  EXPECT_EQ(adopt.json().at("already_running"), true);
  EXPECT_EQ(adopt.json().at("supervisor"), "systemd");
  EXPECT_EQ(texts_of(read_mailbox(cli, "reviewer")), std::vector<std::string>{"unit"});

  const CliResult down = cli.json({"down"}, std::nullopt, std::chrono::seconds(30));
  ASSERT_EQ(down.exit_code, 0) << down.describe();
  EXPECT_TRUE(wait_until([&] { return !process_alive(booted); })) << "the unit's server still runs";
  EXPECT_TRUE(wait_until([&] { return !process_alive(unit_pid("agentworks-bridge.service")); }))
      << "the unit's bridge still runs";
}

// A unit that keeps its data elsewhere (or listens elsewhere) does not serve this `up`: plain processes start,
// and the answer says why the unit was not used.
TEST_F(UpSystemd, AUnitOnAnotherDataDirectoryIsNotUsed) {
  Cli cli(env(home_.path("elsewhere")));
  const CliResult up = cli.json({"up", "--port", std::to_string(port_)}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(up.exit_code, 0) << up.describe();
  const json r = up.json();
  EXPECT_EQ(r.at("supervisor"), "process");
  EXPECT_NE(r.value("systemd_unit_unused", "").find("keeps its data in " + home_.path("elsewhere").string()),
            std::string::npos)
      << r.dump();
  EXPECT_EQ(starts_of("agentworks-server.service"), 0);
  const CliResult down = cli.json({"down"}, std::nullopt, std::chrono::seconds(30));
  EXPECT_EQ(down.exit_code, 0) << down.describe();

  // Nor does one on another port than the one asked for.
  const CliResult other = cli.json({"up", "--port", "0"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(other.exit_code, 0) << other.describe();
  EXPECT_NE(other.json().value("systemd_unit_unused", "").find("--port 0 differs"), std::string::npos)
      << other.json().dump();
  EXPECT_EQ(cli.json({"down"}, std::nullopt, std::chrono::seconds(30)).exit_code, 0);
}

}  // namespace
}  // namespace agentworks::testing
