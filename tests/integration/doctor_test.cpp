// `agentworks doctor`: each check's failure and its fix, with the real server, bridge and CLI in a temp HOME and a
// temp project. The agent CLIs are stand-ins on PATH that answer `--version` as the checked versions do (and
// accept `claude plugin …`, which the Claude installer runs); what Claude Code and Codex would write into their
// own settings (the enabled plugin, the hook trust) the tests write in those programs' formats.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <thread>
#include <ctime>

#include "testing/binaries.hpp"
#include "testing/cli_runner.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

void write_text(const fs::path& path, const std::string& text, bool executable = false) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  if (executable) fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A stand-in agentworks server on loopback whose clock is `skew_seconds` off: it answers /v1/health and
// /v1/whoami like the real one, with that Date. (The real server's clock cannot be moved in a test.)
class SkewedServer {
 public:
  explicit SkewedServer(long skew_seconds) : skew_(skew_seconds) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
      throw std::runtime_error("cannot listen on loopback");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~SkewedServer() {
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void serve() {
    while (true) {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        request.append(buffer, static_cast<std::size_t>(n));
      }
      const std::string body = request.rfind("GET /v1/health", 0) == 0
                                   ? R"({"ok":true,"version":"0.1.0"})"
                                   : R"({"connection_id":"conn_skew","kind":"login","account_name":"owner"})";
      const std::time_t then = std::time(nullptr) - skew_;
      std::tm utc{};
      gmtime_r(&then, &utc);
      char date[64];
      std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &utc);
      const std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: " + std::string(date) +
                                 "\r\nContent-Length: " + std::to_string(body.size()) +
                                 "\r\nConnection: close\r\n\r\n" + body;
      if (::write(fd, answer.data(), answer.size()) < 0) {
        // the doctor went away: nothing to answer
      }
      ::close(fd);
    }
  }

  long skew_;
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
};

class Doctor : public BridgeTest {
 protected:
  void SetUp() override {
    start_server();
    fs::create_directories(home_.path("project"));
    project_ = fs::canonical(home_.path("project"));
    const fs::path bin = home_.path("bin");
    write_text(bin / "claude", "#!/bin/sh\n[ \"$1\" = --version ] && echo '2.1.332 (Claude Code)'\nexit 0\n", true);
    write_text(bin / "codex",
               "#!/bin/sh\n[ \"$1\" = --version ] && echo 'codex-cli 0.171.0' && exit 0\n"
               "[ \"$1\" = queue ] && echo 'Usage: codex queue [OPTIONS] --thread <T> --message <M>' && exit 0\n"
               "exit 1\n",
               true);
    const char* path = std::getenv("PATH");
    env_ = merge_env(home_.env(), {{"PATH", bin.string() + ":" + (path != nullptr ? path : "/usr/bin:/bin")},
                                   {"CODEX_HOME", std::nullopt},
                                   {"CLAUDE_CONFIG_DIR", std::nullopt},
                                   {"AGENTWORKS_CLAUDE_BIN", std::nullopt}});
    cli_ = std::make_unique<Cli>(env_);
  }

  // `agentworks doctor --json --project P ARGS`.
  CliResult doctor(const std::vector<std::string>& args = {}, const Cli* cli = nullptr) const {
    std::vector<std::string> all = {"doctor", "--project", project_.string()};
    all.insert(all.end(), args.begin(), args.end());
    return (cli != nullptr ? *cli : *cli_).json(all);
  }

  // The check's (first) line; fails the test when the report has none.
  static json line(const CliResult& r, const std::string& name) {
    const json report = r.json();  // named: the loop must not iterate a dead temporary
    for (const auto& c : report.at("checks")) {
      if (c.at("name") == name) return c;
    }
    ADD_FAILURE() << "no check " << name << " in " << r.describe();
    return json::object();
  }

  void attach(const std::string& provider) {
    const CliResult r = cli_->json({"attach", provider, "--yes", "--project", project_.string()});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
  }

  // What `claude plugin marketplace add … --scope user` and `claude plugin install … --scope project` write.
  void enable_claude_plugin() {
    write_text(project_ / ".claude" / "settings.json", R"({"enabledPlugins":{"agentworks@agentworks":true}})");
    const fs::path marketplace = home_.data_home() / "agentworks" / "claude-marketplace";
    write_text(home_.home() / ".claude" / "settings.json",
               json{{"extraKnownMarketplaces",
                     {{"agentworks", {{"source", {{"source", "directory"}, {"path", marketplace.string()}}}}}}}}
                   .dump());
  }

