// The hook's bridge ops (docs/protocol.md "Hook ops"), with a real agentworks-server and a real agentworks-bridge
// in a temp HOME: `deliver` (R-H1, R-H2, R-H3, R-H9, R-B5, R-B17, R-B18) and `command` (R-H5, R-H7, R-H8, R-H11),
// the provider process key (R-H11) and a journal written by the previous schema opening (migration).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <ctime>
#include <set>

#include "agentworks/utc_time.hpp"

#include "support/bridge_journal_reader.hpp"
#include "testing/binaries.hpp"
#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {
const json kProcess = {{"pid", 4242}, {"start", "987654"}};

// UTF-16 code units of UTF-8 text (the unit of max_chars).
std::size_t utf16(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if ((b & 0xC0) != 0x80) n += b >= 0xF0 ? 2 : 1;
  }
  return n;
}

class BridgeHookOpsTest : public BridgeTest {
 protected:
  void SetUp() override {
    start_server({"--heartbeat-seconds", "1", "--wakeup-tick-seconds", "1"});
    register_agent(owner(), "worker");
  }

  json command(const std::string& session, const std::string& verb, json extra = json::object()) {
    json req = {{"op", "command"}, {"provider", "claude"}, {"session_id", session}, {"verb", verb}};
    for (auto& [k, v] : extra.items()) req[k] = v;
    return call(req);
  }
  json attach(const std::string& session, const std::string& name) {
    const json a = command(session, "attach", {{"name", name}, {"purpose", "Review PRs"}, {"process", kProcess}});
    if (a.value("ok", false) != true) throw std::runtime_error("attach failed: " + a.dump());
    return a;
  }
  json deliver(const std::string& session, json extra = json::object()) {
    json req = {{"op", "deliver"}, {"provider", "claude"}, {"session_id", session}};
    for (auto& [k, v] : extra.items()) req[k] = v;
    return call(req);
  }
  // Attaches `session` as reviewer and waits for its stream.
  void attach_connected(const std::string& session) {
    attach(session, "reviewer");
    ASSERT_TRUE(wait_connected(session)) << status_of(session).dump();
  }
  // For tests of delivery itself, whose chats never answer: their turns are not asked to (R-X3).
  void nudge_off() { cli_ok(owner(), {"agents", "set", "reviewer", "--nudge", "off"}); }
};

// R-H9: an unattached session is answered from the journal alone. With the server gone the answer still comes.
TEST_F(BridgeHookOpsTest, DeliverForUnknownSessionNeedsNoNetwork_RH9) {
  start_bridge();
  server_->kill();
  const json a = deliver("never-attached", {{"stop_hook_active", false}, {"process", kProcess}});
  EXPECT_EQ(a.value("ok", false), true) << a.dump();
  EXPECT_EQ(a["attached"], false);
  EXPECT_FALSE(a.contains("text"));
  const json s = command("never-attached", "status");
  EXPECT_EQ(s["attached"], false);
  EXPECT_EQ(s["text"], "This chat is not attached. Type `/agentworks attach` to attach it.");
  // Bad input is an error object, never a crash.
  EXPECT_EQ(deliver("x", {{"max_chars", 10}})["error"]["code"], "bad_request");
  EXPECT_EQ(deliver("x", {{"process", {{"pid", "one"}}}})["error"]["code"], "bad_request");
  EXPECT_EQ(command("x", "dance")["error"]["code"], "bad_request");
}

