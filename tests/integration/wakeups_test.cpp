// Durable wakeups on the server (R-W1..R-W5): scheduled, rescheduled, listed and cancelled by the agent's chat or
// its person; every bad input refused with a clear error and nothing changed; a due wakeup prompts the attached
// chat once through its stream as a notice of kind "wakeup" (never while paused, never twice, not even after a
// crash); it waits while the chat is offline and then arrives marked late; offered and delivered show on it.
#include <gtest/gtest.h>

#include <ctime>

#include "agentworks/utc_time.hpp"
#include "support/messaging_fixture.hpp"
#include "testing/sse_client.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

class WakeupsTest : public MessagingTest {
 protected:
  std::string in_seconds(int seconds) { return utc_text(static_cast<std::int64_t>(std::time(nullptr)) + seconds); }

  json wakeups_of(const std::string& agent) { return cli_ok(owner(), {"wakeups", "list", "--agent", agent}); }

  json wakeup_in_list(const std::string& agent, const std::string& wakeup_id) {
    const json list = wakeups_of(agent);
    for (const json& w : list.at("wakeups"))
      if (w.at("wakeup_id") == wakeup_id) return w;
    return json();
  }

  std::string state_of(const std::string& agent, const std::string& wakeup_id) {
    const json w = wakeup_in_list(agent, wakeup_id);
    return w.is_object() ? w.at("state").get<std::string>() : std::string("missing");
  }

  std::string stream_path(const json& attachment) {
    return "/v1/attachments/" + attachment.at("attachment_id").get<std::string>() + "/stream";
  }

  // The next stream event carrying a Message of kind "wakeup" (other events are skipped).
  std::optional<json> next_wakeup(SseStream& stream, std::chrono::milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      const auto ev = stream.next_event(left);
      if (!ev) return std::nullopt;
      const json j = json::parse(ev->data, nullptr, false);
      if (j.is_object() && j.value("kind", "") == "wakeup") return j;
    }
    return std::nullopt;
  }
};

