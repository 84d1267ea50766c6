// full disk for real: a small tmpfs under the server's store and under the bridge's journal.
// The server answers sends with the retryable `unavailable` (503), never `500 internal`, reports nothing as
// accepted that it did not store, and takes the same sends again by itself once space returns. The bridge stops
// with its FATAL line and loses nothing: after space returns and it restarts, every message is offered once.
#include <gtest/gtest.h>

#include <set>

#include "support/bridge_journal_reader.hpp"
#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "support/fault_env.hpp"
#include "testing/cli_runner.hpp"
#include "testing/wait.hpp"
#include "support/server_fault_fixture.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {

constexpr std::size_t kTmpfsBytes = 4u << 20;
const std::string kBody(8000, 'm');  // several WAL pages per message, so the full disk is reached quickly

class ServerDiskFull : public ServerFaultTest {};

// A full disk answers a retryable unavailable, never 500 internal (R-M1).
TEST_F(ServerDiskFull, SendsAnswerUnavailableAndRecoverWhenSpaceReturns_RM1) {
  std::string why;
  auto disk = SmallTmpfs::mount(home_.path("server-data"), kTmpfsBytes, why);
  if (!disk) GTEST_SKIP() << why;
  start_server(disk->dir());
  std::set<std::string> accepted;  // submission ids answered 201
  for (int i = 0; i < 3; ++i) {
    const std::string sid = "before-" + std::to_string(i);
    const auto r = send(sid, text_of(sid));
    ASSERT_EQ(r.status, 201) << r.body;
    accepted.insert(sid);
  }

  disk->fill();
  // The WAL may still reuse pages it already has: send until the store needs a new page and the disk refuses.
  std::string refused;
  for (int i = 0; i < 2000 && refused.empty(); ++i) {
    const std::string sid = "full-" + std::to_string(i);
    const auto r = send(sid, text_of(sid));
    if (r.status == 201) {
      accepted.insert(sid);
      continue;
    }
    ASSERT_EQ(r.status, 503) << "a full disk must answer 503 unavailable: " << r.status << " " << r.body;
    EXPECT_EQ(error_code(r), "unavailable") << r.body;
    refused = sid;
  }
  ASSERT_FALSE(refused.empty()) << "the store never reached the full disk";

  // The CLI shows it as the retryable error, exit 6, while the disk stays full.
  Cli cli(home_.env(), home_.path("cli.json"));
  ASSERT_EQ(cli.login(server_->url(), server_->owner_token()).exit_code, 0);
  const CliResult c = cli.json({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message",
                                text_of("cli-full"), "--submission-id", "cli-full"});
  EXPECT_EQ(c.exit_code, 6) << c.describe();
  EXPECT_EQ(c.error_code(), "unavailable") << c.describe();

  // Space returns: the same server takes the refused sends again, no restart.
  disk->release();
  for (const std::string& sid : {refused, std::string("cli-full")}) {
    HttpResponse r;
    ASSERT_TRUE(wait_until([&] { return (r = send(sid, text_of(sid))).status / 100 == 2; },
                           std::chrono::seconds(20), std::chrono::milliseconds(100)))
        << sid << ": " << r.status << " " << r.body;
    accepted.insert(sid);
  }

  // Nothing accepted is lost, nothing refused was stored, across a crash too.
  server_->restart();
  connect();
  const auto stored = mailbox();
  EXPECT_EQ(stored.size(), accepted.size()) << "the mailbox holds exactly the accepted sends";
  for (const auto& sid : accepted) {
    const auto it = stored.find(text_of(sid));
    EXPECT_EQ(it == stored.end() ? 0 : it->second, 1) << "accepted but not stored exactly once: " << sid;
  }
}

class BridgeDiskFull : public BridgeTest {};

// invariant 10 (journal full-disk errors stop the bridge), R-B5/R-B6: nothing lost, nothing twice.
TEST_F(BridgeDiskFull, JournalOnAFullDiskStopsWithFatalAndLosesNothing) {
  std::string why;
  auto disk = SmallTmpfs::mount(home_.state_home(), kTmpfsBytes, why);
  if (!disk) GTEST_SKIP() << why;
  start_server();
  register_agent(owner(), "worker");
  start_bridge();
  const json take_req = {{"op", "take"}, {"provider", "claude"}, {"session_id", "full"}};
  const auto a = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", "full"}, {"agent_name", "reviewer"},
                       {"purpose", "full-disk test"}});
  ASSERT_TRUE(a.value("ok", false)) << a.dump();

  std::vector<std::string> sent;
  std::map<std::string, int> taken;
  const auto take_all = [&] {
    const json t = call(take_req);
    for (const auto& m : t.value("messages", json::array())) ++taken[m.value("message_id", "")];
  };
  sent.push_back(send_as(owner(), "worker", "agent:reviewer", "before the disk fills").value("message_id", ""));
  ASSERT_TRUE(wait_until([&] { take_all(); return taken.size() == 1; }, std::chrono::seconds(20)));

  disk->fill();
  // Messages keep arriving; caching them in the journal needs space the disk no longer has.
  const bool stopped = wait_until(
      [&] {
        if (sent.size() < 400) {
          sent.push_back(send_as(owner(), "worker", "agent:reviewer", kBody).value("message_id", ""));
        }
        return bridge_->child().wait_exit(std::chrono::milliseconds(10)).has_value();
      },
      std::chrono::seconds(60), std::chrono::milliseconds(1));
  ASSERT_TRUE(stopped) << "the bridge kept running on a full disk";
  EXPECT_NE(bridge_->child().read_stderr().find("FATAL:"), std::string::npos) << bridge_->child().read_stderr();

  // Space returns; a new bridge catches up from its watermark and offers every message exactly once.
  disk->release();
  bridge_.reset();
  start_bridge();
  ASSERT_TRUE(wait_until(
      [&] {
        take_all();
        return taken.size() >= sent.size();
      },
      std::chrono::seconds(60), std::chrono::milliseconds(50)))
      << "offered " << taken.size() << " of " << sent.size();
  for (const auto& id : sent) EXPECT_EQ(taken[id], 1) << "not offered exactly once: " << id;
  EXPECT_EQ(taken.size(), sent.size());
  JournalReader j(home_.state_home() / "agentworks" / "journal.db");
  EXPECT_EQ(j.integrity(), "ok");
}

}  // namespace
}  // namespace agentworks::testing
