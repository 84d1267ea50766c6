// `agentworks up` through the systemd user units of the package when systemd --user has them (a stand-in
// systemctl on PATH answers as systemd would), and plain processes when the unit does not fit.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

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
  // `unit_port`: "fixed" (a unit with its port in ExecStart) or "variable" (the packaged one: 127.0.0.1:
  // ${AGENTWORKS_PORT}, port_ by default, the user's server.env over it).
  EnvOverrides env(const std::filesystem::path& unit_data, const std::string& unit_port = "fixed") const {
    const char* path = std::getenv("PATH");
    return merge_env(home_.env(), {{"PATH", std::string(AGENTWORKS_FAKE_SYSTEMCTL_DIR) + ":" + (path ? path : "")},
                                   {"FAKE_SYSTEMD_DIR", units_dir_.string()},
                                   {"FAKE_SERVER_PORT", std::to_string(port_)},
                                   {"FAKE_SERVER_DATA", unit_data.string()},
                                   {"FAKE_UNIT_PORT", unit_port},
                                   {"AGENTWORKS_SERVER_BIN", server_binary()},
                                   {"AGENTWORKS_BRIDGE_BIN", bridge_binary()}});
  }
  std::filesystem::path unit_env_file() const { return home_.config_home() / "agentworks" / "server.env"; }
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

// A unit that keeps its data elsewhere (or has a fixed port other than the one asked for) does not serve this `up`: plain processes start,
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

  // Nor does a unit with a fixed port other than the one asked for.
  Cli on_data(env(data_dir()));
  const CliResult other = on_data.json({"up", "--port", "0"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(other.exit_code, 0) << other.describe();
  EXPECT_NE(other.json().value("systemd_unit_unused", "").find("--port 0 differs"), std::string::npos)
      << other.json().dump();
  EXPECT_EQ(cli.json({"down"}, std::nullopt, std::chrono::seconds(30)).exit_code, 0);
}

// A listener on 127.0.0.1:`port` (another person's server holding the port), closed with the test.
class PortHolder {
 public:
  explicit PortHolder(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd_, 4) == 0;
  }
  ~PortHolder() {
    if (fd_ >= 0) ::close(fd_);
  }
  PortHolder(const PortHolder&) = delete;
  PortHolder& operator=(const PortHolder&) = delete;
  bool bound() const { return bound_; }

 private:
  int fd_;
  bool bound_ = false;
};

// Whether something accepts connections on 127.0.0.1:`port`.
bool accepting(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (fd >= 0) ::close(fd);
  return ok;
}

// The packaged server unit listens on 127.0.0.1:${AGENTWORKS_PORT}, so two people who enable it on one computer do
// not collide: when another program (the first person's server) holds the unit's default port and nobody chose a
// port yet, `up` records a free one for this person's unit (server.env) and logs in there; later `up`s keep it, and
// `up --port N` moves the unit (restarted) to N. A port someone asked for that is taken is refused, nothing changed.
TEST_F(UpSystemd, EachPersonsUnitKeepsItsOwnPort) {
  PortHolder other_person(port_);
  ASSERT_TRUE(other_person.bound());
  Cli cli(env(data_dir(), "variable"));

  const CliResult refused = cli.json({"up", "--port", std::to_string(port_)}, std::nullopt, std::chrono::seconds(40));
  EXPECT_NE(refused.exit_code, 0) << refused.describe();
  EXPECT_NE(refused.out.find("\"conflict\""), std::string::npos) << refused.describe();
  EXPECT_NE(refused.out.find("agentworks up --port N"), std::string::npos) << refused.describe();
  EXPECT_FALSE(std::filesystem::exists(unit_env_file()));
  EXPECT_EQ(starts_of("agentworks-server.service"), 0);

  const CliResult up = cli.json({"up"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(up.exit_code, 0) << up.describe();
  const json first = up.json();
  EXPECT_EQ(first.at("supervisor"), "systemd") << first.dump();
  const std::string url = first.at("server_url");
  const int own_port = std::stoi(url.substr(url.rfind(':') + 1));
  EXPECT_NE(own_port, port_);
  EXPECT_EQ(read_file(unit_env_file()).find("AGENTWORKS_PORT=" + std::to_string(own_port) + "\n") != std::string::npos,
            true)
      << read_file(unit_env_file());
  EXPECT_EQ(first.at("pid"), unit_pid("agentworks-server.service"));

  // A reboot (the unit's server gone) and `up`: the same port from the same unit.
  const pid_t before = unit_pid("agentworks-server.service");
  ::kill(before, SIGKILL);
  ASSERT_TRUE(wait_until([&] { return !process_alive(before); }));
  const CliResult again = cli.json({"up"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.json().at("server_url"), url);
  EXPECT_EQ(again.json().at("supervisor"), "systemd");
  EXPECT_EQ(starts_of("agentworks-server.service"), 2);

  // After a reboot systemd started the unit before anyone ran `up`; `up --port N` moves it to N (restarted), and the
  // login follows.
  const pid_t running = unit_pid("agentworks-server.service");
  ::kill(running, SIGKILL);
  ASSERT_TRUE(wait_until([&] { return !process_alive(running); }));
  RunOptions as_systemd;
  as_systemd.env = env(data_dir(), "variable");
  const ProcessResult boot = run_process(
      {std::string(AGENTWORKS_FAKE_SYSTEMCTL_DIR) + "/systemctl", "--user", "start", "agentworks-server.service"},
      as_systemd);
  ASSERT_EQ(boot.exit_code, 0) << boot.err;
  ASSERT_TRUE(wait_until([&] { return accepting(own_port); }));
  const int chosen = closed_loopback_port();
  const CliResult moved = cli.json({"up", "--port", std::to_string(chosen)}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(moved.exit_code, 0) << moved.describe();
  EXPECT_EQ(moved.json().at("server_url"), "http://127.0.0.1:" + std::to_string(chosen)) << moved.json().dump();
  EXPECT_EQ(moved.json().at("supervisor"), "systemd");
  EXPECT_NE(read_file(unit_env_file()).find("AGENTWORKS_PORT=" + std::to_string(chosen) + "\n"), std::string::npos);
  cli_ok(cli, {"messages", "register", "--agent", "reviewer"});

  // Doctor names the unit's port and where it comes from; once the login and the unit disagree, it says how to
  // bring them together.
  const auto unit_line = [&] {
    const json report = cli.json({"doctor"}, std::nullopt, std::chrono::seconds(30)).json();
    for (const auto& c : report.at("checks"))
      if (c.at("name") == "server.unit") return c;
    return json();
  };
  const json agreed = unit_line();
  EXPECT_EQ(agreed.value("status", ""), "ok") << agreed.dump();
  EXPECT_NE(agreed.value("found", "").find("127.0.0.1:" + std::to_string(chosen) + " (from " +
                                           unit_env_file().string() + "), running"),
            std::string::npos)
      << agreed.dump();
  std::ofstream(unit_env_file()) << "AGENTWORKS_PORT=" << own_port << "\n";
  const json disagreed = unit_line();
  EXPECT_EQ(disagreed.value("status", ""), "warn") << disagreed.dump();
  EXPECT_NE(disagreed.value("found", "").find("but your login uses http://127.0.0.1:" + std::to_string(chosen)),
            std::string::npos)
      << disagreed.dump();
  EXPECT_EQ(cli.json({"down"}, std::nullopt, std::chrono::seconds(30)).exit_code, 0);
}

}  // namespace
}  // namespace agentworks::testing
