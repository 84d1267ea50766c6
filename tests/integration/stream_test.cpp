// Attachment streams (SSE): fencing by a newer attachment (R-H7, R-B7) and resumption from a cursor (R-B3).
#include <gtest/gtest.h>

#include "testing/sse_client.hpp"
#include "testing/wait.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class Streams : public MessagingTest {
 protected:
  std::string stream_path(const json& attachment) {
    return "/v1/attachments/" + attachment.at("attachment_id").get<std::string>() + "/stream";
  }
  bool connected(const std::string& agent) {
    return http_json(owner_http(), "GET", "/v1/agents/" + agent, std::nullopt, 200).at("connected") == true;
  }
};

// R-H7 R-B7: a new attachment for the name fences the old one: its stream gets `event: fenced` (superseded) and
// ends; new messages go only to the current attachment's stream.
TEST_F(Streams, NewAttachmentFencesTheOldStream_R_H7_R_B7) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const json first = attach_over_http("reviewer", "session-1");
  EXPECT_EQ(first.at("state"), "current") << first.dump();
  EXPECT_FALSE(connected("reviewer"));

  SseStream old_stream(server_->url(), stream_path(first), owner_token());
  ASSERT_EQ(old_stream.status(), 200) << old_stream.error_body();
  EXPECT_NE(old_stream.headers().at("content-type").find("text/event-stream"), std::string::npos);
  const auto ready = old_stream.next_event_named("ready");
  ASSERT_TRUE(ready.has_value());
  const json ready_data = parse_json(ready->data);
  EXPECT_EQ(ready_data.at("attachment_id"), first.at("attachment_id"));
  EXPECT_EQ(ready_data.at("agent_name"), "reviewer");
  EXPECT_EQ(old_stream.retry(), "1000");
  EXPECT_TRUE(wait_until([&] { return connected("reviewer"); })) << "connected stays false with an open stream";

  const json second = attach_over_http("reviewer", "session-2");
  const auto fenced = old_stream.next_event_named("fenced");
  ASSERT_TRUE(fenced.has_value()) << "the old stream got no fenced event";
  const json fenced_data = parse_json(fenced->data);
  EXPECT_EQ(fenced_data.at("attachment_id"), first.at("attachment_id"));
  EXPECT_EQ(fenced_data.at("reason"), "superseded");
  EXPECT_TRUE(old_stream.wait_closed()) << "the fenced stream was not closed";
  EXPECT_TRUE(old_stream.skipped().empty());

  const json old_state =
      http_json(owner_http(), "GET", "/v1/attachments/" + first.at("attachment_id").get<std::string>(), std::nullopt, 200);
  EXPECT_EQ(old_state.at("state"), "fenced") << old_state.dump();

  // Opening a stream on the fenced attachment gets the fenced event at once; no message goes there.
  send_as(owner(), "worker", "agent:reviewer", "for the current session");
  SseStream reopened(server_->url(), stream_path(first), owner_token());
  if (reopened.status() == 200) {
    const auto ev = reopened.next_event();
    ASSERT_TRUE(ev.has_value());
    if (ev->event == "ready") {
      const auto next = reopened.next_event();
      ASSERT_TRUE(next.has_value());
      EXPECT_EQ(next->event, "fenced") << next->data;
    } else {
      EXPECT_EQ(ev->event, "fenced") << ev->data;
    }
    EXPECT_TRUE(reopened.wait_closed());
    for (const auto& skipped : reopened.skipped()) EXPECT_NE(skipped.event, "message") << skipped.data;
  } else {
    EXPECT_EQ(error_code_of(reopened.error_body()), "fenced") << reopened.error_body();
  }

  SseStream current(server_->url(), stream_path(second), owner_token());
  ASSERT_EQ(current.status(), 200) << current.error_body();
  const auto msg = current.next_event_named("message");
  ASSERT_TRUE(msg.has_value());
  EXPECT_EQ(parse_json(msg->data).at("message"), "for the current session");

  // Detaching ends the current stream with reason "detached".
  const json detached = http_json(owner_http(), "DELETE",
                                  "/v1/attachments/" + second.at("attachment_id").get<std::string>(), std::nullopt, 200);
  EXPECT_EQ(detached.at("state"), "detached");
  const auto detach_event = current.next_event_named("fenced");
  ASSERT_TRUE(detach_event.has_value());
  EXPECT_EQ(parse_json(detach_event->data).at("reason"), "detached");
  EXPECT_TRUE(current.wait_closed());
  EXPECT_TRUE(wait_until([&] { return !connected("reviewer"); }));
}

