// The bridge's durable outbox while the server is down (R-B2, invariant 3), with a real
// agentworks-server, agentworks-bridge and CLI in a temp HOME: every accepted ack, reply and send is answered
// `queued` with its submission id long before a client gives up (the CLI waits 30 s), not only the first one;
// once the server is back each is delivered exactly once, also when the caller retried with the same id while it
// was queued; the same id for a different request is `conflict`.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "support/bridge_fixture.hpp"
#include "testing/process_key.hpp"

namespace agentworks::testing {
namespace {

// How long a test waits for each answer: well before the 30 s the CLI and the MCP tools wait for the bridge.
// The old outbox answered only the first request while the server was down; every later caller got no answer.
constexpr std::chrono::seconds kAnswerBound{10};

// A TCP listener on a port that completes connections (kernel backlog) but never reads or answers: a server that
// hangs rather than refusing.
class SilentListener {
 public:
  explicit SilentListener(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 64) != 0) {
      ::close(fd_);
      throw std::runtime_error("cannot listen on port " + std::to_string(port) + ": " + std::strerror(errno));
    }
  }
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  ~SilentListener() { ::close(fd_); }

 private:
  int fd_ = -1;
};

class BridgeOutboxTest : public BridgeTest {
 protected:
  void SetUp() override {
    start_server();
    register_agent(owner(), "worker");
    start_bridge();
    // Attached for this test process, so `agentworks bridge message` run from here acts for this chat (R-C7).
    const json a = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", kSession}, {"agent_name", "reviewer"},
                         {"purpose", "Answers during outages"}, {"process", own_process_key()}});
    if (a.value("ok", false) != true) throw std::runtime_error("attach failed: " + a.dump());
    ASSERT_TRUE(wait_until([&] { return stream_connected(kSession); }));
  }

  // A message from worker to reviewer that the bridge has journaled: something to ack and reply to.
  json incoming(const std::string& text) {
    const json sent = send_as(owner(), "worker", "agent:reviewer", text);
    const bool journaled = wait_until([&] { return lookup("claude", kSession).value("pending", 0L) >= 1; });
    if (!journaled) throw std::runtime_error("the bridge never journaled " + sent.dump());
    return sent;
  }

  // One outbox request as the attached chat, on a fresh connection; throws when no answer comes in kAnswerBound.
  json outbox_call(json request) {
    request["provider"] = "claude";
    request["session_id"] = kSession;
    BridgeClient c(bridge_socket(home_));
    return c.call(request, kAnswerBound);
  }

  static void expect_queued(const json& answer, const std::string& what) {
    EXPECT_EQ(answer.value("ok", false), true) << what << ": " << answer.dump();
    EXPECT_EQ(answer.value("state", ""), "queued") << what << ": " << answer.dump();
    EXPECT_FALSE(answer.value("submission_id", "").empty()) << what << ": " << answer.dump();
  }

  // Waits until the outbox is empty (the server is back and took every item).
  bool outbox_drained() {
    return wait_until([&] { return call({{"op", "status"}})["outbox_queued"] == 0; }, std::chrono::seconds(90),
                      std::chrono::milliseconds(200));
  }

  long count_in_worker_mailbox(const std::string& text) {
    const auto texts = texts_of(read_mailbox(owner(), "worker"));
    return static_cast<long>(std::count(texts.begin(), texts.end(), text));
  }

  static constexpr const char* kSession = "sess-outbox";
};