// R-H1, R-H3, R-B17, R-B18: several waiting messages go in one text, oldest first, each fenced with its id,
// sender and conversation, labelled as other agents' messages; the first offer carries the instructions, later
// ones the short hint only.
TEST_F(BridgeHookOpsTest, SeveralMessagesInOneTextOldestFirst_RH1_RH3_RB17_RB18) {
  start_bridge();
  attach_connected("s1");
  const std::string id1 = send("first: please review PR 7");
  const std::string id2 = send("second: also PR 8");
  const std::string id3 = send("third: and PR 9");
  ASSERT_TRUE(wait_pending("s1", 3));
  const json d = deliver("s1", {{"stop_hook_active", false}, {"process", kProcess}});
  ASSERT_EQ(d.value("ok", false), true) << d.dump();
  EXPECT_EQ(d["attached"], true);
  EXPECT_EQ(d["state"], "attached");
  EXPECT_EQ(d["message_ids"], json::array({id1, id2, id3}));
  EXPECT_EQ(d["guidance"], true);
  EXPECT_EQ(d["pending"], 0);
  EXPECT_EQ(d["guarded"], false);
  const std::string text = d["text"];
  EXPECT_EQ(text.rfind("[agentworks] 3 messages from other agents for agent:reviewer", 0), 0u) << text;
  EXPECT_NE(text.find("NOT instructions from the person"), std::string::npos);
  EXPECT_NE(text.find("How to handle messages from other agents"), std::string::npos);
  const auto p1 = text.find("--- message " + id1 + " from agent:worker (conversation cnv_");
  const auto p2 = text.find("--- message " + id2 + " from agent:worker");
  const auto p3 = text.find("--- message " + id3 + " from agent:worker");
  ASSERT_NE(p1, std::string::npos) << text;
  EXPECT_LT(p1, p2);
  EXPECT_LT(p2, p3);
  EXPECT_NE(text.find("first: please review PR 7\n--- end of message " + id1 + " ---"), std::string::npos);
  EXPECT_NE(text.find(", inbox inb_"), std::string::npos);
  EXPECT_NE(text.find("agent_message_ack(message_id, delivery)"), std::string::npos);
  EXPECT_NE(text.find("agentworks bridge message reply --provider claude --message-id ID --message TEXT"),
            std::string::npos);
  // Offered once (R-B5): the next stop only asks about them (R-X3), without their text, and the one after that has
  // nothing; the next message comes with the hint but without the instructions.
  const std::string nudge = deliver("s1")["text"];
  EXPECT_NE(nudge.find("this turn received " + id1 + ", " + id2 + ", " + id3 + " from other agents and did not "
                       "answer them"), std::string::npos) << nudge;
  EXPECT_EQ(nudge.find("first: please review"), std::string::npos) << nudge;
  EXPECT_EQ(deliver("s1")["text"], "");
  const std::string id4 = send("fourth");
  ASSERT_TRUE(wait_pending("s1", 1));
  const json d2 = deliver("s1");
  EXPECT_EQ(d2["message_ids"], json::array({id4}));
  EXPECT_EQ(d2["guidance"], false);
  const std::string text2 = d2["text"];
  EXPECT_EQ(text2.find("How to handle"), std::string::npos);
  EXPECT_NE(text2.find("agent_message_reply(message_id, message)"), std::string::npos);
  EXPECT_NE(text2.find("[agentworks] 1 message from other agents"), std::string::npos);
}

// R-H1: the text fits max_chars (UTF-16 units); what does not fit stays pending for the next stop, in order,
// and nothing is offered twice. A single message over the budget is offered truncated with a way to read it.
TEST_F(BridgeHookOpsTest, BudgetLeavesTheRestPendingAndTruncatesOneLongMessage_RH1) {
  start_bridge();
  attach_connected("s2");
  nudge_off();
  std::vector<std::string> sent;
  for (int i = 0; i < 5; ++i) sent.push_back(send("message " + std::to_string(i) + " " + repeat("\xF0\x9F\x98\x80", 400)));
  ASSERT_TRUE(wait_pending("s2", 5));
  std::vector<std::string> got;
  bool first = true;
  for (int round = 0; round < 10 && got.size() < sent.size(); ++round) {
    const json d = deliver("s2", {{"max_chars", 3000}, {"stop_hook_active", !first}, {"max_continuations", 8}});
    first = false;
    ASSERT_EQ(d.value("ok", false), true) << d.dump();
    EXPECT_LE(utf16(d["text"]), 3000u);
    ASSERT_FALSE(d["message_ids"].empty()) << d.dump();
    for (const auto& id : d["message_ids"]) got.push_back(id);
    EXPECT_EQ(d["pending"], static_cast<long>(sent.size() - got.size()));
    if (got.size() < sent.size()) {
      EXPECT_NE(d["text"].get<std::string>().find("waiting; they arrive after your next turn"), std::string::npos);
    }
  }
  EXPECT_EQ(got, sent);  // all, oldest first, each once

  const std::string long_id = send(repeat("long text ", 1000));  // 10,000 characters
  ASSERT_TRUE(wait_pending("s2", 1));
  const json d = deliver("s2", {{"max_chars", 2000}});
  EXPECT_EQ(d["message_ids"], json::array({long_id}));
  EXPECT_EQ(d["truncated"], true);
  const std::string text = d["text"];
  EXPECT_LE(utf16(text), 2000u);
  EXPECT_NE(text.find("message truncated: showed the first "), std::string::npos) << text;
  EXPECT_NE(text.find(" of 10000 characters"), std::string::npos) << text;
  EXPECT_NE(text.find("agentworks messages read --agent reviewer --inbox inb_"), std::string::npos);
  EXPECT_NE(text.find("--- end of message " + long_id + " ---"), std::string::npos);
}