  fs::path codex_config() const { return home_.home() / ".codex" / "config.toml"; }

  // What Codex's folder-trust prompt writes.
  void trust_codex_project() {
    std::ofstream(codex_config(), std::ios::app) << "\n[projects.\"" << project_.string()
                                                 << "\"]\ntrust_level = \"trusted\"\n";
  }

  // What Codex's /hooks writes when the person trusts each agentworks hook (key FILE:event:group:index).
  void trust_codex_hooks() {
    const fs::path hooks = project_ / ".codex" / "hooks.json";
    std::ofstream out(codex_config(), std::ios::app);
    for (const char* event : {"stop", "user_prompt_submit", "session_start", "session_end"}) {
      out << "\n[hooks.state.\"" << hooks.string() << ":" << event << ":0:0\"]\ntrusted_hash = \"sha256:"
          << std::string(64, 'a') << "\"\n";
    }
  }

  fs::path project_;
  EnvOverrides env_;
  std::unique_ptr<Cli> cli_;
};

// Everything set up for all three providers: every check is ok and the exit code is 0.
TEST_F(Doctor, AllOkWhenServerLoginBridgeHooksAndTrustAreInPlace) {
  start_bridge();
  fs::create_directories(home_.home() / ".codex");
  attach("claude");
  enable_claude_plugin();
  attach("codex");
  trust_codex_project();
  trust_codex_hooks();
  attach("cursor");

  const CliResult r = doctor();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  const json report = r.json();
  EXPECT_EQ(report.at("ok"), true) << r.describe();
  std::set<std::string> names;
  for (const auto& c : report.at("checks")) {
    names.insert(c.at("name").get<std::string>());
    EXPECT_EQ(c.at("status"), "ok") << c.dump();
    EXPECT_TRUE(c.at("fix").is_null()) << c.dump();
    EXPECT_TRUE(c.at("found").is_string() && !c.at("found").get<std::string>().empty()) << c.dump();
  }
  for (const char* name : {"server", "login", "bridge", "hooks.claude", "claude.plugin", "hooks.codex", "codex.trust",
                           "codex.mcp", "hooks.cursor", "claude.cli", "codex.cli", "delivery", "journal.integrity",
                           "journal.quota", "clock"}) {
    EXPECT_EQ(names.count(name), 1u) << name << " missing from " << r.describe();
  }
  EXPECT_NE(line(r, "server").at("found").get<std::string>().find("version 0.1.0"), std::string::npos);
  EXPECT_NE(line(r, "claude.cli").at("found").get<std::string>().find("claude-inbox"), std::string::npos);
  EXPECT_NE(line(r, "codex.cli").at("found").get<std::string>().find("codex-queue"), std::string::npos);

  // The human form: one line per check, and exit 0.
  const CliResult human = cli_->run({"doctor", "--project", project_.string()});
  EXPECT_EQ(human.exit_code, 0) << human.describe();
  EXPECT_NE(human.out.find("ok   bridge: running"), std::string::npos) << human.describe();
}

// --provider names the provider the person uses: its missing hooks fail with the attach command, which fixes it.
TEST_F(Doctor, MissingHooksFailWithTheAttachCommandThatFixesThem) {
  start_bridge();
  const CliResult before = doctor({"--provider", "cursor"});
  EXPECT_EQ(before.exit_code, 1) << before.describe();
  EXPECT_EQ(before.json().at("ok"), false);
  const json missing = line(before, "hooks.cursor");
  EXPECT_EQ(missing.at("status"), "fail") << missing.dump();
  EXPECT_EQ(missing.at("fix"), "agentworks attach cursor --project " + project_.string());
  const json named = before.json();
  for (const auto& c : named.at("checks")) {  // only the named provider's checks
    EXPECT_EQ(c.at("name").get<std::string>().find("claude"), std::string::npos) << c.dump();
    EXPECT_EQ(c.at("name").get<std::string>().find("codex"), std::string::npos) << c.dump();
  }

  // Without --provider a provider without hooks is only a warning; one not set up here at all (Cursor: no
  // ~/.cursor, nothing attached) is named once instead of a warning per check.
  const CliResult all = doctor();
  EXPECT_EQ(line(all, "hooks.claude").at("status"), "warn") << all.describe();
  const json unused = line(all, "providers");
  EXPECT_EQ(unused.at("status"), "ok") << unused.dump();
  EXPECT_NE(unused.at("found").get<std::string>().find("Cursor"), std::string::npos) << unused.dump();
  EXPECT_NE(unused.at("found").get<std::string>().find("--provider cursor"), std::string::npos) << unused.dump();
  const json report = all.json();  // named: the loop must not iterate a dead temporary
  for (const auto& c : report.at("checks"))
    EXPECT_NE(c.at("name"), "hooks.cursor") << "skipped, not warned: " << c.dump();

  attach("cursor");
  const CliResult after = doctor({"--provider", "cursor"});
  EXPECT_EQ(after.exit_code, 0) << after.describe();
  EXPECT_EQ(line(after, "hooks.cursor").at("status"), "ok") << after.describe();
}

