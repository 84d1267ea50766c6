// Several agentworks-server replicas on one PostgreSQL database: whichever replica a client talks to,
// it sees what another committed. Runs in the pg.* registration only (it needs AGENTWORKS_TEST_STORE=postgresql).
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <set>

#include "support/messaging_fixture.hpp"
#include "testing/net_probe.hpp"
#include "testing/pg_admin.hpp"
#include "testing/sse_client.hpp"
#include "testing/test_store.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

class Replicas : public MessagingTest {
 protected:
  void SetUp() override {
    if (!store_is_postgresql()) GTEST_SKIP() << "replicas share a PostgreSQL store: run as pg.Replicas.*";
  }

  // Replica A is the fixture's server_; B (and C) run on the same database with data directories of their own.
  ServerProcess& start_replica(const std::vector<std::string>& extra_args = {}) {
    replicas_.push_back(std::make_unique<ServerProcess>(replica_options(*server_, server_env(), extra_args)));
    return *replicas_.back();
  }
  Identity login_at(const ServerProcess& replica, const std::string& token, const std::string& tag) {
    Cli cli(home_.env(), home_.path(tag + ".json"));
    const CliResult login = cli.login(replica.url(), token);
    if (login.exit_code != 0) throw std::runtime_error("login " + tag + " failed:\n" + login.describe());
    HttpClient http(replica.url(), token);
    return Identity{token, whoami_connection_id(http), cli, http};
  }
  static std::string stream_path(const json& attachment) {
    return "/v1/attachments/" + attachment.at("attachment_id").get<std::string>() + "/stream";
  }
  // Registers reviewer and worker, attaches reviewer and opens its stream on `replica`; null unless it is ready.
  std::unique_ptr<SseStream> reviewer_stream_on(const ServerProcess& replica) {
    register_agent(owner(), "reviewer");
    register_agent(owner(), "worker");
    const json attachment = attach_over_http("reviewer", "session-1");
    auto stream = std::make_unique<SseStream>(replica.url(), stream_path(attachment), owner_token());
    if (stream->status() != 200 || !stream->next_event_named("ready")) return nullptr;
    return stream;
  }
  // Runs SQL as the cluster's superuser in the maintenance database (it works while the replicas' is closed).
  static void sql(const std::string& statement) {
    pg_execute(pg_url_with_database(test_pg_server_url(), "postgres"), statement);
  }

  std::vector<std::unique_ptr<ServerProcess>> replicas_;
};

// A message sent through replica A reaches an SSE stream held by replica B.
TEST_F(Replicas, SendThroughAReachesAStreamHeldByB_R_T2) {
  start_server();
  ServerProcess& b = start_replica();
  const auto stream_holder = reviewer_stream_on(b);
  ASSERT_TRUE(stream_holder) << "no ready stream on B\n" << b.log();
  SseStream& stream = *stream_holder;
  for (int i = 0; i < 5; ++i) send_as(owner(), "worker", "agent:reviewer", "through A " + std::to_string(i));
  for (int i = 0; i < 5; ++i) {
    const auto ev = stream.next_event_named("message");
    ASSERT_TRUE(ev.has_value()) << "message " << i << " never reached the stream on B\n" << b.log();
    EXPECT_EQ(parse_json(ev->data).at("message"), "through A " + std::to_string(i));  // in order, once each
  }
}

// A long poll parked on replica B wakes when replica A commits a message for it.
TEST_F(Replicas, LongPollOnBWakesForASendThroughA_R_T2) {
  start_server();
  ServerProcess& b = start_replica();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const Identity at_b = login_at(b, owner_token(), "owner-at-b");
  Child reader = at_b.cli.start({"messages", "read", "--agent", "reviewer", "--after", "0", "--wait", "25", "--json"},
                                home_.root(), "long-poll-b");
  ASSERT_TRUE(wait_until([&] { return has_tcp_connection_to(reader.pid(), b.port()) || !reader.running(); }))
      << "the reader never connected to B";
  ASSERT_TRUE(reader.running()) << "the read returned before any message was sent: " << reader.read_stdout();
  send_as(owner(), "worker", "agent:reviewer", "wake up");
  const auto exit_code = reader.wait_exit(std::chrono::seconds(40));
  ASSERT_TRUE(exit_code.has_value()) << "the long poll on B never returned";
  EXPECT_EQ(*exit_code, 0) << reader.read_stdout() << reader.read_stderr();
  EXPECT_EQ(texts_of(parse_json(reader.read_stdout())), std::vector<std::string>{"wake up"});
}