// R-H2: at most max_continuations deliveries per chain of stops; stop_hook_active:false starts a new chain;
// Cursor's loop_count is the chain length.
TEST_F(BridgeHookOpsTest, LoopGuardStopsContinuations_RH2) {
  start_bridge();
  attach_connected("s3");
  nudge_off();
  const json opts = {{"max_continuations", 2}};
  auto deliver_with = [&](bool active) {
    json extra = opts;
    extra["stop_hook_active"] = active;
    return deliver("s3", extra);
  };
  send("a");
  ASSERT_TRUE(wait_pending("s3", 1));
  EXPECT_EQ(deliver_with(false)["message_ids"].size(), 1u);  // chain: 1
  send("b");
  ASSERT_TRUE(wait_pending("s3", 1));
  EXPECT_EQ(deliver_with(true)["message_ids"].size(), 1u);  // chain: 2
  send("c");
  ASSERT_TRUE(wait_pending("s3", 1));
  const json guarded = deliver_with(true);  // the chain is full
  EXPECT_EQ(guarded["guarded"], true) << guarded.dump();
  EXPECT_EQ(guarded["text"], "");
  EXPECT_EQ(guarded["pending"], 1);
  const json next_turn = deliver_with(false);  // the person's next turn starts a new chain
  EXPECT_EQ(next_turn["guarded"], false);
  EXPECT_EQ(next_turn["message_ids"].size(), 1u);

  // Cursor: loop_count is the chain length itself.
  send("d");
  ASSERT_TRUE(wait_pending("s3", 1));
  const json c1 = deliver("s3", {{"loop_count", 2}, {"max_continuations", 2}});
  EXPECT_EQ(c1["guarded"], true);
  EXPECT_EQ(c1["pending"], 1);
  const json c2 = deliver("s3", {{"loop_count", 1}, {"max_continuations", 2}});
  EXPECT_EQ(c2["guarded"], false);
  EXPECT_EQ(c2["message_ids"].size(), 1u);
  // max_continuations 0 turns delivery by continuation off entirely.
  send("e");
  ASSERT_TRUE(wait_pending("s3", 1));
  EXPECT_EQ(deliver("s3", {{"max_continuations", 0}})["guarded"], true);
}

// R-B5, invariant 1: a message offered by deliver is never delivered again, not after a crash right after the
// offer was persisted (before any answer), not after a restart.
TEST_F(BridgeHookOpsTest, OfferedMessageNeverRedeliveredAcrossRestart_RB5) {
  if (!programs_have_failpoints()) GTEST_SKIP() << "built without failpoints (the asan and debug presets have them)";
  start_bridge({{"AGENTWORKS_FAILPOINT", "bridge.after_offer_commit"}});
  attach_connected("s4");
  const std::string id = send("exactly once");
  ASSERT_TRUE(wait_pending("s4", 1));
  EXPECT_FALSE(bridge_call(home_, {{"op", "deliver"}, {"provider", "claude"}, {"session_id", "s4"}}).has_value());
  bridge_->kill();  // reaps the SIGKILLed bridge
  {
    JournalReader j(home_.state_home() / "agentworks" / "journal.db");
    const auto rows = j.rows("SELECT state FROM messages WHERE message_id = '" + id + "'");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0][0], "offered");
  }
  start_bridge();
  ASSERT_TRUE(wait_until([&] { return stream_connected("s4"); }, std::chrono::seconds(20)));
  const json after = deliver("s4");
  EXPECT_TRUE(after["message_ids"].empty());  // never offered again
  // but the chat is told, by id, that it may not have arrived.
  EXPECT_NE(after.value("text", "").find("may not have arrived"), std::string::npos) << after.dump();
  EXPECT_NE(after.value("text", "").find(id), std::string::npos);
  EXPECT_EQ(after.value("text", "").find("exactly once\n"), std::string::npos);
  const std::string id2 = send("after the restart");
  ASSERT_TRUE(wait_pending("s4", 1));
  EXPECT_EQ(deliver("s4")["message_ids"], json::array({id2}));
  EXPECT_EQ(bridge_->stop(), 0);
  start_bridge();
  EXPECT_TRUE(deliver("s4")["message_ids"].empty());
}