// Hooks that run an agentworks-hook that is gone fail, whatever --provider says, until attach rewrites them.
TEST_F(Doctor, HooksPointingAtAMissingHookProgramFail) {
  const fs::path copy = home_.path("gone/agentworks-hook");
  fs::create_directories(copy.parent_path());
  const fs::path real = fs::path(cli_binary()).parent_path().parent_path() / "hooks" / "agentworks-hook";
  fs::copy_file(real, copy);
  fs::permissions(copy, fs::perms::owner_all);
  const Cli with_copy(merge_env(env_, {{"AGENTWORKS_HOOK_BIN", copy.string()}}));
  ASSERT_EQ(with_copy.json({"attach", "cursor", "--yes", "--project", project_.string()}).exit_code, 0);
  fs::remove(copy);

  const CliResult broken = doctor();
  const json hooks = line(broken, "hooks.cursor");
  EXPECT_EQ(hooks.at("status"), "fail") << broken.describe();
  EXPECT_NE(hooks.at("found").get<std::string>().find(copy.string()), std::string::npos) << hooks.dump();
  EXPECT_NE(broken.exit_code, 0);

  attach("cursor");  // the fix: installs again with the agentworks-hook that exists
  EXPECT_EQ(line(doctor(), "hooks.cursor").at("status"), "ok");
}

// Codex skips untrusted hooks silently: the doctor reads Codex's trust (never writes it) and says how to trust.
TEST_F(Doctor, UntrustedCodexHooksFailUntilCodexTrustsThem) {
  start_bridge();
  fs::create_directories(home_.home() / ".codex");
  attach("codex");
  const std::string config_before = slurp(codex_config());

  const CliResult untrusted_project = doctor({"--provider", "codex"});
  EXPECT_NE(untrusted_project.exit_code, 0) << untrusted_project.describe();
  const json folder = line(untrusted_project, "codex.trust");
  EXPECT_EQ(folder.at("status"), "fail") << folder.dump();
  EXPECT_NE(folder.at("found").get<std::string>().find("does not trust the project"), std::string::npos);
  EXPECT_EQ(line(untrusted_project, "codex.mcp").at("status"), "warn");  // read only in a trusted project
  EXPECT_EQ(line(untrusted_project, "hooks.codex").at("status"), "ok");
  EXPECT_EQ(slurp(codex_config()), config_before);  // read, never written

  trust_codex_project();
  const CliResult untrusted_hooks = doctor({"--provider", "codex"});
  const json hooks = line(untrusted_hooks, "codex.trust");
  EXPECT_EQ(hooks.at("status"), "fail") << hooks.dump();
  EXPECT_NE(hooks.at("found").get<std::string>().find("4 of 4 agentworks hooks"), std::string::npos) << hooks.dump();
  EXPECT_NE(hooks.at("fix").get<std::string>().find("/hooks"), std::string::npos) << hooks.dump();
  EXPECT_EQ(line(untrusted_hooks, "codex.mcp").at("status"), "ok") << untrusted_hooks.describe();

  trust_codex_hooks();
  const CliResult trusted = doctor({"--provider", "codex"});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.describe();
  EXPECT_EQ(line(trusted, "codex.trust").at("status"), "ok") << trusted.describe();
}

// A stopped bridge fails with `agentworks daemon start` (exit 6), and that command fixes it.
TEST_F(Doctor, StoppedBridgeFailsWithDaemonStart) {
  const CliResult stopped = doctor({"--provider", "cursor"});
  EXPECT_EQ(stopped.exit_code, 6) << stopped.describe();
  const json bridge = line(stopped, "bridge");
  EXPECT_EQ(bridge.at("status"), "fail") << bridge.dump();
  EXPECT_EQ(bridge.at("fix"), "agentworks daemon start");
  EXPECT_EQ(line(stopped, "delivery").at("status"), "warn");  // cannot run without the bridge: says so

  const CliResult start = cli_->json({"daemon", "start"});
  ASSERT_EQ(start.exit_code, 0) << start.describe();
  const pid_t pid = start.json().at("pid").get<pid_t>();
  const CliResult running = doctor({"--provider", "cursor"});
  EXPECT_EQ(line(running, "bridge").at("status"), "ok") << running.describe();
  EXPECT_NE(line(running, "bridge").at("found").get<std::string>().find(std::to_string(pid)), std::string::npos);
  const CliResult stop = cli_->json({"daemon", "stop"});
  EXPECT_EQ(stop.exit_code, 0) << stop.describe();
  if (process_alive(pid)) ::kill(pid, SIGKILL);
}

