// The SQLite server flushes its WAL on a thread of its own (server/store/wal_syncer.hpp): while a flush runs the
// loop keeps answering, the next requests gather into the next commit, and nothing is answered, streamed or
// readable by a long poll before the flush that covers it returned (R-M1 "durably stored before the receipt").
// The flush is held or failed through the test builds' failpoint (server/store/wal_sync_faults.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>

#include "testing/binaries.hpp"
#include "testing/sse_client.hpp"
#include "testing/test_store.hpp"
#include "testing/wait.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class ServerWalSync : public MessagingTest {
 protected:
  void SetUp() override {
    if (store_is_postgresql()) GTEST_SKIP() << "the WAL flush is SQLite's; PostgreSQL commits durably itself";
    if (!programs_have_failpoints()) GTEST_SKIP() << "built without failpoints (the asan and debug presets have them)";
    gate_ = home_.root() / "wal-gate";
  }
  void start_with(const std::string& mode) {
    start_server({}, {{"AGENTWORKS_FAILPOINT", "server.wal_sync_" + mode + ":" + gate_.string()}});
    register_agent(owner(), "reviewer");
    register_agent(owner(), "worker");
  }
  void close_gate() { std::ofstream(gate_) << "held"; }
  void open_gate() { std::filesystem::remove(gate_); }
  // The server's flush has reached the gate and waits there.
  bool flush_held() {
    std::error_code ec;
    return std::filesystem::exists(gate_.string() + ".entered", ec);
  }
  std::future<HttpResponse> send_async(const std::string& text, const std::string& submission_id) {
    const std::string body =
        json{{"target", "agent:reviewer"}, {"agent_name", "worker"}, {"message", text}, {"submission_id", submission_id}}
            .dump();
    return std::async(std::launch::async, [this, body] { return owner_http().post("/v1/messages", body); });
  }
  std::filesystem::path gate_;
};

// R-M1: a send waits for its flush; meanwhile the loop answers other requests and takes the next send into the
// next commit; both receipts come once the flush returns, and the reader sees both messages in order.
TEST_F(ServerWalSync, TheLoopAnswersWhileAFlushIsHeldAndReceiptsWaitForIt_R_M1) {
  start_with("waits_while");
  close_gate();
  auto first = send_async("first", "wal-1");
  ASSERT_TRUE(wait_until([&] { return flush_held(); })) << "the send's flush never started";

  // The loop is not inside the flush: a request that needs no store answers at once.
  const HttpResponse health = owner_http().get("/v1/health");
  EXPECT_EQ(health.status, 200) << health.body << health.error;
  auto second = send_async("second", "wal-2");
  EXPECT_EQ(first.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "a receipt went out before its commit was flushed: " << first.get().body;

  open_gate();
  const HttpResponse r1 = first.get();
  const HttpResponse r2 = second.get();
  ASSERT_EQ(r1.status, 201) << r1.body;
  ASSERT_EQ(r2.status, 201) << r2.body;
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), (std::vector<std::string>{"first", "second"}));
}

// R-M1: a stream does not carry a message whose flush has not returned; it does once the flush returned.
TEST_F(ServerWalSync, AStreamGetsTheMessageOnlyAfterItsFlush_R_M1) {
  start_with("waits_while");
  const json att = attach_over_http("reviewer", "session-wal");
  SseStream stream(server_->url(), "/v1/attachments/" + att.at("attachment_id").get<std::string>() + "/stream",
                   owner_token());
  ASSERT_EQ(stream.status(), 200) << stream.error_body();
  ASSERT_TRUE(stream.next_event_named("ready").has_value());

  close_gate();
  auto sent = send_async("held back", "wal-stream");
  ASSERT_TRUE(wait_until([&] { return flush_held(); }));
  EXPECT_FALSE(stream.next_event_named("message", std::chrono::milliseconds(300)).has_value())
      << "the stream carried a message that was not on disk yet";
  open_gate();
  ASSERT_EQ(sent.get().status, 201);
  const auto message = stream.next_event_named("message");
  ASSERT_TRUE(message.has_value()) << "the flushed message never reached the stream";
  EXPECT_NE(message->data.find("held back"), std::string::npos) << message->data;
}