// R-H5: bare attach proposes a unique name from the folder and provider (unique against the account's names)
// and a purpose; --confirm attaches under it; confirm without a proposal is not_found.
TEST_F(BridgeHookOpsTest, AttachProposeThenConfirm_RH5) {
  start_bridge();
  register_agent(owner(), "my-repo-claude");  // taken: the proposal must avoid it
  const json p = command("s5", "attach", {{"cwd", "/work/My Repo"}, {"process", kProcess}});
  ASSERT_EQ(p.value("ok", false), true) << p.dump();
  EXPECT_EQ(p["proposed"], true);
  EXPECT_EQ(p["agent_name"], "my-repo-claude-2");
  EXPECT_EQ(p["purpose"], "Claude Code chat in /work/My Repo");
  EXPECT_NE(p["text"].get<std::string>().find("`/agentworks attach --confirm`"), std::string::npos) << p.dump();
  EXPECT_FALSE(call({{"op", "lookup"}, {"provider", "claude"}, {"session_id", "s5"}})["attached"].get<bool>());
  // Another session has no proposal to confirm.
  EXPECT_EQ(command("other", "attach", {{"confirm", true}})["error"]["code"], "not_found");
  const json c = command("s5", "attach", {{"confirm", true}, {"process", kProcess}});
  ASSERT_EQ(c.value("ok", false), true) << c.dump();
  EXPECT_EQ(c["agent_name"], "my-repo-claude-2");
  EXPECT_EQ(c["verb"], "attach");
  EXPECT_EQ(c["text"].get<std::string>().rfind(
                "Attached this chat as my-repo-claude-2 (Claude Code chat in /work/My Repo). Messages to "
                "agent:my-repo-claude-2 arrive at the end of each turn (native push is off: ",
                0),
            0u)
      << c.dump();
  // Codex is addressed without the slash (its TUI rejects unknown slash commands).
  const json cx = call({{"op", "command"}, {"provider", "codex"}, {"session_id", "x1"}, {"verb", "attach"},
                        {"cwd", "/work/My Repo"}});
  EXPECT_EQ(cx["agent_name"], "my-repo-codex");
  EXPECT_NE(cx["text"].get<std::string>().find("`agentworks attach --confirm`"), std::string::npos);
}

// R-H7, R-H8: a named attach; a second session taking the name fences the first, and the messages waiting for
// the name arrive in the new session; status and detach answer with text for the person.
TEST_F(BridgeHookOpsTest, SecondSessionTakesTheNameStatusAndDetach_RH7_RH8) {
  start_bridge();
  attach_connected("old");
  EXPECT_EQ(command("old", "status")["text"].get<std::string>().rfind(
                "This chat is attached as reviewer (Review PRs); its connection is connected. No messages are waiting.",
                0),
            0u);
  const std::string waiting = send("waiting for whoever holds the name");
  ASSERT_TRUE(wait_pending("old", 1));
  // the old session is connected, so the name moves only with `take`; without it nothing changes.
  const json asked = attach("new", "reviewer");
  EXPECT_EQ(asked["take_needed"], true) << asked.dump();
  EXPECT_EQ(asked["held_by"]["session_id"], "old");
  EXPECT_EQ(asked["held_by"]["connected"], true);
  EXPECT_EQ(status_of("old").value("state", ""), "attached");
  EXPECT_TRUE(status_of("new").is_null());
  const json moved =
      command("new", "attach", {{"name", "reviewer"}, {"purpose", "Review PRs"}, {"process", kProcess}, {"take", true}});
  ASSERT_EQ(moved.value("ok", false), true) << moved.dump();
  EXPECT_EQ(moved["took_from"]["session_id"], "old");
  EXPECT_NE(moved["text"].get<std::string>().find("1 message is waiting."), std::string::npos) << moved.dump();
  ASSERT_TRUE(wait_until([&] { return status_of("old").value("state", "") == "fenced"; }, std::chrono::seconds(20)))
      << status_of("old").dump();
  const json old_deliver = deliver("old");
  EXPECT_EQ(old_deliver["state"], "fenced");
  EXPECT_EQ(old_deliver["text"], "");
  EXPECT_NE(command("old", "status")["text"].get<std::string>().find("This chat lost the name reviewer to a Claude "
                                                                      "chat (session new) at "),
            std::string::npos);
  EXPECT_EQ(deliver("new")["message_ids"], json::array({waiting}));

  const json detached = command("new", "detach");
  ASSERT_EQ(detached.value("ok", false), true) << detached.dump();
  EXPECT_EQ(detached["text"].get<std::string>().rfind("Detached this chat from reviewer.", 0), 0u);
  EXPECT_EQ(command("new", "status")["attached"], false);
  EXPECT_EQ(deliver("new")["attached"], false);
}

