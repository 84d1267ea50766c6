// failing storage calls injected with libfiu's POSIX preload into the real processes: fdatasync
// (the commit's durability point) and pwrite (the WAL write) fail with EIO or ENOSPC while the process runs.
// The server refuses with `unavailable` and never reports a send accepted that it did not store; the bridge stops
// with its FATAL line, never hands out a message whose offer it could not persist, and loses nothing.
#include <gtest/gtest.h>

#include <set>

#include "support/bridge_journal_reader.hpp"
#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "support/fault_env.hpp"
#include "testing/wait.hpp"
#include "support/server_fault_fixture.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {

struct Injected {
  const char* name;     // test name suffix
  const char* command;  // fiu-ctrl enable command; failinfo is the errno
};

class ServerFiu : public ServerFaultTest, public ::testing::WithParamInterface<Injected> {};

// R-M1: a failing fdatasync or pwrite under the store answers `unavailable`; once it stops failing the
// same server accepts the refused submissions; after a crash exactly the accepted ones are stored, once each.
TEST_P(ServerFiu, FailingStorageCallAnswersUnavailableAndStoresOnlyWhatItAccepted_RM1) {
  std::string why;
  const auto fifo = home_.path("fiu");
  const auto env = fiu_env(fifo, why);
  if (!env) GTEST_SKIP() << why;
  start_server(home_.path("server-data"), *env);
  std::set<std::string> accepted;
  std::vector<std::string> refused;
  const auto try_send = [&](const std::string& sid) {
    const auto r = send(sid, text_of(sid, 2000));
    if (r.status / 100 == 2) {
      accepted.insert(sid);
    } else {
      EXPECT_EQ(r.status, 503) << sid << ": " << r.body;
      EXPECT_EQ(error_code(r), "unavailable") << r.body;
      refused.push_back(sid);
    }
  };
  for (int i = 0; i < 3; ++i) try_send("ok-" + std::to_string(i));
  ASSERT_EQ(accepted.size(), 3u);

  ASSERT_TRUE(fiu_ctrl(fifo, server_->pid(), GetParam().command)) << "fiu-ctrl could not reach the server";
  for (int i = 0; i < 5; ++i) try_send("failing-" + std::to_string(i));
  EXPECT_EQ(refused.size(), 5u) << "every commit needs the failing call";
  const std::string name = std::string(GetParam().command).substr(12, std::string(GetParam().command).find(',') - 12);
  ASSERT_TRUE(fiu_ctrl(fifo, server_->pid(), "disable name=" + name));

  // Recovers by itself: the refused submissions go through now, and new ones too.
  for (const auto& sid : std::vector<std::string>(refused)) {
    const auto r = send(sid, text_of(sid, 2000));
    ASSERT_EQ(r.status / 100, 2) << sid << ": " << r.status << " " << r.body;
    accepted.insert(sid);
  }
  try_send("after");
  ASSERT_TRUE(accepted.count("after"));

  server_->restart();
  connect();
  const auto stored = mailbox();
  for (const auto& sid : accepted) {
    const auto it = stored.find(text_of(sid, 2000));
    EXPECT_EQ(it == stored.end() ? 0 : it->second, 1) << "accepted but not stored exactly once: " << sid;
  }
  EXPECT_EQ(stored.size(), accepted.size()) << "nothing stored that was not accepted";
}