// R-B2: with the server stopped, five sends, two replies and an ack in a row are each answered
// `queued` with a distinct submission id (the caller's or one the bridge minted); a retry with the same id while
// queued is `queued` again, the same id with another body is `conflict`; after the server returns each is
// delivered exactly once and a retry then answers `sent` without storing anything.
TEST_F(BridgeOutboxTest, EveryRequestIsAnsweredQueuedWhileTheServerIsDown_RB2) {
  const json question = incoming("question before the outage");
  kill_server();

  std::set<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    json req = {{"op", "send"}, {"target", "agent:worker"}, {"message", "outage send " + std::to_string(i)}};
    if (i % 2 == 0) req["submission_id"] = "ob-" + std::to_string(i);  // the caller's own id; else minted
    const json a = outbox_call(req);
    expect_queued(a, "send " + std::to_string(i));
    if (i % 2 == 0) {
      EXPECT_EQ(a.value("submission_id", ""), "ob-" + std::to_string(i));
    }
    ids.insert(a.value("submission_id", ""));
  }
  for (int i = 0; i < 2; ++i) {
    const json a = outbox_call({{"op", "reply"}, {"inbox_id", question["inbox_id"]},
                                {"message", "outage reply " + std::to_string(i)}});
    expect_queued(a, "reply " + std::to_string(i));
    ids.insert(a.value("submission_id", ""));
  }
  const json ack = outbox_call({{"op", "ack"}, {"message_id", question["message_id"]}, {"delivery", "admitted"}});
  expect_queued(ack, "ack");
  ids.insert(ack.value("submission_id", ""));
  EXPECT_EQ(ids.size(), 8u) << "every request has its own submission id";

  // The caller retries while queued: the same id is answered from the journal, never journaled twice.
  const json retry = outbox_call({{"op", "send"}, {"target", "agent:worker"}, {"message", "outage send 0"},
                                  {"submission_id", "ob-0"}});
  expect_queued(retry, "retry of ob-0");
  EXPECT_EQ(retry.value("submission_id", ""), "ob-0");
  const json conflict = outbox_call({{"op", "send"}, {"target", "agent:worker"}, {"message", "another body"},
                                     {"submission_id", "ob-0"}});
  EXPECT_EQ(conflict["error"]["code"], "conflict") << conflict.dump();
  EXPECT_EQ(call({{"op", "status"}})["outbox_queued"], 8);

  restart_server_same_port();
  ASSERT_TRUE(outbox_drained());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(count_in_worker_mailbox("outage send " + std::to_string(i)), 1) << i;
  for (int i = 0; i < 2; ++i) EXPECT_EQ(count_in_worker_mailbox("outage reply " + std::to_string(i)), 1) << i;
  EXPECT_EQ(count_in_worker_mailbox("another body"), 0);
  const json receipt =
      http_json(owner_http(), "GET", "/v1/messages/" + question["message_id"].get<std::string>() + "/receipt",
                std::nullopt, 200);
  EXPECT_EQ(receipt["delivery"]["state"], "admitted");

  // A retry after delivery answers the recorded outcome and stores nothing.
  const json late = outbox_call({{"op", "send"}, {"target", "agent:worker"}, {"message", "outage send 2"},
                                 {"submission_id", "ob-2"}});
  EXPECT_EQ(late.value("state", ""), "sent") << late.dump();
  EXPECT_EQ(count_in_worker_mailbox("outage send 2"), 1);
}

// R-B2: a server that accepts connections but never answers holds the first attempt until the HTTP
// timeout; the caller of that item and every caller behind it are still answered `queued` with their ids within
// the bridge's answer bound, and all are delivered once the real server is back.
TEST_F(BridgeOutboxTest, HungServerStillAnswersEveryCallerQueued_RB2) {
  const int port = server_->port();
  kill_server();
  std::set<std::string> ids;
  {
    SilentListener hung(port);
    for (int i = 0; i < 3; ++i) {
      const json a = outbox_call({{"op", "send"}, {"target", "agent:worker"}, {"message", "hung " + std::to_string(i)}});
      expect_queued(a, "send " + std::to_string(i));
      ids.insert(a.value("submission_id", ""));
    }
  }
  EXPECT_EQ(ids.size(), 3u);
  restart_server_same_port();
  ASSERT_TRUE(outbox_drained());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(count_in_worker_mailbox("hung " + std::to_string(i)), 1) << i;
}