// R-M1: a failed flush is never a receipt: the send is answered `unavailable`, and its retry with the same
// submission id, once the disk is back, yields exactly one message.
TEST_F(ServerWalSync, AFailedFlushAnswersUnavailableAndTheRetryStoresOneMessage_R_M1) {
  start_with("fails_while");
  close_gate();
  const HttpResponse failed = send_async("retry me", "wal-retry").get();
  EXPECT_EQ(failed.status, 503) << failed.body;
  EXPECT_NE(failed.body.find("\"unavailable\""), std::string::npos) << failed.body;

  open_gate();
  const HttpResponse retried = send_async("retry me", "wal-retry").get();
  ASSERT_EQ(retried.status / 100, 2) << retried.body;
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"retry me"});
  EXPECT_NE(server_->log().find("flushing the WAL failed"), std::string::npos) << server_->log();
}

// R-M1 with flushes in flight side by side: 8 writers send at once on this machine's disk, where a flush costs
// less than the loop's work for the requests waiting, so the server asks for the next flush while one runs
// (server/http/flush_policy.hpp). Every receipt names a stored message, each message is stored once, and each
// writer's messages keep their order.
TEST_F(ServerWalSync, ConcurrentWritersWithFlushesInFlightStoreEachReceiptOnceAndInOrder_R_M1) {
  start_server({"--rate-limit-per-hour", "100000", "--inbox-history", "100000"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  constexpr int kWriters = 8;
  constexpr int kEach = 150;
  std::vector<std::future<std::vector<std::string>>> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.push_back(std::async(std::launch::async, [this, w] {
      const HttpClient http(server_->url(), owner_token());  // one keep-alive connection per writer
      std::vector<std::string> ids;
      for (int i = 0; i < kEach; ++i) {
        const std::string text = "w" + std::to_string(w) + "-" + std::to_string(i);
        const HttpResponse r = http.post(
            "/v1/messages", json{{"target", "agent:reviewer"}, {"agent_name", "worker"}, {"message", text},
                                 {"submission_id", "flight-" + text}}
                                .dump());
        if (r.status != 201) return std::vector<std::string>{"send " + text + " answered " + r.body + r.error};
        ids.push_back(json::parse(r.body).at("message_id").get<std::string>());
      }
      return ids;
    }));
  }
  std::set<std::string> receipts;
  for (auto& writer : writers) {
    const auto ids = writer.get();
    ASSERT_EQ(ids.size(), static_cast<std::size_t>(kEach)) << ids.front();
    receipts.insert(ids.begin(), ids.end());
  }
  ASSERT_EQ(receipts.size(), static_cast<std::size_t>(kWriters * kEach)) << "two receipts named one message";

  std::map<std::string, int> next_of_writer;
  std::set<std::string> stored;
  std::string after = "0";
  for (int page = 0; page < 100 && stored.size() < receipts.size(); ++page) {
    const json j = http_json(owner_http(), "GET", "/v1/messages?agent_name=reviewer&limit=100&after=" + after,
                             std::nullopt, 200);
    ASSERT_TRUE(j.contains("messages")) << j.dump();
    if (j.at("messages").empty()) break;
    for (const auto& m : j.at("messages")) {
      const std::string id = m.at("message_id").get<std::string>();
      EXPECT_TRUE(stored.insert(id).second) << "stored twice: " << id;
      EXPECT_EQ(receipts.count(id), 1U) << "stored without a receipt: " << m.dump();
      const std::string text = m.at("message").get<std::string>();
      const std::string writer = text.substr(0, text.find('-'));
      const int index = std::stoi(text.substr(text.find('-') + 1));
      EXPECT_EQ(index, next_of_writer[writer]) << "out of order for " << writer;
      next_of_writer[writer] = index + 1;
    }
    after = j.at("next_cursor").get<std::string>();
  }
  EXPECT_EQ(stored, receipts) << "a receipted message is missing from the mailbox";
}

}  // namespace
}  // namespace agentworks::testing