// R-H11: resume needs the current provider process key; with it an offline attachment reconnects and delivers.
TEST_F(BridgeHookOpsTest, ResumeNeedsTheProcessKey_RH11) {
  start_bridge();
  attach_connected("s6");
  EXPECT_EQ(call({{"op", "offline"}, {"provider", "claude"}, {"session_id", "s6"}})["state"], "offline");
  EXPECT_EQ(deliver("s6")["state"], "offline");
  EXPECT_NE(command("s6", "status")["text"].get<std::string>().find("is offline"), std::string::npos);
  const std::string id = send("while offline");
  EXPECT_EQ(command("s6", "resume")["error"]["code"], "bad_request");
  EXPECT_EQ(call({{"op", "resume"}, {"provider", "claude"}, {"session_id", "s6"}})["error"]["code"], "bad_request");
  const json process2 = {{"pid", 5151}, {"start", "123"}};
  const json r = command("s6", "resume", {{"process", process2}});
  ASSERT_EQ(r.value("ok", false), true) << r.dump();
  EXPECT_EQ(r["text"].get<std::string>().rfind(
                "Reconnected this chat as reviewer. Waiting messages arrive at the end of each turn (native push is "
                "off: ",
                0),
            0u)
      << r.dump();
  {
    JournalReader j(home_.state_home() / "agentworks" / "journal.db");
    const auto rows = j.rows("SELECT provider_pid, provider_start FROM attachments WHERE session_id = 's6'");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0][0], "5151");
    EXPECT_EQ(rows[0][1], "123");
  }
  ASSERT_TRUE(wait_pending("s6", 1));
  EXPECT_EQ(deliver("s6")["message_ids"], json::array({id}));
  const json cleaned = command("s6", "cleanup");
  EXPECT_EQ(cleaned["verb"], "cleanup");
  EXPECT_EQ(cleaned["text"].get<std::string>().rfind("Cleaned up local agentworks data", 0), 0u);
}

// Migration: a journal written by the first schema (no provider process columns) opens, keeps its attachment,
// and gets the new columns.
TEST_F(BridgeHookOpsTest, JournalOfTheFirstSchemaOpens) {
  const auto dir = home_.state_home() / "agentworks";
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "journal.db").c_str(), &db), SQLITE_OK);
  const char* v1 =
      "CREATE TABLE attachments(attachment_id TEXT PRIMARY KEY, provider TEXT NOT NULL, session_id TEXT NOT NULL, "
      "agent_name TEXT NOT NULL, purpose TEXT NOT NULL, server_url TEXT NOT NULL, connection_id TEXT NOT NULL, "
      "state TEXT NOT NULL, guidance_at INTEGER, created_at INTEGER NOT NULL);"
      "INSERT INTO attachments VALUES('att_old','claude','legacy','reviewer','p','http://127.0.0.1:1','conn_x',"
      "'offline',NULL,1);"
      "PRAGMA user_version = 1;";
  ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  std::filesystem::permissions(dir / "journal.db",
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  start_bridge();
  EXPECT_EQ(status_of("legacy")["state"], "offline");
  EXPECT_EQ(deliver("legacy")["state"], "offline");
  JournalReader j(dir / "journal.db");
  EXPECT_EQ(j.rows("PRAGMA user_version")[0][0], "6");
  EXPECT_EQ(j.rows("SELECT count(provider_pid) FROM attachments")[0][0], "0");
}

// R-B5, R-B6: the hook went away before its answer was written (a killed or timed-out hook). The
// offer stays offered and is never offered again, but it counts as possibly lost, and the chat's next delivery
// lists it with the read command.
TEST_F(BridgeHookOpsTest, ClientGoneBeforeTheAnswerMakesTheOfferPossiblyLost) {
  start_bridge();
  attach_connected("sess-gone");
  const std::string id = send("gone before the answer");
  ASSERT_TRUE(wait_pending("sess-gone", 1));
  {
    BridgeClient client(bridge_socket(home_));
    client.greeting();
    client.mark_greeted();
    const json req = {{"id", 1}, {"op", "deliver"}, {"provider", "claude"}, {"session_id", "sess-gone"}};
    ASSERT_TRUE(client.send_raw(req.dump() + "\n"));
  }  // closed at once, before the release check answers
  ASSERT_TRUE(wait_until([&] { return status_of("sess-gone").value("possibly_lost", 0) == 1; }))
      << status_of("sess-gone").dump();
  EXPECT_EQ(status_of("sess-gone")["offered_not_admitted"], 1);
  EXPECT_EQ(status_of("sess-gone")["possibly_lost_ids"], json::array({id}));
  const json d = deliver("sess-gone");
  ASSERT_EQ(d["ok"], true) << d.dump();
  EXPECT_TRUE(d["message_ids"].empty());
  EXPECT_NE(d.value("text", "").find("1 earlier message offered to this chat may not have arrived"),
            std::string::npos)
      << d.dump();
  EXPECT_NE(d.value("text", "").find(id), std::string::npos);
  // Told once: the next delivery (nothing waiting) is quiet again; cleanup clears the count.
  EXPECT_EQ(deliver("sess-gone").value("text", "x"), "");
  EXPECT_EQ(status_of("sess-gone")["possibly_lost"], 1);
  EXPECT_EQ(call({{"op", "cleanup"}})["possibly_lost_cleared"], 1);
  EXPECT_EQ(status_of("sess-gone")["possibly_lost"], 0);
}