// R-B2, R-C7: `agentworks bridge message send|reply|ack` mint a submission id when none is given and
// print it (human and --json); each is answered `queued` while the server is down, a second invocation with
// --submission-id of the first stores nothing new, and after the outage each is delivered exactly once.
TEST_F(BridgeOutboxTest, CliPrintsItsSubmissionIdAndARetryWithItIsStoredOnce_RB2) {
  const json question = incoming("question for the CLI");
  kill_server();
  Cli cli(home_.env());
  const auto timeout = std::chrono::seconds(40);

  const auto sent = cli.json({"bridge", "message", "send", "--provider", "claude", "--target", "agent:worker",
                              "--message", "cli during outage"},
                             std::nullopt, timeout);
  ASSERT_EQ(sent.exit_code, 0) << sent.describe();
  EXPECT_EQ(sent.json()["state"], "queued") << sent.describe();
  const std::string id = sent.json().value("submission_id", "");
  ASSERT_EQ(id.rfind("sub_", 0), 0u) << sent.describe();

  // The person (or agent) retries with the printed id: answered from the journal, stored once.
  const auto again = cli.run({"bridge", "message", "send", "--provider", "claude", "--target", "agent:worker",
                              "--message", "cli during outage", "--submission-id", id},
                             std::nullopt, timeout);
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_NE(again.out.find(id), std::string::npos) << again.describe();
  EXPECT_NE(again.out.find("Queued"), std::string::npos) << again.describe();

  const auto reply = cli.run({"bridge", "message", "reply", "--provider", "claude", "--inbox",
                              question["inbox_id"], "--message", "cli reply during outage"},
                             std::nullopt, timeout);
  ASSERT_EQ(reply.exit_code, 0) << reply.describe();
  EXPECT_NE(reply.out.find("submission_id sub_"), std::string::npos) << reply.describe();
  const auto ack = cli.json({"bridge", "message", "ack", "--provider", "claude", "--message-id",
                             question["message_id"], "--delivery", "processed", "--submission-id", "cli-ack-1"},
                            std::nullopt, timeout);
  ASSERT_EQ(ack.exit_code, 0) << ack.describe();
  EXPECT_EQ(ack.json()["state"], "queued");
  EXPECT_EQ(ack.json()["submission_id"], "cli-ack-1");
  const auto conflict = cli.json({"bridge", "message", "send", "--provider", "claude", "--target", "agent:worker",
                                  "--message", "not the same text", "--submission-id", id},
                                 std::nullopt, timeout);
  EXPECT_EQ(conflict.exit_code, 5) << conflict.describe();
  EXPECT_EQ(conflict.error_code(), "conflict");
  EXPECT_EQ(call({{"op", "status"}})["outbox_queued"], 3);

  restart_server_same_port();
  ASSERT_TRUE(outbox_drained());
  EXPECT_EQ(count_in_worker_mailbox("cli during outage"), 1);
  EXPECT_EQ(count_in_worker_mailbox("cli reply during outage"), 1);
  EXPECT_EQ(count_in_worker_mailbox("not the same text"), 0);
  const json receipt =
      http_json(owner_http(), "GET", "/v1/messages/" + question["message_id"].get<std::string>() + "/receipt",
                std::nullopt, 200);
  EXPECT_EQ(receipt["delivery"]["state"], "processed");
  // Once delivered, the same invocation answers `sent` with its id and still stores nothing new.
  const auto late = cli.json({"bridge", "message", "send", "--provider", "claude", "--target", "agent:worker",
                              "--message", "cli during outage", "--submission-id", id},
                             std::nullopt, timeout);
  ASSERT_EQ(late.exit_code, 0) << late.describe();
  EXPECT_EQ(late.json()["state"], "sent");
  EXPECT_EQ(late.json()["submission_id"], id);
  EXPECT_EQ(count_in_worker_mailbox("cli during outage"), 1);
}

}  // namespace
}  // namespace agentworks::testing
