// The CLI's command table and dispatch point: one table without duplicates, help and --json on every
// command, documented exit codes (docs/protocol.md "Exit codes"), client-side checks before any network.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "agentworks/config.hpp"
#include "agentworks/random.hpp"
#include "command.hpp"
#include "support/cli_in_process.hpp"

namespace aw = agentworks;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using agentworks::unit::CliRun;

CliRun run(std::vector<std::string> args) { return agentworks::unit::run_cli_captured(std::move(args)); }

std::vector<std::string> words(std::string_view path) {
  std::vector<std::string> out;
  while (!path.empty()) {
    auto space = path.find(' ');
    out.emplace_back(path.substr(0, space));
    if (space == std::string_view::npos) break;
    path.remove_prefix(space + 1);
  }
  return out;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aw-cli-test-" + aw::random_hex(6));
    fs::create_directories(dir_);
    config_ = (dir_ / "config.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string config_;
};

TEST(CliTable, NoDuplicatesAndEveryEntryHasHelpAndGroup) {
  std::set<std::string_view> paths;
  std::set<std::string_view> groups;
  for (const auto& g : aw::cli::group_table()) groups.insert(g.name);
  for (const auto& entry : aw::cli::command_table()) {
    EXPECT_TRUE(paths.insert(entry.path).second) << "duplicate command: " << entry.path;
    EXPECT_FALSE(entry.help.empty()) << entry.path;
    ASSERT_NE(entry.make, nullptr) << entry.path;
    EXPECT_NE(entry.make(), nullptr) << entry.path;
    auto w = words(entry.path);
    if (w.size() > 1) {
      EXPECT_TRUE(groups.count(w.front())) << "group without help: " << w.front();
    }
  }
}

TEST(CliTable, EveryCommandHasHelpWithJsonAndConfig) {
  for (const auto& entry : aw::cli::command_table()) {
    auto args = words(entry.path);
    args.push_back("--help");
    CliRun r = run(args);
    EXPECT_EQ(r.code, 0) << entry.path;
    EXPECT_NE(r.out.find("--json"), std::string::npos) << entry.path << ": " << r.out;
    EXPECT_NE(r.out.find("--config"), std::string::npos) << entry.path;
  }
}

TEST(CliUsage, UnknownCommandIsExit2) {
  CliRun r = run({"bogus"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("agentworks: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bogus"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(usage)"), std::string::npos) << r.err;
}

TEST(CliUsage, MissingRequiredOptionWithJsonPrintsErrorObject) {
  CliRun r = run({"messages", "send", "--json", "--target", "agent:reviewer"});
  EXPECT_EQ(r.code, 2);
  json j = json::parse(r.out);
  EXPECT_EQ(j["error"]["code"], "usage");
  EXPECT_TRUE(j["error"]["message"].is_string());
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(CliTest, NotLoggedInIsExit3WithHint) {
  CliRun r = run({"messages", "list", "--json", "--config", config_});
  EXPECT_EQ(r.code, 3);
  json j = json::parse(r.out);
  EXPECT_EQ(j["error"]["code"], "unauthenticated");
  EXPECT_NE(j["error"]["message"].get<std::string>().find("agentworks up"), std::string::npos);
}

TEST_F(CliTest, R_M4_BadAgentNameIsRejectedBeforeAnyRequest) {
  CliRun r = run({"messages", "register", "--agent", "-bad", "--json", "--config", config_});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(json::parse(r.out)["error"]["code"], "invalid_name");
}

TEST_F(CliTest, R_M10_EmptyOrLongMessageIsRejectedBeforeAnyRequest) {
  CliRun empty = run({"messages", "send", "--target", "agent:reviewer", "--message", "", "--config", config_});
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("(invalid_message)"), std::string::npos) << empty.err;
  CliRun longer = run({"messages", "send", "--target", "agent:reviewer", "--message", std::string(20001, 'x'),
                    "--json", "--config", config_});
  EXPECT_EQ(longer.code, 2);
  EXPECT_EQ(json::parse(longer.out)["error"]["code"], "invalid_message");
}

TEST_F(CliTest, ReadNeedsAgentOrInboxAndWaitInRange) {
  EXPECT_EQ(run({"messages", "read", "--config", config_}).code, 2);
  CliRun r = run({"messages", "read", "--agent", "reviewer", "--wait", "26", "--json", "--config", config_});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(json::parse(r.out)["error"]["code"], "bad_request");
}

TEST_F(CliTest, UnreachableServerIsExit6) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);  // nothing listens there now
  aw::Config c;
  c.server_url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  c.token = "t";
  aw::save_config(config_, c);
  for (auto args : {std::vector<std::string>{"status"}, std::vector<std::string>{"messages", "list"}}) {
    args.insert(args.end(), {"--json", "--config", config_});
    CliRun r = run(args);
    EXPECT_EQ(r.code, 6) << args.front();
    EXPECT_EQ(json::parse(r.out)["error"]["code"], "unreachable");
  }
}

TEST_F(CliTest, LogoutRemovesTheSavedLogin) {
  aw::Config c;
  c.server_url = "http://127.0.0.1:1";
  c.token = "t";
  aw::save_config(config_, c);
  CliRun r = run({"logout", "--json", "--config", config_});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(json::parse(r.out)["logged_out"], true);
  EXPECT_FALSE(fs::exists(config_));
}

}  // namespace
