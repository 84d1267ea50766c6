// Call status (R-F3): messages paged by after/message_limit from -1 with next_after, events paged by after_event,
// bounded message sizes and counts, progress never read as completion, and the long poll (wait_seconds on the
// wire, --wait on the CLI) that returns on the next change.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "testing/net_probe.hpp"
#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

class FunctionsStatus : public CrewTest {};

std::vector<long> seqs_of(const json& page, const char* key) {
  std::vector<long> out;
  for (const auto& m : page.at(key)) out.push_back(m.at("seq").get<long>());
  return out;
}

// R-F3: five stderr lines, paged two at a time: after=-1 -> 0,1; next_after 1 -> 2,3; 3 -> 4; 4 -> empty with
// next_after 4. The call is running (progress is the latest line) until the script ends.
TEST_F(FunctionsStatus, MessagesAndEventsPaged_R_F3) {
  start_server();
  make_crew("api", json::array({function_decl("talk")}),
            {{"tools/talk.sh", "for i in 0 1 2 3 4; do echo \"line $i\" >&2; done\n" + blocking_script()}});
  const std::string id = call_ok("api", "talk").at("call_id").get<std::string>();
  const json five = wait_status(id, [](const json& c) { return c.at("messages").size() >= 5; });
  EXPECT_EQ(five.at("status"), "running") << "progress is not completion: " << five.dump();
  EXPECT_EQ(five.at("progress"), "line 4") << five.dump();
  EXPECT_TRUE(five.at("answer").is_null()) << five.dump();
  EXPECT_TRUE(five.at("error").is_null()) << five.dump();

  json page = status(id, "after=-1&message_limit=2");
  EXPECT_EQ(seqs_of(page, "messages"), (std::vector<long>{0, 1})) << page.dump();
  EXPECT_EQ(message_texts(page), (std::vector<std::string>{"line 0", "line 1"}));
  EXPECT_EQ(page.at("next_after"), 1) << page.dump();
  page = status(id, "after=1&message_limit=2");
  EXPECT_EQ(seqs_of(page, "messages"), (std::vector<long>{2, 3})) << page.dump();
  EXPECT_EQ(page.at("next_after"), 3);
  page = status(id, "after=3&message_limit=2");
  EXPECT_EQ(seqs_of(page, "messages"), (std::vector<long>{4})) << page.dump();
  EXPECT_EQ(page.at("next_after"), 4);
  page = status(id, "after=4&message_limit=2");
  EXPECT_TRUE(page.at("messages").empty()) << page.dump();
  EXPECT_EQ(page.at("next_after"), 4) << "an empty page keeps the cursor";
  EXPECT_EQ(status(id).at("messages").size(), 5u) << "default: from the start";

  // Events: `started` first; after_event skips what was seen.
  const json events = status(id, "after_event=-1&event_limit=1");
  ASSERT_EQ(events.at("events").size(), 1u) << events.dump();
  EXPECT_EQ(events.at("events").at(0).at("type"), "started");
  const long seen = events.at("next_after_event").get<long>();
  EXPECT_EQ(seen, events.at("events").at(0).at("seq").get<long>());
  EXPECT_TRUE(status(id, "after_event=" + std::to_string(seen)).at("events").empty());

  // Bad paging values are bad_request.
  for (const char* q : {"message_limit=0", "message_limit=501", "event_limit=201", "after=x", "wait_seconds=26"}) {
    const HttpResponse r = status_as(owner_http(), id, q);
    EXPECT_EQ(error_code_of(r.body), "bad_request") << q << " " << describe(r);
  }

  open_gate(crew_dir("api"));
  const json done = wait_terminal(id);
  EXPECT_EQ(done.at("status"), "completed");
  const json later = status(id, "after_event=" + std::to_string(seen));
  EXPECT_EQ(event_types(later).back(), "completed") << later.dump();
  for (const auto& e : done.at("events")) {
    EXPECT_EQ(e.dump().find("released"), std::string::npos) << "events carry no raw outputs: " << e.dump();
  }
}