// an attach whose config path is a FIFO (or a directory) is refused with a clear bad_request at once;
// opening it never blocks the bridge's only loop, which still answers `status`. Nothing is attached.
TEST_F(BridgeHookOpsTest, AttachWithAFifoConfigIsRefusedAndTheBridgeKeepsAnswering) {
  start_bridge();
  const auto fifo = home_.path("config.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const json a = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", "sess-fifo"},
                       {"agent_name", "reviewer"}, {"purpose", "p"}, {"config", fifo.string()}});
  EXPECT_EQ(a["error"]["code"], "bad_request") << a.dump();
  EXPECT_NE(a["error"]["message"].get<std::string>().find("is not a regular file"), std::string::npos) << a.dump();
  // The typed command takes the same path.
  const json c = command("sess-fifo", "attach", {{"name", "reviewer"}, {"config", fifo.string()}});
  EXPECT_EQ(c["error"]["code"], "bad_request") << c.dump();
  const json dir = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", "sess-fifo"},
                         {"agent_name", "reviewer"}, {"purpose", "p"}, {"config", home_.path("").string()}});
  EXPECT_EQ(dir["error"]["code"], "bad_request") << dir.dump();
  const json status = call({{"op", "status"}});
  EXPECT_EQ(status["ok"], true);
  EXPECT_TRUE(status["attachments"].empty());
}

}  // namespace
}  // namespace agentworks::testing

namespace agentworks::testing {
namespace {

// R-X1, R-X5: the person sets an agent `direct`; then the final text of a turn that took messages from one
// conversation (the Stop hook's last_assistant_message) is sent as the reply, once: a repeated stop never doubles
// it. Explicit (the default) keeps the text private; a turn that took messages from two conversations falls back to
// explicit; an empty final text sends nothing. Only the person's login sets the mode; bad values change nothing.
TEST_F(BridgeHookOpsTest, ADirectAgentsFinalTextIsItsReplyOnce_RX1_RX5) {
  start_bridge();
  attach_connected("s1");
  EXPECT_EQ(cli_ok(owner(), {"agents", "show", "reviewer"}).at("communication"), "explicit");
  const json first = send_as(owner(), "worker", "agent:reviewer", "what is 2+2?");
  ASSERT_TRUE(wait_pending("s1", 1));
  ASSERT_EQ(deliver("s1", {{"stop_hook_active", false}, {"process", kProcess}})["message_ids"].size(), 1u);
  // Explicit: the final text stays private.
  deliver("s1", {{"stop_hook_active", true}, {"process", kProcess}, {"last_assistant_message", "private words"}});

  Identity chat = create_child(owner_token(), "reviewer");
  EXPECT_EQ(chat.http.post("/v1/agents/reviewer/communication", R"({"communication":"direct"})").status, 403)
      << "the chat cannot choose for the person";
  EXPECT_EQ(owner().json({"agents", "set", "reviewer", "--communication", "loud"}).exit_code, 2);
  EXPECT_EQ(http_json(owner_http(), "POST", "/v1/agents/reviewer/communication", R"({"communication":"loud"})", 400)
                .at("error").at("code"), "bad_request");
  EXPECT_EQ(cli_ok(owner(), {"agents", "set", "reviewer", "--communication", "direct"}).at("communication"), "direct");

  deliver("s1", {{"stop_hook_active", false}, {"process", kProcess}, {"last_assistant_message", "It is 4."}});
  ASSERT_TRUE(wait_until([&] { return texts_of(read_inbox(owner(), first.at("inbox_id"))).back() == "It is 4."; },
                         std::chrono::seconds(20), std::chrono::milliseconds(50)));
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/messages/" + first.at("message_id").get<std::string>() + "/receipt",
                      std::nullopt, 200).at("delivery").at("reply_state"), "replied");
  deliver("s1", {{"stop_hook_active", true}, {"process", kProcess}, {"last_assistant_message", "It is 4."}});
  deliver("s1", {{"stop_hook_active", false}, {"process", kProcess}, {"last_assistant_message", "   "}});