// R-W1 R-W5: the person schedules, lists, reschedules and cancels; limits and bad input are refused with a clear
// error and change nothing; a chat acts only for its own agent.
TEST_F(WakeupsTest, ScheduleRescheduleListAndCancelWithClearRefusals_RW1_RW5) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "critic");
  const json w = cli_ok(owner(), {"wakeups", "schedule", "--agent", "reviewer", "--after-minutes", "30", "--note",
                                  "check the CI run"});
  const std::string id = w.at("wakeup_id").get<std::string>();
  EXPECT_EQ(id.rfind("wku_", 0), 0u) << w.dump();
  EXPECT_EQ(w.at("state"), "pending");
  EXPECT_NEAR(static_cast<double>(w.at("due_at").get<std::int64_t>()), static_cast<double>(std::time(nullptr) + 1800),
              60.0);

  const json moved = cli_ok(owner(), {"wakeups", "schedule", "--agent", "reviewer", "--at", in_seconds(7200),
                                      "--note", "check it again", "--wakeup-id", id});
  EXPECT_EQ(moved.at("wakeup_id"), id) << "a reschedule keeps the wakeup";
  EXPECT_EQ(moved.at("note"), "check it again");
  ASSERT_EQ(wakeups_of("reviewer").at("wakeups").size(), 1u);

  // Refused, and nothing changes.
  const std::vector<std::vector<std::string>> refused = {
      {"--after-minutes", "0", "--note", "n"},
      {"--after-minutes", "43201", "--note", "n"},
      {"--at", in_seconds(-60), "--note", "n"},
      {"--at", in_seconds(31 * 86400), "--note", "n"},
      {"--at", "tomorrow", "--note", "n"},
      {"--at", "2026-12-24T09:00:00", "--note", "n"},
      {"--after-minutes", "5", "--note", "   "},
      {"--after-minutes", "5", "--note", std::string(1001, 'x')},
  };
  for (const auto& extra : refused) {
    std::vector<std::string> args = {"wakeups", "schedule", "--agent", "reviewer"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = owner().run(args);
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find("error"), std::string::npos) << r.describe();
  }
  const CliResult both = owner().run({"wakeups", "schedule", "--agent", "reviewer", "--after-minutes", "5", "--at",
                                      in_seconds(600), "--note", "n"});
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.err.find("exactly one"), std::string::npos) << both.describe();
  EXPECT_EQ(owner_http().post("/v1/agents/reviewer/wakeups", R"({"note":"n"})").status, 400) << "neither";
  EXPECT_EQ(owner_http().post("/v1/agents/reviewer/wakeups", R"({"note":"n","after_minutes":"5"})").status, 400);
  EXPECT_EQ(owner_http().post("/v1/agents/reviewer/wakeups", R"({"note":"n","after_minutes":5,"x":1})").status, 400);
  EXPECT_EQ(owner_http().post("/v1/agents/nobody/wakeups", R"({"note":"n","after_minutes":5})").status, 404);
  const CliResult unknown = owner().run({"wakeups", "cancel", "--agent", "reviewer", "--wakeup-id", "wku_nope"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("wakeups list --agent reviewer"), std::string::npos) << unknown.describe();
  ASSERT_EQ(wakeups_of("reviewer").at("wakeups").size(), 1u) << "nothing was added by a refused request";
  EXPECT_EQ(wakeup_in_list("reviewer", id).at("note"), "check it again");

  // A chat acts for its own agent only; another agent's wakeup is not found through it.
  Identity chat = create_child(owner_token(), "reviewer");
  EXPECT_EQ(chat.http.post("/v1/agents/reviewer/wakeups", R"({"note":"from the chat","after_minutes":10})").status,
            200);
  EXPECT_EQ(chat.http.post("/v1/agents/critic/wakeups", R"({"note":"n","after_minutes":10})").status, 403);
  EXPECT_EQ(chat.http.post("/v1/wakeups/pause", "{}").status, 403) << "pausing is the person's act";
  const json critics = cli_ok(owner(), {"wakeups", "schedule", "--agent", "critic", "--after-minutes", "5", "--note",
                                        "n"});
  EXPECT_EQ(owner_http()
                .post("/v1/agents/reviewer/wakeups/" + critics.at("wakeup_id").get<std::string>() + "/cancel", "{}")
                .status,
            404)
      << "a wakeup is cancelled through its own agent";

  // At most 20 pending per agent (R-W5).
  for (int i = 2; i < 20; ++i)
    cli_ok(owner(), {"wakeups", "schedule", "--agent", "reviewer", "--after-minutes", std::to_string(i), "--note",
                     "n" + std::to_string(i)});
  const CliResult full = owner().run({"wakeups", "schedule", "--agent", "reviewer", "--after-minutes", "5", "--note",
                                      "one too many"});
  EXPECT_EQ(full.exit_code, 5) << full.describe();
  EXPECT_NE(full.err.find("20 pending wakeups"), std::string::npos) << full.describe();

  const json cancelled = cli_ok(owner(), {"wakeups", "cancel", "--agent", "reviewer", "--wakeup-id", id});
  EXPECT_EQ(cancelled.at("state"), "cancelled");
  EXPECT_EQ(cli_ok(owner(), {"wakeups", "cancel", "--agent", "reviewer", "--wakeup-id", id}).at("state"), "cancelled")
      << "a repeated cancel answers as it is";
  const CliResult again = owner().run({"wakeups", "schedule", "--agent", "reviewer", "--after-minutes", "5", "--note",
                                       "n", "--wakeup-id", id});
  EXPECT_EQ(again.exit_code, 5) << "a cancelled wakeup is not rescheduled: " << again.describe();
  EXPECT_EQ(state_of("reviewer", id), "cancelled");

  const CliResult human = owner().run({"wakeups", "list", "--agent", "reviewer"});
  EXPECT_EQ(human.exit_code, 0) << human.describe();
  EXPECT_NE(human.out.find(id + " cancelled"), std::string::npos) << human.out;
}

