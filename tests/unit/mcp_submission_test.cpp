// The submission id of the messaging tools and `agentworks bridge message` (R-B2): minted once per
// call when the caller gives none, and reused unchanged when the call retries a request that got no answer, so
// the bridge stores it once; other failures are not retried.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "mcp/messaging.hpp"
#include "mcp/tools.hpp"

namespace aw = agentworks;
namespace mcp = agentworks::cli::mcp;
using nlohmann::json;

namespace {

// A bridge stand-in: records every request and fails the first `failures` of them with `error`.
struct FakeBridge {
  std::vector<json> requests;
  int failures = 0;
  std::function<void()> fail;

  mcp::BridgeSend sender() {
    return [this](const json& request) {
      requests.push_back(request);
      if (static_cast<int>(requests.size()) <= failures) fail();
      return json{{"ok", true}, {"state", "queued"}, {"submission_id", request.value("submission_id", "")}};
    };
  }
};

void no_answer() { throw aw::bridge_client::NoAnswer(aw::ErrorCode::unreachable, "the bridge did not answer in time"); }

TEST(McpSubmissionId, MintedOncePerOutboxCallAndKeptWhenGiven_RB2) {
  for (const std::string op : {"ack", "reply", "send"}) {
    json a = {{"message", "x"}};
    json b = {{"message", "x"}};
    const auto id_a = mcp::ensure_submission_id(op, a);
    EXPECT_EQ(id_a.rfind("sub_", 0), 0u) << op;
    EXPECT_EQ(a["submission_id"], id_a);
    EXPECT_EQ(mcp::ensure_submission_id(op, a), id_a) << "ensuring again keeps the id";
    EXPECT_NE(mcp::ensure_submission_id(op, b), id_a) << "each call gets its own id";
    json given = {{"submission_id", "mine-1"}};
    EXPECT_EQ(mcp::ensure_submission_id(op, given), "mine-1");
    EXPECT_EQ(given["submission_id"], "mine-1");
  }
  for (const std::string op : {"read", "peers"}) {
    json f = json::object();
    EXPECT_EQ(mcp::ensure_submission_id(op, f), "");
    EXPECT_FALSE(f.contains("submission_id"));
  }
}

TEST(McpSubmissionId, AckToolAcceptsASubmissionId_RB2) {
  json fields;
  const json args = {{"message_id", "msg_1"}, {"delivery", "admitted"}, {"submission_id", "ack-1"}};
  EXPECT_EQ(mcp::prepare_tool_call("agent_message_ack", args, fields), "ack");
  EXPECT_EQ(fields["submission_id"], "ack-1");
  const json listed = mcp::tool_list();
  for (const auto& t : listed["tools"]) {
    const std::string name = t["name"];
    // The outbox's four, and call_function (a call made at most once per id, R-D1).
    const bool retried = name == "agent_message_ack" || name == "agent_message_no_reply" ||
                         name == "agent_message_reply" || name == "agent_message_send" || name == "call_function";
    EXPECT_EQ(t["inputSchema"]["properties"].contains("submission_id"), retried) << name;
  }
}

TEST(McpSubmissionId, ARequestWithoutAnswerIsRetriedOnceWithTheSameId_RB2) {
  FakeBridge bridge;
  bridge.failures = 1;
  bridge.fail = no_answer;
  json request = {{"op", "send"}, {"target", "agent:w"}, {"message", "hi"}};
  const auto id = mcp::ensure_submission_id("send", request);
  const json answer = mcp::send_with_retry("send", request, bridge.sender());
  ASSERT_EQ(bridge.requests.size(), 2u);
  EXPECT_EQ(bridge.requests[0], bridge.requests[1]) << "the retry is the same request";
  EXPECT_EQ(bridge.requests[1]["submission_id"], id);
  EXPECT_EQ(answer["submission_id"], id);
}

TEST(McpSubmissionId, BusyIsRetriedAndASecondFailureNamesTheId_RB2) {
  FakeBridge busy;
  busy.failures = 1;
  busy.fail = [] { throw aw::Error(aw::ErrorCode::busy, "the bridge is overloaded"); };
  json request = {{"op", "ack"}, {"message_id", "msg_1"}, {"delivery", "admitted"}, {"submission_id", "ack-9"}};
  EXPECT_EQ(mcp::send_with_retry("ack", request, busy.sender())["submission_id"], "ack-9");
  EXPECT_EQ(busy.requests.size(), 2u);

  FakeBridge silent;
  silent.failures = 10;
  silent.fail = no_answer;
  try {
    mcp::send_with_retry("ack", request, silent.sender());
    FAIL() << "expected an error";
  } catch (const aw::Error& e) {
    EXPECT_EQ(e.code(), aw::ErrorCode::unreachable);
    EXPECT_NE(std::string(e.what()).find("ack-9"), std::string::npos) << e.what();
  }
  EXPECT_EQ(silent.requests.size(), 2u) << "one retry, not more";
}

// R-X6: a send whose outcome stays unknown after the retry says that the message may already be visible, that a
// new send could double it, how to check, and that the same submission_id is safe.
TEST(McpSubmissionId, AnUnknownSendSaysWhatIsNotKnown_RX6) {
  FakeBridge silent;
  silent.failures = 10;
  silent.fail = no_answer;
  json request = {{"op", "send"}, {"target", "agent:w"}, {"message", "hi"}, {"submission_id", "send-3"}};
  try {
    mcp::send_with_retry("send", request, silent.sender());
    FAIL() << "expected an error";
  } catch (const aw::Error& e) {
    const std::string text = e.what();
    for (const char* part : {"may already be visible", "could double it", "agent_message_read", "send-3",
                             "always safe"})
      EXPECT_NE(text.find(part), std::string::npos) << part << " in: " << text;
  }
}

TEST(McpSubmissionId, AnsweredErrorsAndNonOutboxOpsAreNotRetried_RB2) {
  // The bridge itself answered (e.g. the server lookup of a reply failed): nothing was queued; no retry.
  FakeBridge answered;
  answered.failures = 1;
  answered.fail = [] { throw aw::Error(aw::ErrorCode::unreachable, "the server cannot be reached"); };
  json request = {{"op", "reply"}, {"message_id", "msg_1"}, {"message", "x"}, {"submission_id", "r-1"}};
  EXPECT_THROW(mcp::send_with_retry("reply", request, answered.sender()), aw::Error);
  EXPECT_EQ(answered.requests.size(), 1u);
  // A read has no submission id and is not retried behind the caller's back.
  FakeBridge reads;
  reads.failures = 1;
  reads.fail = no_answer;
  const json read = {{"op", "read"}};
  EXPECT_THROW(mcp::send_with_retry("read", read, reads.sender()), aw::bridge_client::NoAnswer);
  EXPECT_EQ(reads.requests.size(), 1u);
}

}  // namespace