// R-F3: a line over 4,000 bytes is cut to 4,000; past 10,000 messages one `dropped` message counts the rest.
TEST_F(FunctionsStatus, MessagesAreBounded_R_F3) {
  start_server();
  make_crew("api", json::array({function_decl("flood")}),
            {{"tools/flood.sh", "head -c 5000 /dev/zero | tr '\\0' x >&2\necho >&2\nseq 1 10100 >&2\necho flooded"}});
  const std::string id = call_ok("api", "flood").at("call_id").get<std::string>();
  // 10,101 stored lines: on PostgreSQL each is a few round trips, so this takes tens of seconds there.
  const json done = wait_terminal(id, std::chrono::seconds(200));
  ASSERT_EQ(done.at("status"), "completed") << done.dump().substr(0, 2000);
  const json first = status(id, "after=-1&message_limit=1");
  ASSERT_EQ(first.at("messages").size(), 1u);
  EXPECT_LE(first.at("messages").at(0).at("text").get<std::string>().size(), 4000u);
  EXPECT_GE(first.at("messages").at(0).at("text").get<std::string>().size(), 3990u);
  const json tail = status(id, "after=9997&message_limit=500");
  ASSERT_FALSE(tail.at("messages").empty()) << tail.dump();
  const json& last = tail.at("messages").back();
  EXPECT_EQ(last.at("kind"), "dropped") << tail.dump();
  // 10,101 stderr lines: at most 10,000 messages in all, the last of them counting the lines not kept.
  const long kept = last.at("seq").get<long>();  // progress messages 0..kept-1
  EXPECT_LE(kept + 1, 10000) << tail.dump();
  EXPECT_GE(kept + 1, 9999) << tail.dump();
  EXPECT_NE(last.at("text").get<std::string>().find(std::to_string(10101 - kept)), std::string::npos)
      << "it counts the " << (10101 - kept) << " dropped lines: " << last.dump();
  const json beyond = status(id, "after=" + std::to_string(last.at("seq").get<long>()));
  EXPECT_TRUE(beyond.at("messages").empty());
}

// R-F3: a flood far past the limit is still counted exactly, and the progress is its last line: past 10,000 the
// lines are counted in memory and written a few times a second, not once each.
TEST_F(FunctionsStatus, AFloodPastTheLimitIsCountedExactly_R_F3) {
  start_server();
  make_crew("api", json::array({function_decl("flood")}), {{"tools/flood.sh", "seq 1 100000 >&2\necho flooded"}});
  const std::string id = call_ok("api", "flood").at("call_id").get<std::string>();
  const json done = wait_terminal(id, std::chrono::seconds(200));
  ASSERT_EQ(done.at("status"), "completed") << done.dump().substr(0, 2000);
  EXPECT_EQ(done.at("progress"), "100000") << done.dump().substr(0, 2000);
  const json tail = status(id, "after=9997&message_limit=500");
  ASSERT_FALSE(tail.at("messages").empty()) << tail.dump();
  const json& last = tail.at("messages").back();
  EXPECT_EQ(last.at("kind"), "dropped") << tail.dump();
  const long kept = last.at("seq").get<long>();
  EXPECT_NE(last.at("text").get<std::string>().find(std::to_string(100000 - kept) + " more messages"),
            std::string::npos)
      << "it counts the " << (100000 - kept) << " dropped lines: " << last.dump();
}