INSTANTIATE_TEST_SUITE_P(Calls, ServerFiu,
                         ::testing::Values(Injected{"FdatasyncEIO", "enable name=posix/io/sync/fdatasync,failinfo=5"},
                                           Injected{"PwriteENOSPC", "enable name=posix/io/rw/pwrite,failinfo=28"},
                                           Injected{"PwriteEIO", "enable name=posix/io/rw/pwrite,failinfo=5"}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

class BridgeFiu : public BridgeTest {
 protected:
  const json take_req_ = {{"op", "take"}, {"provider", "claude"}, {"session_id", "fiu"}};
  std::filesystem::path fifo() const { return home_.path("fiu"); }
  std::optional<EnvOverrides> env_or_skip(std::string& why) { return fiu_env(fifo(), why); }
  json status_of_session() {
    const json status = call({{"op", "status"}});
    for (const auto& att : status["attachments"])
      if (att["session_id"] == "fiu") return att;
    return json();
  }
  void take_into(std::map<std::string, int>& taken) {
    const json t = call(take_req_);
    for (const auto& m : t.value("messages", json::array())) ++taken[m.value("message_id", "")];
  }
  bool stopped_with_fatal() {
    const bool exited = wait_until([&] { return bridge_->child().wait_exit(std::chrono::milliseconds(10)).has_value(); },
                                   std::chrono::seconds(30));
    return exited && bridge_->child().read_stderr().find("FATAL:") != std::string::npos;
  }
};

// invariant 1 and 10, R-B5: the take's offer cannot be persisted (pwrite fails): the bridge stops with
// FATAL and the take hands out nothing; the next bridge offers those messages, once.
TEST_F(BridgeFiu, TakeWhoseOfferCannotBePersistedHandsOutNothing_RB5) {
  std::string why;
  const auto env = env_or_skip(why);
  if (!env) GTEST_SKIP() << why;
  start_server();
  register_agent(owner(), "worker");
  start_bridge(*env);
  const auto a = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", "fiu"}, {"agent_name", "reviewer"},
                       {"purpose", "fiu test"}});
  ASSERT_TRUE(a.value("ok", false)) << a.dump();
  std::vector<std::string> sent;
  for (int i = 0; i < 2; ++i)
    sent.push_back(send_as(owner(), "worker", "agent:reviewer", "pending " + std::to_string(i)).value("message_id", ""));
  ASSERT_TRUE(wait_until([&] { return status_of_session().value("pending", 0) == 2; }, std::chrono::seconds(20)))
      << status_of_session().dump();

  ASSERT_TRUE(fiu_ctrl(fifo(), bridge_->child().pid(), "enable name=posix/io/rw/pwrite,failinfo=5"));
  BridgeClient client(bridge_socket(home_));
  client.greeting();
  client.mark_greeted();
  json take = take_req_;
  take["id"] = 1;
  ASSERT_TRUE(client.send_raw(take.dump() + "\n"));
  const auto answer = client.read_line(std::chrono::seconds(20));
  if (answer) {
    const json j = json::parse(*answer, nullptr, false);
    EXPECT_TRUE(!j.is_object() || j.value("messages", json::array()).empty())
        << "a take whose offer was not persisted handed out messages: " << *answer;
  }
  ASSERT_TRUE(stopped_with_fatal()) << bridge_->child().read_stderr();

  bridge_.reset();
  start_bridge();
  std::map<std::string, int> taken;
  ASSERT_TRUE(wait_until([&] { take_into(taken); return taken.size() >= sent.size(); }, std::chrono::seconds(30)));
  for (const auto& id : sent) EXPECT_EQ(taken[id], 1) << id;
  JournalReader j(home_.state_home() / "agentworks" / "journal.db");
  EXPECT_EQ(j.integrity(), "ok");
}

// invariant 10, R-B6: caching a received message fails at fdatasync: FATAL, and after a restart the
// bridge catches up from its watermark and offers the message once.
TEST_F(BridgeFiu, ReceiveWhoseCacheCannotBeSyncedStopsAndLosesNothing_RB6) {
  std::string why;
  const auto env = env_or_skip(why);
  if (!env) GTEST_SKIP() << why;
  start_server();
  register_agent(owner(), "worker");
  start_bridge(*env);
  const auto a = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", "fiu"}, {"agent_name", "reviewer"},
                       {"purpose", "fiu test"}});
  ASSERT_TRUE(a.value("ok", false)) << a.dump();
  ASSERT_TRUE(wait_until([&] { return status_of_session().value("stream", "") == "connected"; },
                         std::chrono::seconds(20)))
      << status_of_session().dump();

  ASSERT_TRUE(fiu_ctrl(fifo(), bridge_->child().pid(), "enable name=posix/io/sync/fdatasync,failinfo=5"));
  const std::string id = send_as(owner(), "worker", "agent:reviewer", "arrives while fsync fails").value("message_id", "");
  ASSERT_TRUE(stopped_with_fatal()) << bridge_->child().read_stderr();

  bridge_.reset();
  start_bridge();
  std::map<std::string, int> taken;
  ASSERT_TRUE(wait_until([&] { take_into(taken); return taken.count(id) == 1; }, std::chrono::seconds(30)));
  EXPECT_EQ(taken[id], 1);
  EXPECT_EQ(taken.size(), 1u);
  JournalReader j(home_.state_home() / "agentworks" / "journal.db");
  EXPECT_EQ(j.integrity(), "ok");
}

}  // namespace
}  // namespace agentworks::testing