// R-B3: a stream resumed with Last-Event-ID delivers only later messages, oldest first, then new ones live;
// Last-Event-ID wins over ?after=; a cursor of the wrong space is a JSON error, not a stream.
TEST_F(Streams, ResumesAfterLastEventId_R_B3) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const json attachment = attach_over_http("reviewer", "session-1");
  for (const char* text : {"m1", "m2", "m3"}) send_as(owner(), "worker", "agent:reviewer", text);
  const json page = read_mailbox(owner(), "reviewer");
  ASSERT_EQ(page.at("messages").size(), 3u);
  const std::string cursor1 = page.at("messages")[0].at("cursor").get<std::string>();

  // From the start: all three with their ids.
  {
    SseStream all(server_->url(), stream_path(attachment), owner_token());
    ASSERT_EQ(all.status(), 200) << all.error_body();
    std::vector<std::string> ids, texts;
    for (int i = 0; i < 3; ++i) {
      const auto ev = all.next_event_named("message");
      ASSERT_TRUE(ev.has_value()) << "message " << i << " missing";
      ids.push_back(ev->id);
      texts.push_back(parse_json(ev->data).at("message").get<std::string>());
      EXPECT_EQ(ev->id, parse_json(ev->data).at("cursor")) << ev->data;
    }
    EXPECT_EQ(texts, (std::vector<std::string>{"m1", "m2", "m3"}));
    EXPECT_EQ(ids[0], cursor1);
  }

  // Resumed after m1 (and a misleading ?after=0 that Last-Event-ID overrides).
  SseStream resumed(server_->url(), stream_path(attachment) + "?after=0", owner_token(), cursor1);
  ASSERT_EQ(resumed.status(), 200) << resumed.error_body();
  const auto ready = resumed.next_event_named("ready");
  ASSERT_TRUE(ready.has_value());
  std::vector<std::string> texts;
  for (int i = 0; i < 2; ++i) {
    const auto ev = resumed.next_event_named("message");
    ASSERT_TRUE(ev.has_value());
    texts.push_back(parse_json(ev->data).at("message").get<std::string>());
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"m2", "m3"}));
  send_as(owner(), "worker", "agent:reviewer", "m4 live");
  const auto live = resumed.next_event_named("message");
  ASSERT_TRUE(live.has_value()) << "a message stored while the stream was open did not arrive";
  EXPECT_EQ(parse_json(live->data).at("message"), "m4 live");
  EXPECT_EQ(parse_json(live->data).at("reply_address"), parse_json(live->data).at("inbox_id"));

  // ?after= alone resumes too.
  SseStream by_query(server_->url(), stream_path(attachment) + "?after=" + page.at("next_cursor").get<std::string>(),
                     owner_token());
  ASSERT_EQ(by_query.status(), 200) << by_query.error_body();
  const auto only_new = by_query.next_event_named("message");
  ASSERT_TRUE(only_new.has_value());
  EXPECT_EQ(parse_json(only_new->data).at("message"), "m4 live");

  SseStream wrong_space(server_->url(), stream_path(attachment) + "?after=i1", owner_token());
  EXPECT_EQ(wrong_space.status(), 400);
  EXPECT_EQ(error_code_of(wrong_space.error_body()), "cursor_mismatch") << wrong_space.error_body();

  // Another account cannot see the attachment.
  Identity other = add_account("other");
  SseStream foreign(server_->url(), stream_path(attachment), other.token);
  EXPECT_EQ(foreign.status(), 404);
  EXPECT_EQ(error_code_of(foreign.error_body()), "not_found") << foreign.error_body();
}

}  // namespace
}  // namespace agentworks::testing