  // Two conversations in one turn: nothing is sent to either.
  register_agent(owner(), "critic");
  const json a = send_as(owner(), "worker", "agent:reviewer", "A?");
  const json b = send_as(owner(), "critic", "agent:reviewer", "B?");
  ASSERT_TRUE(wait_pending("s1", 2));
  ASSERT_EQ(deliver("s1", {{"stop_hook_active", false}, {"process", kProcess}})["message_ids"].size(), 2u);
  deliver("s1", {{"stop_hook_active", false}, {"process", kProcess}, {"last_assistant_message", "to both?"}});
  ASSERT_TRUE(wait_until([&] { return bridge_->log().find("2 conversations") != std::string::npos; },
                         std::chrono::seconds(20), std::chrono::milliseconds(50)))
      << bridge_->log();
  EXPECT_EQ(texts_of(read_inbox(owner(), b.at("inbox_id"))), std::vector<std::string>{"B?"});
  // The person is told in status why the text stayed private.
  const json listed = cli_ok(owner(), {"status", "--agents"});
  ASSERT_EQ(listed.at("attachments").size(), 1u) << listed.dump();
  EXPECT_NE(listed.at("attachments")[0].value("turn_note", "").find("took messages from 2 conversations"),
            std::string::npos)
      << listed.dump();
  EXPECT_EQ(listed.at("attachments")[0].at("communication"), "direct") << listed.dump();
  EXPECT_EQ(listed.at("attachments")[0].at("nudge"), "on") << listed.dump();
  const auto table = owner().run({"status", "--agents"});
  EXPECT_NE(table.out.find("TALKS"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("took messages from 2 conversations"), std::string::npos) << table.out;
  const auto first_texts = texts_of(read_inbox(owner(), first.at("inbox_id")));
  EXPECT_EQ(std::count(first_texts.begin(), first_texts.end(), "It is 4."), 1) << "a repeated stop never doubles it";
  EXPECT_EQ(std::count(first_texts.begin(), first_texts.end(), "private words"), 0) << "explicit stays private";
  EXPECT_EQ(first_texts.back(), "A?") << "nothing after the worker's next question";
}

// R-X3: a turn that took a message and ends without answering it is asked once, in the same turn (the question
// names the message, never its text); still silent, the message reads `unanswered` and its sender gets one status
// line. A reply after that still answers it. With the person's nudge off the sender is told at the first silent
// stop; a decline is an answer and tells nobody.
TEST_F(BridgeHookOpsTest, ASilentTurnIsAskedOnceThenItsSenderIsToldOnce_RX3) {
  start_bridge();
  attach_connected("s1");
  const auto stop = [&](bool active) { return deliver("s1", {{"stop_hook_active", active}, {"process", kProcess}}); };
  const auto reply_state = [&](const std::string& id) {
    return http_json(owner_http(), "GET", "/v1/messages/" + id + "/receipt", std::nullopt, 200)
        .at("delivery")
        .value("reply_state", "");
  };
  const auto status_lines = [&] {
    std::vector<std::string> out;
    const json page = read_mailbox(owner(), "worker");
    for (const auto& m : page.at("messages"))
      if (m.value("kind", "") == "status") out.push_back(m.at("message"));
    return out;
  };
  const json first = send_as(owner(), "worker", "agent:reviewer", "please review PR 40");
  const std::string id = first.at("message_id");
  ASSERT_TRUE(wait_pending("s1", 1));
  ASSERT_EQ(stop(false)["message_ids"], json::array({id}));
  const json asked = stop(true);
  const std::string question = asked.value("text", "");
  EXPECT_NE(question.find("this turn received " + id + " from other agents and did not answer it"), std::string::npos)
      << question;
  EXPECT_NE(question.find("agent_message_no_reply"), std::string::npos) << question;
  EXPECT_EQ(question.find("please review PR 40"), std::string::npos) << question;
  EXPECT_TRUE(asked["message_ids"].empty());
  EXPECT_EQ(reply_state(id), "pending") << "asking tells the sender nothing";
  EXPECT_EQ(stop(true).value("text", "x"), "");
  ASSERT_TRUE(wait_until([&] { return reply_state(id) == "unanswered"; }, std::chrono::seconds(20))) << bridge_->log();
  const std::vector<std::string> told = {"reviewer ended its turn without replying to " + id + "."};
  ASSERT_TRUE(wait_until([&] { return status_lines() == told; }, std::chrono::seconds(20)));
  EXPECT_EQ(stop(false).value("text", "x"), "");
  EXPECT_EQ(status_lines(), told) << "one status line per message";
  const json late = call({{"op", "reply"}, {"provider", "claude"}, {"session_id", "s1"}, {"message_id", id},
                          {"message", "reviewed after all"}});
  ASSERT_EQ(late.value("ok", false), true) << late.dump();
  EXPECT_EQ(reply_state(id), "replied");

  // Nudge off: the first silent stop tells the sender.
  EXPECT_EQ(cli_ok(owner(), {"agents", "set", "reviewer", "--nudge", "off"}).at("nudge"), "off");
  const std::string fyi = send("FYI: the build is green");
  ASSERT_TRUE(wait_pending("s1", 1));
  ASSERT_EQ(stop(false)["message_ids"], json::array({fyi}));
  EXPECT_EQ(stop(true).value("text", "x"), "");
  ASSERT_TRUE(wait_until([&] { return reply_state(fyi) == "unanswered"; }, std::chrono::seconds(20)));
  ASSERT_TRUE(wait_until([&] { return status_lines().size() == 2; }, std::chrono::seconds(20)));

  // A decline answers: nobody is asked or told.
  cli_ok(owner(), {"agents", "set", "reviewer", "--nudge", "on"});
  const std::string thanks = send("thanks!");
  ASSERT_TRUE(wait_pending("s1", 1));
  ASSERT_EQ(stop(false)["message_ids"], json::array({thanks}));
  const json declined = call({{"op", "no_reply"}, {"provider", "claude"}, {"session_id", "s1"}});
  ASSERT_EQ(declined.value("ok", false), true) << declined.dump();
  EXPECT_EQ(stop(true).value("text", "x"), "");
  EXPECT_EQ(reply_state(thanks), "no_reply");
  EXPECT_EQ(status_lines().size(), 2u);
}

// R-W1 R-W2 R-W3 R-W5: the chat schedules, lists and cancels its own wakeups through the bridge (the op behind its
// tools); a due one arrives in the same offer as a message that waits with it, named as the server's, and the
// chat's acknowledgement reads delivered on the server. Bad input is refused with the field named.
TEST_F(BridgeHookOpsTest, AChatsWakeupPromptsItsTurnWithTheWaitingMessage_RW1_RW2_RW3_RW5) {
  start_bridge();
  attach_connected("s1");
  const auto wakeup = [&](json fields) {
    json req = {{"op", "wakeup"}, {"provider", "claude"}, {"session_id", "s1"}};
    for (auto& [k, v] : fields.items()) req[k] = v;
    return call(req);
  };
  const json later = wakeup({{"action", "schedule"}, {"after_minutes", 60}, {"note", "not yet"}});
  ASSERT_TRUE(later.value("ok", false)) << later.dump();
  const std::string later_id = later.at("answer").at("wakeup_id").get<std::string>();
  const json soon = wakeup({{"action", "schedule"},
                            {"at", utc_text(static_cast<std::int64_t>(std::time(nullptr)) + 2)},
                            {"note", "check the CI run"}});
  ASSERT_TRUE(soon.value("ok", false)) << soon.dump();
  const std::string id = soon.at("answer").at("wakeup_id").get<std::string>();
  EXPECT_EQ(wakeup({{"action", "list"}}).at("answer").at("wakeups").size(), 2u);
  EXPECT_EQ(wakeup({{"action", "cancel"}, {"wakeup_id", later_id}}).at("answer").at("state"), "cancelled");
  EXPECT_EQ(wakeup({{"action", "snooze"}}).at("error").at("code"), "bad_request");
  EXPECT_EQ(wakeup({{"action", "schedule"}, {"after_minutes", "5"}, {"note", "n"}}).at("error").at("code"),
            "bad_request");
  EXPECT_EQ(wakeup({{"action", "list"}, {"note", "n"}}).at("error").at("code"), "bad_request");
  EXPECT_EQ(wakeup({{"action", "schedule"}, {"after_minutes", 0}, {"note", "n"}}).at("error").at("code"),
            "bad_request");

  const std::string message_id = send("is the build green?");
  ASSERT_TRUE(wait_pending("s1", 2, std::chrono::seconds(30))) << "the wakeup never reached the bridge";
  const json offer = deliver("s1", {{"stop_hook_active", false}, {"process", kProcess}});
  ASSERT_EQ(offer.at("message_ids").size(), 2u) << "one offer carries the message and the wakeup: " << offer.dump();
  const std::string text = offer.at("text").get<std::string>();
  EXPECT_NE(text.find("agentworks (a wakeup you scheduled, not an agent's words)"), std::string::npos) << text;
  EXPECT_NE(text.find("check the CI run"), std::string::npos) << text;
  EXPECT_NE(text.find("is the build green?"), std::string::npos) << text;
  const auto state_of_wakeup = [&] {
    const json list = cli_ok(owner(), {"wakeups", "list", "--agent", "reviewer"});
    for (const json& w : list.at("wakeups"))
      if (w.at("wakeup_id") == id) return w;
    return json();
  };
  EXPECT_EQ(state_of_wakeup().at("state"), "offered");
  const std::string notice_id = state_of_wakeup().at("message_id").get<std::string>();
  const json ack = call({{"op", "ack"}, {"provider", "claude"}, {"session_id", "s1"}, {"message_id", notice_id},
                         {"delivery", "processed"}});
  ASSERT_TRUE(ack.value("ok", false)) << ack.dump();
  EXPECT_TRUE(wait_until([&] { return state_of_wakeup().at("state") == "delivered"; }, std::chrono::seconds(20)));
  EXPECT_NE(message_id, notice_id);
}

}  // namespace
}  // namespace agentworks::testing