// R-F3: GET /v1/calls/{id}?wait_seconds=N with the cursors last seen blocks until the next change, then answers
// with it.
TEST_F(FunctionsStatus, LongPollReturnsOnNextChange_R_F3) {
  start_server();
  make_crew("api", json::array({function_decl("step")}),
            {{"tools/step.sh",
              "echo first >&2\nwhile [ ! -e gate/one ]; do sleep 0.02; done\necho second >&2\n"
              "while [ ! -e gate/two ]; do sleep 0.02; done\necho done"}});
  const std::string id = call_ok("api", "step").at("call_id").get<std::string>();
  const json seen = wait_status(id, [](const json& c) { return c.at("messages").size() == 1; });
  const std::string cursors = "after=" + std::to_string(seen.at("next_after").get<long>()) +
                              "&after_event=" + std::to_string(seen.at("next_after_event").get<long>());

  std::atomic<bool> answered{false};
  HttpResponse polled;
  std::thread poller([&] {
    polled = status_as(owner_http(), id, cursors + "&wait_seconds=20");
    answered = true;
  });
  // The poll is in flight (this process holds a connection to the server) and, with nothing changed, unanswered.
  ASSERT_TRUE(wait_until([&] { return answered.load() || has_tcp_connection_to(::getpid(), server_->port()); }));
  ASSERT_FALSE(answered.load()) << "the long poll answered without a change: " << describe(polled);
  write_text(crew_dir("api") / "gate/one", "1");
  // Woken by the change: the poll's own end (20 s) comes after this deadline.
  const bool woke = wait_until([&] { return answered.load(); }, std::chrono::seconds(15));
  poller.join();
  ASSERT_TRUE(woke);
  ASSERT_EQ(polled.status, 200) << describe(polled);
  const json woken = parse_json(polled.body);
  EXPECT_EQ(message_texts(woken), std::vector<std::string>{"second"}) << woken.dump();
  EXPECT_EQ(woken.at("status"), "running");

  // The CLI's --wait: blocked in its long poll (a TCP connection to the server) until the call ends.
  const std::string cli_cursors_after = std::to_string(woken.at("next_after").get<long>());
  const std::string cli_cursors_event = std::to_string(woken.at("next_after_event").get<long>());
  Child waiting = owner().start({"--json", "functions", "call-status", "--call", id, "--after", cli_cursors_after,
                                 "--after-event", cli_cursors_event, "--wait", "20"},
                                home_.root(), "call-status-wait");
  ASSERT_TRUE(wait_until([&] { return has_tcp_connection_to(waiting.pid(), server_->port()); }))
      << waiting.read_stderr();
  EXPECT_TRUE(waiting.running());
  write_text(crew_dir("api") / "gate/two", "2");
  const auto exit_code = waiting.wait_exit(std::chrono::seconds(15));
  ASSERT_TRUE(exit_code.has_value()) << "--wait did not return on the change";
  EXPECT_EQ(*exit_code, 0) << waiting.read_stdout() << waiting.read_stderr();
  const json cli = parse_json(waiting.read_stdout());
  EXPECT_FALSE(cli.at("events").empty()) << cli.dump();
  const json done = wait_terminal(id);
  EXPECT_EQ(done.at("status"), "completed");
  EXPECT_EQ(answer_of(done), "done");
}

// R-F3: a quiet execution stays `running` past a long poll that times out: silence is not completion.
TEST_F(FunctionsStatus, SilenceIsNotCompletion_R_F3) {
  start_server();
  make_crew("api", json::array({function_decl("quiet")}), {{"tools/quiet.sh", blocking_script()}});
  const std::string id = call_ok("api", "quiet").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));
  const json seen = status(id);
  const json after_wait = status(id, "after=" + std::to_string(seen.at("next_after").get<long>()) + "&after_event=" +
                                         std::to_string(seen.at("next_after_event").get<long>()) + "&wait_seconds=1");
  // The poll ended by its wait, not by a change: nothing new after the cursors.
  EXPECT_TRUE(after_wait.at("messages").empty()) << after_wait.dump();
  EXPECT_TRUE(after_wait.at("events").empty()) << after_wait.dump();
  EXPECT_EQ(after_wait.at("status"), "running") << after_wait.dump();
  EXPECT_TRUE(after_wait.at("finished_at").is_null());
  open_gate(crew_dir("api"));
  EXPECT_EQ(wait_terminal(id).at("status"), "completed");
}

}  // namespace
}  // namespace agentworks::testing
