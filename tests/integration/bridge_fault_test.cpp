// Bridge fault and limit tests with a real agentworks-server and agentworks-bridge in a temp HOME:
// a revoked child connection stops delivery (R-B7, R-B20, invariant 5), the per-session quota and the `cleanup`
// op keep the watermark (R-B9, R-B11, R-B12, invariant 2), and the guidance cadence is persisted (R-B17).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "support/bridge_journal_reader.hpp"
#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {

class BridgeFaultTest : public BridgeTest {
 protected:
  void SetUp() override {
    start_server({"--heartbeat-seconds", "1"});
    register_agent(owner(), "worker");
  }

  std::filesystem::path journal_path() const { return home_.state_home() / "agentworks" / "journal.db"; }

  // Takes until at least `want` messages came; returns every take answer that carried messages.
  std::vector<json> take_pages(const std::string& session, std::size_t want) {
    std::vector<json> pages;
    std::size_t got = 0;
    wait_until(
        [&] {
          const json t = take(session);
          if (!t.value("messages", json::array()).empty()) {
            got += t["messages"].size();
            pages.push_back(t);
          }
          return got >= want;
        },
        std::chrono::seconds(20), std::chrono::milliseconds(50));
    return pages;
  }
  std::int64_t watermark() {
    const std::string v = journal_scalar(journal_path(), "SELECT max(seq) FROM watermarks");
    return v.empty() ? 0 : std::stoll(v);
  }
};

// R-B7, R-B20, invariant 5: revoking the agent's child connection (owner login, DELETE /v1/connections/{id})
// stops the attachment at once: it shows fenced/stopped and a new message is not offered.
TEST_F(BridgeFaultTest, RevokedChildStopsDelivery_RB7_RB20) {
  start_bridge();
  const json att = attach("sess-rv");
  ASSERT_TRUE(wait_until([&] { return stream_connected("sess-rv"); })) << status_of("sess-rv").dump();
  const std::string child = att.value("connection_id", "");
  ASSERT_FALSE(child.empty()) << att.dump();
  http_json(owner_http(), "DELETE", "/v1/connections/" + child, std::nullopt, 200);
  ASSERT_TRUE(wait_until([&] { return status_of("sess-rv").value("state", "") == "fenced"; }))
      << status_of("sess-rv").dump();
  EXPECT_EQ(status_of("sess-rv")["stream"], "stopped");
  send_as(owner(), "worker", "agent:reviewer", "after the revoke");
  const json t = take("sess-rv");
  EXPECT_EQ(t["error"]["code"], "fenced") << t.dump();
  EXPECT_EQ(status_of("sess-rv")["pending"], 0);
  EXPECT_FALSE(t.contains("messages"));
  // The message is still on the server for an explicit read.
  const auto mailbox = texts_of(read_mailbox(owner(), "reviewer"));
  EXPECT_NE(std::find(mailbox.begin(), mailbox.end(), "after the revoke"), mailbox.end());
}