// R-W2 R-W3 R-W4 R-W5: a due wakeup reaches the receiving chat's stream once, as the server's notice; the release
// check marks it offered and the chat's acknowledgement delivered; a pause holds it and a resume lets it fire,
// late; an incoming message does not cancel it; a crash of the server does not fire it twice.
TEST_F(WakeupsTest, ADueWakeupPromptsTheReceivingChatOnceAndShowsEveryState_RW2_RW3_RW4_RW5) {
  start_server({"--wakeup-tick-seconds", "1"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "author");
  const json attachment = attach_over_http("reviewer", "sess-wake");
  SseStream stream(server_->url(), stream_path(attachment), owner_token());
  ASSERT_EQ(stream.status(), 200) << stream.error_body();

  const json w = cli_ok(owner(), {"wakeups", "schedule", "--agent", "reviewer", "--at", in_seconds(3), "--note",
                                  "look at PR 7 again"});
  const std::string id = w.at("wakeup_id").get<std::string>();
  send_as(owner(), "author", "agent:reviewer", "a message before the wakeup is due");  // R-W3: does not cancel it
  const auto notice = next_wakeup(stream, std::chrono::seconds(20));
  ASSERT_TRUE(notice.has_value()) << "the due wakeup never reached the stream; server log:\n" << server_->log();
  EXPECT_NE(notice->at("message").get<std::string>().find("look at PR 7 again"), std::string::npos) << notice->dump();
  EXPECT_NE(notice->at("message").get<std::string>().find(id), std::string::npos);
  EXPECT_TRUE(notice->value("reply_state", json()).is_null()) << "a notice is not a message to answer";
  const std::string message_id = notice->at("message_id").get<std::string>();
  EXPECT_EQ(state_of("reviewer", id), "due");
  EXPECT_EQ(wakeup_in_list("reviewer", id).at("message_id"), message_id);

  http_json(owner_http(), "POST",
            "/v1/attachments/" + attachment.at("attachment_id").get<std::string>() + "/release-check",
            json{{"message_ids", {message_id}}}.dump(), 200);
  EXPECT_EQ(state_of("reviewer", id), "offered");
  Identity chat = create_child(owner_token(), "reviewer");
  http_json(chat.http, "POST", "/v1/messages/" + message_id + "/receipt", R"({"delivery":"processed"})", 200);
  EXPECT_EQ(state_of("reviewer", id), "delivered");
  const auto reply_refused = chat.http.post("/v1/messages/" + message_id + "/receipt",
                                            R"({"delivery":"processed","reply_state":"no_reply"})");
  EXPECT_EQ(reply_refused.status, 400) << "a wakeup is not declined like a message";
  const json inbox_send =
      json{{"inbox_id", notice->at("inbox_id")}, {"message", "into the wakeup inbox"}, {"agent_name", "reviewer"}};
  EXPECT_EQ(owner_http().post("/v1/messages", inbox_send.dump()).status, 400) << "the wakeup inbox takes no sends";

  // Paused: it is due but waits; resumed: it fires, late.
  cli_ok(owner(), {"wakeups", "pause"});
  EXPECT_TRUE(wakeups_of("reviewer").at("paused").get<bool>());
  const json held = cli_ok(owner(), {"wakeups", "schedule", "--agent", "reviewer", "--at", in_seconds(3), "--note",
                                     "held one"});
  const std::string held_id = held.at("wakeup_id").get<std::string>();
  ASSERT_TRUE(wait_until([&] { return state_of("reviewer", held_id) == "due"; }, std::chrono::seconds(10)));
  EXPECT_FALSE(next_wakeup(stream, std::chrono::seconds(4)).has_value()) << "a paused wakeup fired";
  EXPECT_TRUE(wakeup_in_list("reviewer", held_id).at("message_id").is_null());
  cli_ok(owner(), {"wakeups", "resume"});
  const auto late = next_wakeup(stream, std::chrono::seconds(20));
  ASSERT_TRUE(late.has_value()) << "the resumed wakeup never fired";
  EXPECT_NE(late->at("message").get<std::string>().find("late"), std::string::npos) << late->dump();

  // A crash after the fire: the next server fires nothing twice.
  server_->kill();
  server_->start();
  HttpClient http(server_->url(), owner_token());
  const json after = http_json(http, "GET", "/v1/agents/reviewer/wakeups", std::nullopt, 200);
  int fired = 0;
  for (const json& x : after.at("wakeups")) fired += x.at("message_id").is_string() ? 1 : 0;
  EXPECT_EQ(fired, 2) << after.dump();
  SseStream again(server_->url(), stream_path(attachment), owner_token());
  ASSERT_EQ(again.status(), 200);
  int wakeups_seen = 0;
  while (auto ev = next_wakeup(again, std::chrono::seconds(3))) ++wakeups_seen;
  EXPECT_EQ(wakeups_seen, 2) << "the stream replays the mailbox from its start: each wakeup once";
}

// R-W1 R-W4: a wakeup survives a server crash while pending, and one due while its chat is offline waits (it reads
// due, nothing is written) and arrives when the chat receives again, marked late.
TEST_F(WakeupsTest, APendingWakeupSurvivesACrashAndWaitsForAnOfflineChat_RW1_RW4) {
  start_server({"--wakeup-tick-seconds", "1"});
  register_agent(owner(), "reviewer");
  const json w = cli_ok(owner(), {"wakeups", "schedule", "--agent", "reviewer", "--at", in_seconds(3), "--note",
                                  "after the crash"});
  const std::string id = w.at("wakeup_id").get<std::string>();
  server_->kill();
  server_->start();
  HttpClient http(server_->url(), owner_token());
  const auto state = [&] {
    const json list = http_json(http, "GET", "/v1/agents/reviewer/wakeups", std::nullopt, 200);
    for (const json& x : list.at("wakeups"))
      if (x.at("wakeup_id") == id) return x;
    return json();
  };
  ASSERT_TRUE(state().is_object()) << "the wakeup did not survive the crash";
  ASSERT_TRUE(wait_until([&] { return state().at("state") == "due"; }, std::chrono::seconds(10)));
  EXPECT_FALSE(wait_until([&] { return state().at("message_id").is_string(); }, std::chrono::seconds(4)))
      << "nobody receives: nothing fires";

  const json attachment = http_json(http, "POST", "/v1/attachments",
                                    R"({"agent_name":"reviewer","purpose":"p","provider":"claude",)"
                                    R"("native_session_id":"sess-late"})",
                                    201);
  SseStream stream(server_->url(), stream_path(attachment), owner_token());
  ASSERT_EQ(stream.status(), 200) << stream.error_body();
  const auto notice = next_wakeup(stream, std::chrono::seconds(20));
  ASSERT_TRUE(notice.has_value()) << server_->log();
  EXPECT_NE(notice->at("message").get<std::string>().find("after the crash"), std::string::npos);
  EXPECT_NE(notice->at("message").get<std::string>().find("late"), std::string::npos) << notice->dump();
}

// R-W4: the tick looks at a bounded page of due wakeups and goes on after the ones that wait; 120 due wakeups of
// chats that do not receive never keep the wakeup of a chat that receives from firing.
TEST_F(WakeupsTest, ABacklogOfWaitingWakeupsNeverStarvesAChatThatReceives_RW4) {
  start_server({"--wakeup-tick-seconds", "1"});
  // 120 schedules take seconds on a slow machine (a sanitizer build): the backlog falls due after them all.
  const std::string soon = in_seconds(12);
  for (int a = 0; a < 6; ++a) {
    const std::string agent = "offline" + std::to_string(a);
    register_agent(owner(), agent);
    for (int i = 0; i < 20; ++i)
      http_json(owner_http(), "POST", "/v1/agents/" + agent + "/wakeups",
                json{{"at", soon}, {"note", "waits " + std::to_string(i)}}.dump(), 200);
  }
  register_agent(owner(), "reviewer");
  const json attachment = attach_over_http("reviewer", "sess-live");
  SseStream stream(server_->url(), stream_path(attachment), owner_token());
  ASSERT_EQ(stream.status(), 200) << stream.error_body();
  // Scheduled last and due latest: every page before it is full of wakeups that wait.
  cli_ok(owner(), {"wakeups", "schedule", "--agent", "reviewer", "--at", in_seconds(13), "--note", "not starved"});
  const auto notice = next_wakeup(stream, std::chrono::seconds(40));
  ASSERT_TRUE(notice.has_value()) << "the receiving chat's wakeup never fired behind 120 waiting ones";
  EXPECT_NE(notice->at("message").get<std::string>().find("not starved"), std::string::npos);
  const json waiting = wakeups_of("offline0");
  EXPECT_EQ(waiting.at("wakeups").at(0).at("state"), "due");
  EXPECT_TRUE(waiting.at("wakeups").at(0).at("message_id").is_null()) << "nobody receives: nothing fired";
}

}  // namespace
}  // namespace agentworks::testing