// A socket directory or socket open to others fails with the chmod that fixes it, naming the path.
TEST_F(Doctor, WrongModeSocketDirectoryFailsWithChmod) {
  start_bridge();
  ASSERT_EQ(::chmod(home_.bridge_dir().c_str(), 0755), 0);
  const CliResult wide = doctor({"--provider", "cursor"});
  EXPECT_EQ(wide.exit_code, 6) << wide.describe();
  const json bridge = line(wide, "bridge");
  EXPECT_EQ(bridge.at("status"), "fail") << bridge.dump();
  EXPECT_NE(bridge.at("found").get<std::string>().find("0755"), std::string::npos) << bridge.dump();
  EXPECT_EQ(bridge.at("fix"), "chmod 700 " + home_.bridge_dir().string());

  ASSERT_EQ(::chmod(home_.bridge_dir().c_str(), 0700), 0);  // the fix
  EXPECT_EQ(line(doctor({"--provider", "cursor"}), "bridge").at("status"), "ok");

  // The socket itself open to others: its own chmod.
  ASSERT_EQ(::chmod(home_.bridge_socket().c_str(), 0666), 0);
  const json socket = line(doctor({"--provider", "cursor"}), "bridge");
  EXPECT_EQ(socket.at("status"), "fail") << socket.dump();
  EXPECT_EQ(socket.at("fix"), "chmod 600 " + home_.bridge_socket().string());
  ASSERT_EQ(::chmod(home_.bridge_socket().c_str(), 0600), 0);
  EXPECT_EQ(line(doctor({"--provider", "cursor"}), "bridge").at("status"), "ok");
}

// A revoked login fails (exit 3) with the login command; the server itself still answers.
TEST_F(Doctor, RevokedLoginFailsWithTheLoginCommand) {
  start_bridge();
  Identity laptop = create_login(owner_token(), "laptop");
  const Cli laptop_cli(merge_env(env_, {}), home_.path("login-laptop.json"));
  EXPECT_EQ(line(doctor({"--provider", "cursor"}, &laptop_cli), "login").at("status"), "ok");

  http_json(owner_http(), "DELETE", "/v1/connections/" + laptop.connection_id, std::nullopt, 200);
  const CliResult revoked = doctor({"--provider", "cursor"}, &laptop_cli);
  EXPECT_EQ(revoked.exit_code, 3) << revoked.describe();
  const json login = line(revoked, "login");
  EXPECT_EQ(login.at("status"), "fail") << login.dump();
  EXPECT_NE(login.at("found").get<std::string>().find(laptop.connection_id), std::string::npos) << login.dump();
  EXPECT_NE(login.at("fix").get<std::string>().find("agentworks login --server " + server_->url()),
            std::string::npos) << login.dump();
  EXPECT_EQ(line(revoked, "server").at("status"), "ok");
}

// One delivery line per attachment with its route and why; --provider keeps only that provider's chats.
TEST_F(Doctor, DeliveryRouteOfEachAttachmentAndWhy) {
  start_bridge();
  BridgeTest::attach("s-doctor-1", "reviewer");
  const CliResult r = doctor();
  const json delivery = line(r, "delivery");
  EXPECT_NE(delivery.at("found").get<std::string>().find("reviewer (claude:s-doctor-1): stop-hook"),
            std::string::npos) << delivery.dump();
  EXPECT_EQ(delivery.at("status"), "warn") << delivery.dump();  // the Stop hook still delivers
  EXPECT_FALSE(delivery.at("fix").is_null());

  const CliResult cursor_only = doctor({"--provider", "cursor"});
  EXPECT_EQ(line(cursor_only, "delivery").at("found"), "no attached chats") << cursor_only.describe();
}