// The same submission id sent through A and B at the same moment is one message (dedupe across replicas).
TEST_F(Replicas, SameSubmissionThroughBothAtOnceIsOneMessage_R_T3) {
  start_server({"--rate-limit-per-hour", "1000"});
  ServerProcess& b = start_replica({"--rate-limit-per-hour", "1000"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const Identity at_b = login_at(b, owner_token(), "owner-at-b");
  constexpr int kRounds = 8;
  for (int i = 0; i < kRounds; ++i) {
    const std::string sid = "same-" + std::to_string(i);
    const std::vector<std::string> args = {"messages", "send", "--agent", "worker", "--target", "agent:reviewer",
                                           "--message", "once " + std::to_string(i), "--submission-id", sid};
    auto via_a = std::async(std::launch::async, [&] { return owner().json(args); });
    auto via_b = std::async(std::launch::async, [&] { return at_b.cli.json(args); });
    const CliResult ra = via_a.get();
    const CliResult rb = via_b.get();
    ASSERT_EQ(ra.exit_code, 0) << ra.describe();
    ASSERT_EQ(rb.exit_code, 0) << rb.describe();
    EXPECT_EQ(ra.json().at("message_id"), rb.json().at("message_id")) << ra.describe() << rb.describe();
  }
  const json page = read_mailbox(owner(), "reviewer");
  EXPECT_EQ(page.at("messages").size(), static_cast<std::size_t>(kRounds)) << page.dump();
}

// The per-conversation rate limit counts the sends of every replica.
TEST_F(Replicas, RateLimitCountsSendsThroughEveryReplica_R_T3) {
  start_server({"--rate-limit-per-hour", "3"});
  ServerProcess& b = start_replica({"--rate-limit-per-hour", "3"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const Identity at_b = login_at(b, owner_token(), "owner-at-b");
  send_as(owner(), "worker", "agent:reviewer", "one (A)");
  send_as(at_b.cli, "worker", "agent:reviewer", "two (B)");
  send_as(owner(), "worker", "agent:reviewer", "three (A)");
  const CliResult fourth =
      at_b.cli.json({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", "four (B)"});
  EXPECT_EQ(fourth.error_code(), "rate_limited") << fourth.describe();
  EXPECT_EQ(read_mailbox(owner(), "reviewer").at("messages").size(), 3u);
}

// An attachment made through A fences the older attachment's stream held by B.
TEST_F(Replicas, AttachThroughAFencesTheStreamOnB_R_T1) {
  start_server();
  ServerProcess& b = start_replica();
  register_agent(owner(), "reviewer");
  const json first = attach_over_http("reviewer", "session-1");
  SseStream old_stream(b.url(), stream_path(first), owner_token());
  ASSERT_EQ(old_stream.status(), 200) << old_stream.error_body();
  ASSERT_TRUE(old_stream.next_event_named("ready"));
  attach_over_http("reviewer", "session-2");
  const auto fenced = old_stream.next_event_named("fenced");
  ASSERT_TRUE(fenced.has_value()) << "B's stream was not told of the newer attachment\n" << b.log();
  EXPECT_EQ(parse_json(fenced->data).at("reason"), "superseded");
  EXPECT_TRUE(old_stream.wait_closed());
}

// With every replica's LISTEN connection killed, deliveries resume: the listener reconnects and the safety poll
// reads the rows, so a lost notification delays a delivery but never loses it.
TEST_F(Replicas, ListenerKilledDeliveriesResume_R_T2) {
  start_server();
  ServerProcess& b = start_replica();
  const auto stream_holder = reviewer_stream_on(b);
  ASSERT_TRUE(stream_holder) << "no ready stream on B\n" << b.log();
  SseStream& stream = *stream_holder;
  for (int round = 0; round < 3; ++round) {
    sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentworks-replica-feed'");
    send_as(owner(), "worker", "agent:reviewer", "after kill " + std::to_string(round));
    const auto ev = stream.next_event_named("message");
    ASSERT_TRUE(ev.has_value()) << "round " << round << ": no delivery after the listener was killed\n" << b.log();
    EXPECT_EQ(parse_json(ev->data).at("message"), "after kill " + std::to_string(round));
  }
}

// kill -9 of a replica while clients send through it: every send it accepted is readable exactly once through the
// other replica, and a client that retries through the other replica with the same submission id stores nothing
// twice.
TEST_F(Replicas, KilledReplicaLosesNoAcceptedSendAndDoublesNone_R_T4) {
  start_server({"--rate-limit-per-hour", "100000"});
  ServerProcess& b = start_replica({"--rate-limit-per-hour", "100000"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const Identity at_b = login_at(b, owner_token(), "owner-at-b");
  constexpr int kSends = 30;
  std::atomic<int> sent{0};
  std::set<std::string> accepted_ids;
  auto sender = std::async(std::launch::async, [&] {
    for (int i = 0; i < kSends; ++i) {
      const std::vector<std::string> args = {"messages", "send", "--agent", "worker", "--target", "agent:reviewer",
                                             "--message", "m" + std::to_string(i), "--submission-id",
                                             "kill-" + std::to_string(i)};
      CliResult r = owner().json(args, std::nullopt, std::chrono::seconds(10));
      if (r.exit_code != 0) r = at_b.cli.json(args);  // A is gone: the same submission through B
      if (r.exit_code == 0) accepted_ids.insert(r.json().at("message_id").get<std::string>());
      sent = i + 1;
    }
  });
  ASSERT_TRUE(wait_until([&] { return sent.load() >= kSends / 3; }, std::chrono::seconds(60)));
  server_->kill();
  sender.get();
  EXPECT_EQ(accepted_ids.size(), static_cast<std::size_t>(kSends)) << "every send was accepted once, by A or B";
  const json page = at_b.cli.json({"messages", "read", "--agent", "reviewer", "--after", "0", "--limit", "100"}).json();
  std::multiset<std::string> read_ids;
  std::set<std::string> texts;
  for (const auto& m : page.at("messages")) {
    read_ids.insert(m.at("message_id").get<std::string>());
    texts.insert(m.at("message").get<std::string>());
  }
  EXPECT_EQ(read_ids.size(), static_cast<std::size_t>(kSends)) << page.dump();
  EXPECT_EQ(texts.size(), static_cast<std::size_t>(kSends)) << "a text was stored twice: " << page.dump();
  for (const auto& id : accepted_ids) EXPECT_EQ(read_ids.count(id), 1u) << id;
}

// A replica that loses its database answers `unavailable` (nothing accepted) and recovers by itself.
TEST_F(Replicas, LostDatabaseIsUnavailableThenRecovers_R_T1) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const std::string db = server_->store_url().substr(server_->store_url().rfind('/') + 1);
  sql("ALTER DATABASE \"" + db + "\" ALLOW_CONNECTIONS false");
  sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db + "'");
  const CliResult refused = owner().json(
      {"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", "while down",
       "--submission-id", "down-1"});
  EXPECT_NE(refused.exit_code, 0) << refused.describe();
  EXPECT_EQ(refused.error_code(), "unavailable") << refused.describe();
  sql("ALTER DATABASE \"" + db + "\" ALLOW_CONNECTIONS true");
  const json sent = send_as(owner(), "worker", "agent:reviewer", "while down", {"--submission-id", "down-1"});
  EXPECT_EQ(sent.at("accepted"), true);
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"while down"});
}

}  // namespace
}  // namespace agentworks::testing