// R-B9, R-B11, R-B12, invariant 2: beyond the per-session quota a message is not cached; it waits on the server
// and is fetched again once room returns. `cleanup` removes processed metadata but keeps the watermark, so
// nothing at or below it is cached again, not even after a restart.
TEST_F(BridgeFaultTest, QuotaAndCleanupKeepTheWatermark_RB9_RB11_RB12) {
  start_bridge({{"AGENTWORKS_BRIDGE_MAX_MESSAGES_PER_SESSION", "3"}});
  attach("sess-q");
  ASSERT_TRUE(wait_until([&] { return stream_connected("sess-q"); }));
  for (int i = 1; i <= 5; ++i) send_as(owner(), "worker", "agent:reviewer", "q" + std::to_string(i));
  // Three cached, two held back on the server; the watermark stays at the third.
  ASSERT_TRUE(wait_until([&] { return status_of("sess-q").value("held_back", 0) == 2; })) << status_of("sess-q").dump();
  EXPECT_EQ(status_of("sess-q")["pending"], 3);

  std::vector<std::string> ids;
  std::vector<std::string> texts;
  for (const auto& page : take_pages("sess-q", 5)) {
    for (const auto& m : page["messages"]) {
      ids.push_back(m["message_id"]);
      texts.push_back(m["message"]);
    }
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"q1", "q2", "q3", "q4", "q5"}));
  EXPECT_EQ(status_of("sess-q")["held_back"], 0);
  for (const auto& id : ids) {
    const json ack = call({{"op", "ack"}, {"provider", "claude"}, {"session_id", "sess-q"}, {"message_id", id},
                           {"delivery", "processed"}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  }
  const auto mark = watermark();
  EXPECT_GT(mark, 0);
  const json c = call({{"op", "cleanup"}});
  ASSERT_EQ(c["ok"], true) << c.dump();
  EXPECT_GE(c["processed_removed"].get<int>(), 1);  // some were reclaimed under quota pressure already
  EXPECT_EQ(journal_scalar(journal_path(), "SELECT count(*) FROM messages"), "0");
  EXPECT_EQ(watermark(), mark);  // the watermark survives cleanup

  // Restart: the stream resumes after the watermark; q1..q5 are not cached again, a new message is.
  EXPECT_EQ(bridge_->stop(), 0);
  start_bridge({{"AGENTWORKS_BRIDGE_MAX_MESSAGES_PER_SESSION", "3"}});
  ASSERT_TRUE(wait_until([&] { return stream_connected("sess-q"); }));
  send_as(owner(), "worker", "agent:reviewer", "q6");
  std::vector<std::string> later;
  for (const auto& page : take_pages("sess-q", 1)) {
    for (const auto& m : page["messages"]) later.push_back(m["message"]);
  }
  EXPECT_EQ(later, std::vector<std::string>{"q6"});
  EXPECT_TRUE(take("sess-q")["messages"].empty());
  EXPECT_GT(watermark(), mark);
  EXPECT_EQ(journal_scalar(journal_path(), "PRAGMA integrity_check"), "ok");
}

// R-B9, R-B11, R-B12: far more messages than the quota arrive and none is acknowledged. The journal
// reclaims handed-out metadata, never a pending row, and never moves the watermark past a message it did not
// journal: status (bridge op and `agentworks status --agents`) shows how many wait on the server and how to read
// them, the chat's delivery text says so too, and delivering until done hands out every message exactly once,
// in order, across a bridge restart while full.
TEST_F(BridgeFaultTest, FullJournalHoldsBackAndEventuallyDeliversEverythingOnce_RB9_RB11_RB12) {
  const EnvOverrides env = {{"AGENTWORKS_BRIDGE_MAX_MESSAGES_PER_SESSION", "4"}};
  start_bridge(env);
  attach("sess-full");
  ASSERT_TRUE(wait_until([&] { return stream_connected("sess-full"); }));
  constexpr int kSent = 30;  // the server allows 40 per conversation per hour
  std::vector<std::string> sent;
  for (int i = 0; i < kSent; ++i) sent.push_back("full " + std::to_string(i));
  for (const auto& text : sent) send_as(owner(), "worker", "agent:reviewer", text);

  ASSERT_TRUE(wait_until([&] { return status_of("sess-full").value("held_back", 0) == kSent - 4; }))
      << status_of("sess-full").dump();
  const json full = status_of("sess-full");
  EXPECT_EQ(full["pending"], 4);
  EXPECT_EQ(full["held_back_read"],
            "agentworks messages read --agent reviewer --after m" + std::to_string(watermark()));
  // The person sees it in `agentworks status --agents` (JSON and text).
  const CliResult agents = owner().json({"status", "--agents"});
  ASSERT_EQ(agents.exit_code, 0) << agents.describe();
  EXPECT_EQ(agents.json()["attachments"][0]["held_back"], kSent - 4) << agents.json().dump();
  EXPECT_EQ(agents.json()["attachments"][0]["held_back_read"], full["held_back_read"]);
  const CliResult human = owner().run({"status", "--agents"});
  EXPECT_NE(human.out.find("held back on the server (local cache full): " + std::to_string(kSent - 4)),
            std::string::npos)
      << human.out;
  // The read command named there really reads the held-back messages.
  const json page = http_json(owner_http(), "GET",
                              "/v1/messages?agent_name=reviewer&limit=100&after=m" + std::to_string(watermark()),
                              std::nullopt, 200);
  EXPECT_EQ(page["messages"].size(), static_cast<std::size_t>(kSent - 4));

  // A restart while full: the replay from the watermark holds back the same ones again, counted once each.
  EXPECT_EQ(bridge_->stop(), 0);
  start_bridge(env);
  ASSERT_TRUE(wait_until([&] { return status_of("sess-full").value("held_back", 0) == kSent - 4; }))
      << status_of("sess-full").dump();

  // The person's typed `/agentworks status` says it too.
  const json typed = call({{"op", "command"}, {"provider", "claude"}, {"session_id", "sess-full"}, {"verb", "status"}});
  EXPECT_EQ(typed["held_back"], kSent - 4) << typed.dump();
  EXPECT_NE(typed.value("text", "").find(std::to_string(kSent - 4) + " messages wait on the server"),
            std::string::npos)
      << typed.dump();

  // The Stop hook's delivery tells the chat.
  const json first = call({{"op", "deliver"}, {"provider", "claude"}, {"session_id", "sess-full"},
                           {"max_continuations", 8}});
  ASSERT_EQ(first["ok"], true) << first.dump();
  const std::string text = first.value("text", "");
  EXPECT_NE(text.find(std::to_string(kSent - 4) + " more messages for agent:reviewer are held on the server"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("agentworks bridge message read --provider claude --after m"), std::string::npos);
  std::vector<std::string> delivered;
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < first["message_ids"].size(); ++i) {
    delivered.push_back(first["message_ids"][i]);
    texts.push_back(sent[i]);
    EXPECT_NE(text.find("\n" + sent[i] + "\n"), std::string::npos) << text;
  }
  EXPECT_EQ(delivered.size(), 4u);

  // Take until every message came: room returns with every offer, the held ones are fetched again.
  ASSERT_TRUE(wait_until(
      [&] {
        for (const auto& m : take("sess-full").value("messages", json::array())) {
          delivered.push_back(m["message_id"]);
          texts.push_back(m["message"]);
        }
        return delivered.size() >= static_cast<std::size_t>(kSent);
      },
      std::chrono::seconds(60), std::chrono::milliseconds(50)))
      << delivered.size() << " delivered; " << status_of("sess-full").dump();
  EXPECT_EQ(texts, sent);  // every one, once, oldest first
  EXPECT_EQ(std::set<std::string>(delivered.begin(), delivered.end()).size(), static_cast<std::size_t>(kSent));
  EXPECT_TRUE(take("sess-full")["messages"].empty());
  EXPECT_EQ(status_of("sess-full")["held_back"], 0);
  EXPECT_EQ(status_of("sess-full")["pending"], 0);
  EXPECT_EQ(journal_scalar(journal_path(), "PRAGMA integrity_check"), "ok");
}

// R-B17: the first offer of an attachment carries guidance, the next ones within 24 h do not, and the timestamp
// is persisted with the journal: still no guidance after a restart.
TEST_F(BridgeFaultTest, GuidanceOnFirstOfferPersistedAcrossRestart_RB17) {
  start_bridge();
  attach("sess-g");
  ASSERT_TRUE(wait_until([&] { return stream_connected("sess-g"); }));
  EXPECT_EQ(journal_scalar(journal_path(), "SELECT guidance_at IS NULL FROM attachments"), "1");
  send_as(owner(), "worker", "agent:reviewer", "g1");
  const auto first = take_pages("sess-g", 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["guidance"], true) << first[0].dump();
  EXPECT_EQ(journal_scalar(journal_path(), "SELECT guidance_at IS NOT NULL FROM attachments"), "1");

  send_as(owner(), "worker", "agent:reviewer", "g2");
  const auto second = take_pages("sess-g", 1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0]["guidance"], false) << second[0].dump();

  EXPECT_EQ(bridge_->stop(), 0);
  start_bridge();
  ASSERT_TRUE(wait_until([&] { return stream_connected("sess-g"); }));
  send_as(owner(), "worker", "agent:reviewer", "g3");
  const auto third = take_pages("sess-g", 1);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0]["messages"][0]["message"], "g3");
  EXPECT_EQ(third[0]["guidance"], false) << third[0].dump();
}

}  // namespace
}  // namespace agentworks::testing