// A damaged journal fails quick_check, read-only, with the commands that set it aside.
TEST_F(Doctor, DamagedJournalFailsIntegrity) {
  start_bridge();
  EXPECT_EQ(line(doctor({"--provider", "cursor"}), "journal.integrity").at("status"), "ok");
  const std::string quota = line(doctor({"--provider", "cursor"}), "journal.quota").at("found").get<std::string>();
  EXPECT_NE(quota.find("of the 32.0 MiB quota"), std::string::npos) << quota;
  bridge_->stop();
  const fs::path journal = home_.state_home() / "agentworks" / "journal.db";
  fs::remove(home_.state_home() / "agentworks" / "journal.db-wal");
  fs::remove(home_.state_home() / "agentworks" / "journal.db-shm");
  write_text(journal, std::string(8192, 'x'));
  const CliResult damaged = doctor({"--provider", "cursor"});
  const json integrity = line(damaged, "journal.integrity");
  EXPECT_EQ(integrity.at("status"), "fail") << integrity.dump();
  EXPECT_NE(integrity.at("fix").get<std::string>().find("mv " + journal.string()), std::string::npos);
  EXPECT_EQ(slurp(journal), std::string(8192, 'x'));  // opened read-only: untouched
}

// The clock check compares the server's Date with local time: over 60 s fails, over 5 s warns, with the fix.
TEST_F(Doctor, ClockSkewWarnsOverFiveSecondsAndFailsOverSixty) {
  for (const auto& [skew, status] : std::vector<std::pair<long, std::string>>{{120, "fail"}, {20, "warn"}}) {
    const SkewedServer skewed(skew);
    const fs::path config = home_.path("skewed-" + std::to_string(skew) + ".json");
    write_text(config, json{{"server_url", skewed.url()}, {"token", "tok"}}.dump());
    fs::permissions(config, fs::perms::owner_read | fs::perms::owner_write);
    const Cli cli(env_, config);
    const CliResult r = doctor({"--provider", "cursor"}, &cli);
    const json clock = line(r, "clock");
    EXPECT_EQ(clock.at("status"), status) << r.describe();
    EXPECT_NE(clock.at("found").get<std::string>().find("ahead of the server by"), std::string::npos) << clock.dump();
    EXPECT_EQ(clock.at("fix"), "sudo timedatectl set-ntp true");
    EXPECT_EQ(line(r, "server").at("status"), "ok") << r.describe();
    if (status == "fail") {
      EXPECT_NE(r.exit_code, 0) << r.describe();
    }
  }
}

// A bad --provider or --project is a usage error that changes nothing.
TEST_F(Doctor, BadArgumentsAreUsageErrors) {
  EXPECT_EQ(cli_->json({"doctor", "--provider", "vim"}).exit_code, 2);
  const CliResult r = cli_->json({"doctor", "--project", home_.path("missing").string()});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(r.error_code(), "usage");
}

// A fresh machine with no agent CLI: one warning names them all (not one per check), and with the project in the
// home folder each provider's files are listed once, not twice.
TEST_F(Doctor, ProvidersNotSetUpAreNamedOnceAndTheHomeProjectIsListedOnce) {
  start_bridge();
  const char* path = std::getenv("PATH");
  const std::string plain_path = path != nullptr ? path : "/usr/bin:/bin";
  std::stringstream dirs(plain_path);
  for (std::string dir; std::getline(dirs, dir, ':');)
    for (const char* cli : {"claude", "codex"})
      if (!dir.empty() && fs::exists(fs::path(dir) / cli)) GTEST_SKIP() << cli << " is on this machine's PATH";
  const Cli bare(merge_env(env_, {{"PATH", plain_path}}));
  const CliResult r = doctor({}, &bare);
  const json providers = line(r, "providers");
  EXPECT_EQ(providers.at("status"), "warn") << r.describe();
  for (const char* name : {"Claude Code", "Codex", "Cursor"})
    EXPECT_NE(providers.at("found").get<std::string>().find(name), std::string::npos) << providers.dump();
  int provider_lines = 0;
  const json report = r.json();
  for (const auto& c : report.at("checks")) {
    const std::string name = c.at("name").get<std::string>();
    provider_lines += name.find("claude") != std::string::npos || name.find("codex") != std::string::npos ||
                              name.find("cursor") != std::string::npos
                          ? 1
                          : 0;
  }
  EXPECT_EQ(provider_lines, 0) << r.describe();

  const fs::path home = fs::canonical(home_.home());
  const CliResult in_home = bare.json({"doctor", "--provider", "codex", "--project", home.string()});
  const std::string hooks = line(in_home, "hooks.codex").at("found").get<std::string>();
  const std::string file = (home / ".codex" / "hooks.json").string();
  EXPECT_NE(hooks.find(file), std::string::npos) << hooks;
  EXPECT_EQ(hooks.find(file), hooks.rfind(file)) << "listed twice: " << hooks;
}

}  // namespace
}  // namespace agentworks::testing