namespace agentworks::testing {
namespace {

class ReleaseCheck : public MessagingTest {};

// R-B8 (server part): a message is releasable only to the current attachment of its recipient while retained and
// while its sender is authorised; every other case names its reason.
TEST_F(ReleaseCheck, ReasonsForHoldingAMessage_R_B8) {
  start_server({"--heartbeat-seconds", "1"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  register_agent(owner(), "bystander");
  const std::string to_reviewer = send_as(owner(), "worker", "agent:reviewer", "for reviewer").at("message_id").get<std::string>();
  const std::string to_bystander = send_as(owner(), "worker", "agent:bystander", "for bystander").at("message_id").get<std::string>();
  const json body = {{"agent_name", "reviewer"}, {"purpose", "p"}, {"provider", "claude"}, {"native_session_id", "s1"}};
  const json first = http_json(owner_http(), "POST", "/v1/attachments", body.dump(), 201);
  const std::string check_path = "/v1/attachments/" + first.at("attachment_id").get<std::string>() + "/release-check";

  const json check = http_json(owner_http(), "POST", check_path,
                               json{{"message_ids", {to_reviewer, to_bystander, "msg_unknown"}}}.dump(), 200);
  EXPECT_EQ(check.at("attachment_current"), true) << check.dump();
  ASSERT_EQ(check.at("messages").size(), 3u) << check.dump();
  EXPECT_EQ(check.at("messages")[0].at("message_id"), to_reviewer);
  EXPECT_EQ(check.at("messages")[0].at("releasable"), true) << check.dump();
  EXPECT_TRUE(check.at("messages")[0].at("reason").is_null()) << check.dump();
  EXPECT_EQ(check.at("messages")[1].at("releasable"), false);
  EXPECT_EQ(check.at("messages")[1].at("reason"), "not_recipient") << check.dump();
  EXPECT_EQ(check.at("messages")[2].at("releasable"), false);
  EXPECT_EQ(check.at("messages")[2].at("reason"), "not_retained") << check.dump();

  std::vector<std::string> too_many(101, to_reviewer);
  const HttpResponse over = owner_http().post(check_path, json{{"message_ids", too_many}}.dump());
  EXPECT_EQ(over.status, 400) << describe(over);
  EXPECT_EQ(error_code_of(over.body), "bad_request") << describe(over);

  // Heartbeats keep an idle stream alive (--heartbeat-seconds 1): a `: hb` comment arrives.
  const json second = http_json(owner_http(), "POST", "/v1/attachments",
                                json{{"agent_name", "reviewer"}, {"purpose", "p"}, {"provider", "claude"}, {"native_session_id", "s2"}}.dump(),
                                201);
  SseStream stream(server_->url(), "/v1/attachments/" + second.at("attachment_id").get<std::string>() + "/stream?after=" +
                                       read_mailbox(owner(), "reviewer").at("next_cursor").get<std::string>(),
                   owner_token());
  ASSERT_EQ(stream.status(), 200) << stream.error_body();
  ASSERT_TRUE(stream.next_event_named("ready").has_value());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (stream.comments().empty() && !stream.ended() && std::chrono::steady_clock::now() < deadline) {
    const auto ev = stream.next_event(std::chrono::milliseconds(500));
    EXPECT_FALSE(ev.has_value()) << "no event was due: " << ev->event << " " << ev->data;
  }
  EXPECT_FALSE(stream.comments().empty()) << "no heartbeat comment with --heartbeat-seconds 1";

  // The superseded attachment may no longer release anything.
  const json after = http_json(owner_http(), "POST", check_path, json{{"message_ids", {to_reviewer}}}.dump(), 200);
  EXPECT_EQ(after.at("attachment_current"), false) << after.dump();
  EXPECT_EQ(after.at("messages")[0].at("releasable"), false);
  EXPECT_EQ(after.at("messages")[0].at("reason"), "not_current") << after.dump();
}

}  // namespace
}  // namespace agentworks::testing
