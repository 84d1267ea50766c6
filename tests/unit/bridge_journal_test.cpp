// The offer journal, without sockets: invariants 1, 2 and 10 and the quota/cleanup rules (R-B5, R-B6, R-B9..12,
// R-B17).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "agentworks/sqlite.hpp"
#include "state/journal.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bridge {
namespace {

namespace fs = std::filesystem;

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = agentworks::testing::make_temp_dir("bridge_journal_", "/tmp");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string db_path() const { return (dir_ / "journal.db").string(); }

  static AttachmentRow row(const std::string& id = "att_1", const std::string& session = "s1",
                           const std::string& agent = "Reviewer") {
    AttachmentRow r;
    r.attachment_id = id;
    r.provider = "claude";
    r.session_id = session;
    r.agent_name = agent;
    r.purpose = "review";
    r.server_url = "http://127.0.0.1:1";
    r.connection_id = "conn_1";
    r.state = AttachmentState::attached;
    r.created_at = 100;
    return r;
  }

  static IncomingMessage msg(std::int64_t seq, const std::string& body = "{\"message\":\"hi\"}") {
    return IncomingMessage{"msg_" + std::to_string(seq), seq, body, false, ""};
  }

  static std::vector<std::string> ids(const std::vector<CachedMessage>& ms) {
    std::vector<std::string> out;
    for (const auto& m : ms) out.push_back(m.message_id);
    return out;
  }

  fs::path dir_;
};

TEST_F(JournalTest, FileIsPrivate_RB9) {
  Journal j(db_path());
  struct stat st {};
  ASSERT_EQ(::stat(db_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(JournalTest, ReceivedMessageIsPendingWithBody) {
  Journal j(db_path());
  j.upsert_attachment(row());
  EXPECT_EQ(j.record_received(row(), msg(5), 1000), ReceiveResult::cached);
  const auto p = j.pending("att_1", 20);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].message_id, "msg_5");
  EXPECT_EQ(p[0].body, "{\"message\":\"hi\"}");
  EXPECT_EQ(j.counts("att_1").pending, 1);
  EXPECT_EQ(j.watermark("http://127.0.0.1:1", "reviewer"), 5);  // case-insensitive agent key
}

// R-B5 / invariant 1: an offered message is never offered automatically again, and its body is cleared (R-B10).
TEST_F(JournalTest, OfferIsOnceAndClearsBody_RB5_RB10) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.record_received(row(), msg(1), 1000);
  j.record_received(row(), msg(2), 1000);
  const auto first = j.offer("att_1", {"msg_1", "msg_2"}, OfferSeen::this_turn, 1001);
  ASSERT_EQ(first.messages.size(), 2u);
  EXPECT_EQ(first.messages[0].body, "{\"message\":\"hi\"}");
  EXPECT_TRUE(j.pending("att_1", 20).empty());
  const auto second = j.offer("att_1", {"msg_1", "msg_2"}, OfferSeen::this_turn, 1002);
  EXPECT_TRUE(second.messages.empty());
  EXPECT_EQ(j.message_state("msg_1"), MessageState::offered);
  EXPECT_EQ(j.total_body_bytes(), 0);
  EXPECT_EQ(j.counts("att_1").offered_not_admitted, 2);
}

// R-B11: the quota's input, the bytes of the cached bodies, and the per-state counts `status` shows are kept by the
// database on every change of a message row (no scan of the table per received batch or per `status`); they equal
// the rows through caching, offers, a return to pending and removal, and wrong values left in the file are
// corrected when the journal opens.
TEST_F(JournalTest, TheQuotaAndTheCountsAreKeptByTheDatabase_RB9_RB11) {
  const auto rows_sum = [](Journal& j) {
    sql::Stmt s(j.db(), "SELECT coalesce(sum(size), 0) FROM messages WHERE body IS NOT NULL");
    return s.step() ? s.int64(0) : -1;
  };
  // "received:2 offered:1" from the rows themselves.
  const auto rows_counts = [](Journal& j, const std::string& attachment) {
    sql::Stmt s(j.db(), "SELECT state, count(*) FROM messages WHERE attachment_id = ?1 GROUP BY state ORDER BY state");
    s.bind(1, attachment);
    std::string out;
    while (s.step()) out += s.text(0) + ":" + std::to_string(s.int64(1)) + " ";
    return out;
  };
  const auto kept_counts = [](Journal& j, const std::string& attachment) {
    const auto c = j.counts(attachment);
    std::string out;
    if (c.admitted > 0) out += "admitted:" + std::to_string(c.admitted) + " ";
    if (c.offered_not_admitted > 0) out += "offered:" + std::to_string(c.offered_not_admitted) + " ";
    if (c.processed > 0) out += "processed:" + std::to_string(c.processed) + " ";
    if (c.pending > 0) out += "received:" + std::to_string(c.pending) + " ";
    if (c.withheld > 0) out += "withheld:" + std::to_string(c.withheld) + " ";
    return out;
  };
  const auto agree = [&](Journal& j) {
    EXPECT_EQ(j.total_body_bytes(), rows_sum(j));
    EXPECT_EQ(kept_counts(j, "att_1"), rows_counts(j, "att_1"));
    EXPECT_EQ(kept_counts(j, "att_2"), rows_counts(j, "att_2"));
  };
  {
    Journal j(db_path());
    j.upsert_attachment(row());
    j.upsert_attachment(row("att_2", "s2", "Worker"));
    j.record_received(row(), msg(1), 1000);
    j.record_received(row(), msg(2, "{\"message\":\"a longer body\"}"), 1000);
    j.record_received(row("att_2", "s2", "Worker"), msg(3), 1000);
    EXPECT_GT(j.total_body_bytes(), 0);
    EXPECT_EQ(kept_counts(j, "att_1"), "received:2 ");
    agree(j);
    const auto offered = j.offer("att_1", {"msg_1", "msg_2"}, OfferSeen::this_turn, 1001);
    ASSERT_EQ(offered.messages.size(), 2u);
    agree(j);
    EXPECT_EQ(j.return_to_pending("att_1", offered.messages), 2u);
    agree(j);
    ASSERT_EQ(j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1002).messages.size(), 1u);
    ASSERT_TRUE(j.set_delivery("msg_1", MessageState::processed, 1003));
    agree(j);
    j.cleanup(1004, CleanupScope::by_person);
    agree(j);
    j.remove_attachment("att_2");
    agree(j);
    j.db().exec("UPDATE counters SET value = 123456 WHERE name = 'cached_body_bytes'");
    j.db().exec("UPDATE message_counts SET n = 99");
  }
  Journal reopened(db_path());
  EXPECT_GT(reopened.total_body_bytes(), 0);
  agree(reopened);
}

// R-N2: a native push refused before anything was written puts exactly those offered messages back, bodies and
// all, for the Stop hook; an acknowledged one stays acknowledged.
TEST_F(JournalTest, RefusedNativePushReturnsToPending_RN2) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.record_received(row(), msg(1), 1000);
  j.record_received(row(), msg(2), 1000);
  const auto batch = j.offer("att_1", {"msg_1", "msg_2"}, OfferSeen::this_turn, 1001);
  ASSERT_EQ(batch.messages.size(), 2u);
  ASSERT_TRUE(j.set_delivery("msg_2", MessageState::admitted, 1002));
  EXPECT_EQ(j.return_to_pending("att_1", batch.messages), 1u);
  EXPECT_EQ(j.message_state("msg_1"), MessageState::received);
  EXPECT_EQ(j.message_state("msg_2"), MessageState::admitted);
  const auto again = j.pending("att_1", 20);
  ASSERT_EQ(ids(again), std::vector<std::string>{"msg_1"});
  EXPECT_EQ(again[0].body, "{\"message\":\"hi\"}");
  EXPECT_EQ(j.total_body_bytes(), static_cast<std::int64_t>(again[0].body.size()));
  EXPECT_EQ(j.return_to_pending("att_2", batch.messages), 0u);  // never another attachment's
}

TEST_F(JournalTest, NativeSettingsGoWithTheAttachment) {
  Journal j(db_path());
  j.upsert_attachment(row());
  EXPECT_EQ(j.native_settings("att_1"), "");
  j.set_native_settings("att_1", "{\"enabled\":false}");
  j.set_native_settings("att_1", "{\"enabled\":true}");
  EXPECT_EQ(j.native_settings("att_1"), "{\"enabled\":true}");
  j.remove_attachment("att_1");
  EXPECT_EQ(j.native_settings("att_1"), "");
}

// R-B6: after a restart (reopening the journal) an offered message stays offered, never pending again.
TEST_F(JournalTest, OfferSurvivesRestart_RB6) {
  {
    Journal j(db_path());
    j.upsert_attachment(row());
    j.record_received(row(), msg(1), 1000);
    ASSERT_EQ(j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1001).messages.size(), 1u);
  }
  Journal j(db_path());
  EXPECT_TRUE(j.pending("att_1", 20).empty());
  EXPECT_EQ(j.message_state("msg_1"), MessageState::offered);
  // The stream replays it after the restart: at or below the watermark, it is never cached again.
  EXPECT_EQ(j.record_received(row(), msg(1), 1003), ReceiveResult::below_watermark);
  EXPECT_TRUE(j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1004).messages.empty());
}

// R-B12 / invariant 2: the watermark is monotonic and survives cleanup and detach.
TEST_F(JournalTest, WatermarkMonotonicSurvivesCleanupAndDetach_RB12) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.record_received(row(), msg(10), 1000);
  EXPECT_EQ(j.record_received(row(), msg(7), 1000), ReceiveResult::below_watermark);
  EXPECT_EQ(j.watermark("http://127.0.0.1:1", "Reviewer"), 10);
  j.offer("att_1", {"msg_10"}, OfferSeen::this_turn, 1001);
  j.set_delivery("msg_10", MessageState::processed, 1002);
  const auto c = j.cleanup(1003, CleanupScope::by_person);
  EXPECT_EQ(c.processed_removed, 1);
  EXPECT_FALSE(j.message_state("msg_10"));
  EXPECT_EQ(j.record_received(row(), msg(10), 1004), ReceiveResult::below_watermark);
  j.remove_attachment("att_1");
  // A new attachment of the same agent resumes after the watermark: the retired id cannot come back.
  j.upsert_attachment(row("att_2", "s2"));
  EXPECT_EQ(j.record_received(row("att_2", "s2"), msg(10), 1005), ReceiveResult::below_watermark);
  EXPECT_EQ(j.record_received(row("att_2", "s2"), msg(11), 1005), ReceiveResult::cached);
  EXPECT_EQ(j.watermark("http://127.0.0.1:1", "reviewer"), 11);
}

// R-B4: a message the server already shows as admitted/processed moves the watermark and is not cached.
TEST_F(JournalTest, AcknowledgedOnServerIsNotCached_RB4) {
  Journal j(db_path());
  j.upsert_attachment(row());
  auto m = msg(3);
  m.acknowledged = true;
  EXPECT_EQ(j.record_received(row(), m, 1000), ReceiveResult::acknowledged);
  EXPECT_TRUE(j.pending("att_1", 20).empty());
  EXPECT_EQ(j.watermark("http://127.0.0.1:1", "reviewer"), 3);
}

TEST_F(JournalTest, DuplicateIdIsNotCachedTwice) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.record_received(row(), msg(3), 1000);
  auto again = msg(4);
  again.message_id = "msg_3";
  EXPECT_EQ(j.record_received(row(), again, 1000), ReceiveResult::duplicate);
  EXPECT_EQ(j.pending("att_1", 20).size(), 1u);
}

TEST_F(JournalTest, AcknowledgedMessageIsNeverOffered_RB10) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.record_received(row(), msg(1), 1000);
  EXPECT_TRUE(j.set_delivery("msg_1", MessageState::admitted, 1001));
  EXPECT_TRUE(j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1002).messages.empty());
  EXPECT_EQ(j.total_body_bytes(), 0);
  // Never backwards.
  EXPECT_TRUE(j.set_delivery("msg_1", MessageState::processed, 1003));
  EXPECT_TRUE(j.set_delivery("msg_1", MessageState::admitted, 1004));
  EXPECT_EQ(j.message_state("msg_1"), MessageState::processed);
  EXPECT_FALSE(j.set_delivery("msg_unknown", MessageState::admitted, 1005));
  EXPECT_FALSE(j.set_delivery("msg_1", MessageState::offered, 1005));
}

// R-B9, R-B11, R-B12: at most N messages per session. Under pressure the metadata of handed-out
// messages goes, processed first, then admitted, then offered, oldest first; a pending row never. With no room
// the message is not journaled and the watermark stays before it, so the stream fetches it again later.
TEST_F(JournalTest, QuotaReclaimsHandedOutOldestFirstAndHoldsTheRest_RB9_RB11_RB12) {
  JournalLimits limits;
  limits.max_messages_per_session = 3;
  Journal j(db_path(), limits);
  j.upsert_attachment(row());
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(j.record_received(row(), msg(i), 1000), ReceiveResult::cached);
  EXPECT_EQ(j.record_received(row(), msg(4), 1000), ReceiveResult::over_quota);
  EXPECT_FALSE(j.message_state("msg_4"));
  EXPECT_EQ(j.watermark("http://127.0.0.1:1", "reviewer"), 3);  // not past the message that was not journaled
  EXPECT_EQ(j.free_slots("att_1"), 0);

  j.offer("att_1", {"msg_1", "msg_2", "msg_3"}, OfferSeen::this_turn, 1001);
  j.set_delivery("msg_2", MessageState::processed, 1002);
  j.set_delivery("msg_3", MessageState::admitted, 1002);
  EXPECT_EQ(j.free_slots("att_1"), 3);  // every row is reclaimable now
  EXPECT_EQ(j.record_received(row(), msg(4), 1003), ReceiveResult::cached);
  EXPECT_FALSE(j.message_state("msg_2"));  // processed first
  EXPECT_EQ(j.message_state("msg_3"), MessageState::admitted);
  EXPECT_EQ(j.record_received(row(), msg(5), 1003), ReceiveResult::cached);
  EXPECT_FALSE(j.message_state("msg_3"));  // then admitted
  EXPECT_EQ(j.message_state("msg_1"), MessageState::offered);
  EXPECT_EQ(j.record_received(row(), msg(6), 1003), ReceiveResult::cached);
  EXPECT_FALSE(j.message_state("msg_1"));  // then offered
  EXPECT_EQ(j.watermark("http://127.0.0.1:1", "reviewer"), 6);

  // All three pending: nothing is reclaimed; an acknowledged message after a held one does not move the
  // watermark past it either.
  IncomingMessage acked = msg(8);
  acked.acknowledged = true;
  const auto results = j.record_received_batch(row(), {msg(7), acked}, 1004);
  EXPECT_EQ(results, (std::vector<ReceiveResult>{ReceiveResult::over_quota, ReceiveResult::over_quota}));
  EXPECT_EQ(j.watermark("http://127.0.0.1:1", "reviewer"), 6);
  EXPECT_EQ(ids(j.pending("att_1", 20)), (std::vector<std::string>{"msg_4", "msg_5", "msg_6"}));
  // The old ids stay below the watermark: never cached again (R-B12).
  EXPECT_EQ(j.record_received(row(), msg(2), 1005), ReceiveResult::below_watermark);
}

// R-B9: 32 MiB of cached bodies in all (scaled down here); the message that did not fit comes again.
TEST_F(JournalTest, TotalBytesQuota_RB9) {
  JournalLimits limits;
  limits.max_total_body_bytes = 100;
  Journal j(db_path(), limits);
  j.upsert_attachment(row());
  EXPECT_EQ(j.record_received(row(), msg(1, std::string(60, 'a')), 1000), ReceiveResult::cached);
  EXPECT_EQ(j.record_received(row(), msg(2, std::string(60, 'b')), 1000), ReceiveResult::over_quota);
  EXPECT_EQ(j.watermark("http://127.0.0.1:1", "reviewer"), 1);
  EXPECT_LT(j.free_body_bytes(), 60);
  j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1001);  // offering clears the body, freeing room
  EXPECT_EQ(j.free_body_bytes(), 100);
  EXPECT_EQ(j.record_received(row(), msg(2, std::string(60, 'b')), 1002), ReceiveResult::cached);
  EXPECT_EQ(j.record_received(row(), msg(3, std::string(60, 'c')), 1002), ReceiveResult::over_quota);
}

// R-B5: settling an offer skips the flush (a lost settle only repeats a notice), and only that commit:
// the journal's connection is back at synchronous=FULL afterwards, whether the settle succeeded or failed.
TEST_F(JournalTest, SettleSkipsTheFlushButLeavesEveryOtherCommitFlushed) {
  Journal j(db_path());
  const auto sync_level = [&j] {
    sql::Stmt s(j.db(), "PRAGMA synchronous");
    return s.step() ? s.int64(0) : -1;
  };
  EXPECT_EQ(sync_level(), 2) << "the journal must commit with synchronous=FULL";
  j.upsert_attachment(row());
  j.record_received(row(), msg(1), 1000);
  j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1001);
  j.settle_offers({"msg_1"}, true);
  EXPECT_EQ(sync_level(), 2) << "the settle's relaxed flush leaked into the next commits";
  EXPECT_EQ(j.counts("att_1").possibly_lost, 0);
  j.record_received(row(), msg(2), 1002);
  j.offer("att_1", {"msg_2"}, OfferSeen::this_turn, 1003);
  j.db().exec("CREATE TRIGGER refuse BEFORE UPDATE ON messages BEGIN SELECT RAISE(ABORT, 'refused'); END");
  EXPECT_ANY_THROW(j.settle_offers({"msg_2"}, false));
  EXPECT_EQ(sync_level(), 2) << "a failed settle left the connection relaxed";
}

// R-B5, R-B6: an offer is `pending` until its hand-out is settled; one that may not have arrived
// (not written, or still pending when the bridge restarted) is possibly lost: listed once, counted until it is
// acknowledged, read or cleaned up. It is never offered again.
TEST_F(JournalTest, PossiblyLostOffersAreTrackedUntilReadAckedOrCleaned) {
  {
    Journal j(db_path());
    j.upsert_attachment(row());
    for (int i = 1; i <= 5; ++i) j.record_received(row(), msg(i), 1000);
    j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1001);
    j.settle_offers({"msg_1"}, true);
    EXPECT_EQ(j.counts("att_1").possibly_lost, 0);
    j.offer("att_1", {"msg_2", "msg_3"}, OfferSeen::this_turn, 1002);
    j.settle_offers({"msg_2", "msg_3"}, false);
    j.settle_offers({"msg_2"}, true);  // settled once: a later answer changes nothing
    EXPECT_EQ(j.counts("att_1").possibly_lost, 2);
    j.offer("att_1", {"msg_4"}, OfferSeen::this_turn, 1003);  // the bridge dies before settling it
  }
  Journal j(db_path());
  EXPECT_EQ(j.unsettled_offers_unsure(), 1);
  EXPECT_EQ(j.counts("att_1").possibly_lost, 3);
  auto lost = j.possibly_lost("att_1", 2);
  EXPECT_EQ(lost.message_ids, (std::vector<std::string>{"msg_2", "msg_3"}));
  EXPECT_EQ(lost.count, 3);
  EXPECT_EQ(lost.first_seq, 2);
  j.possibly_lost_told({"msg_2", "msg_3"});
  lost = j.possibly_lost("att_1", 20);
  EXPECT_EQ(lost.message_ids, std::vector<std::string>{"msg_4"});  // listed once
  EXPECT_EQ(j.possibly_lost("att_1", 20, true).count, 3);
  EXPECT_EQ(j.counts("att_1").possibly_lost, 3);  // still counted until read, acknowledged or cleaned up
  EXPECT_EQ(j.possibly_lost_read({"msg_2"}), 1);
  EXPECT_TRUE(j.set_delivery("msg_3", MessageState::admitted, 1004));
  EXPECT_EQ(j.counts("att_1").possibly_lost, 1);
  EXPECT_TRUE(j.offer("att_1", {"msg_4"}, OfferSeen::this_turn, 1005).messages.empty());  // never offered again
  EXPECT_EQ(j.cleanup(1006, CleanupScope::by_person).possibly_lost_cleared, 1);
  EXPECT_EQ(j.counts("att_1").possibly_lost, 0);
  EXPECT_EQ(j.pending("att_1", 20).size(), 1u);
}

// Schema v3 -> v5 (messages.emit, messages.inbox_id): offers made before the columns existed count as delivered and
// are no message that an address-less reply could answer (their conversation is unknown).
TEST_F(JournalTest, MigratesSchemaThreeKeepingOldOffers) {
  {
    sql::Db db(db_path());
    db.exec("CREATE TABLE messages(message_id TEXT PRIMARY KEY, attachment_id TEXT NOT NULL, seq INTEGER NOT NULL, "
            "state TEXT NOT NULL, body TEXT, size INTEGER NOT NULL DEFAULT 0, reason TEXT, received_at INTEGER NOT "
            "NULL, offered_at INTEGER, admitted_at INTEGER, processed_at INTEGER);"
            "INSERT INTO messages(message_id, attachment_id, seq, state, received_at, offered_at) "
            "VALUES('msg_old', 'att_1', 1, 'offered', 1000, 1000);"
            "PRAGMA user_version = 3;");
  }
  Journal j(db_path());
  sql::Stmt v(j.db(), "PRAGMA user_version");
  ASSERT_TRUE(v.step());
  EXPECT_EQ(v.int64(0), 6);
  EXPECT_EQ(j.unsettled_offers_unsure(), 0);
  EXPECT_TRUE(j.open_offers("att_1").empty());
  EXPECT_EQ(j.counts("att_1").offered_not_admitted, 1);
  EXPECT_EQ(j.counts("att_1").possibly_lost, 0);
  EXPECT_EQ(j.integrity_check(), "ok");
}

// R-B11: offered metadata goes after 7 days; pending bodies stay for explicit recovery (R-B10).
TEST_F(JournalTest, CleanupKeepsPendingRemovesOldOffered_RB11) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.record_received(row(), msg(1), 1000);
  j.record_received(row(), msg(2), 1000);
  j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1000);
  EXPECT_EQ(j.cleanup(1000 + 3600, CleanupScope::automatic).offered_removed, 0);
  EXPECT_EQ(j.cleanup(1000 + 7 * 86400, CleanupScope::automatic).offered_removed, 1);
  EXPECT_EQ(j.pending("att_1", 20).size(), 1u);
}

// R-B6: the bridge's own cleanup (at every start and hourly) never erases a possibly-not-arrived notice, told or
// not, nor removes its row with the old offers; only the person's cleanup clears it.
TEST_F(JournalTest, AutomaticCleanupKeepsPossiblyLostNotices_RB6) {
  {
    Journal j(db_path());
    j.upsert_attachment(row());
    for (int i = 1; i <= 3; ++i) j.record_received(row(), msg(i), 1000);
    j.offer("att_1", {"msg_1", "msg_2", "msg_3"}, OfferSeen::this_turn, 1000);  // the bridge dies before settling them
  }
  for (int restart = 0; restart < 3; ++restart) {  // clean restarts: mark, then the start's cleanup
    Journal j(db_path());
    j.unsettled_offers_unsure();
    j.cleanup(1001 + restart, CleanupScope::automatic);
    EXPECT_EQ(j.counts("att_1").possibly_lost, 3) << "restart " << restart;
  }
  Journal j(db_path());
  j.possibly_lost_told({"msg_1"});
  EXPECT_EQ(j.cleanup(1000 + 8 * 86400, CleanupScope::automatic).possibly_lost_cleared, 0);  // the hourly timer
  EXPECT_EQ(j.counts("att_1").possibly_lost, 3);
  EXPECT_EQ(j.possibly_lost("att_1", 20, true).count, 3);
  EXPECT_EQ(j.cleanup(1000 + 8 * 86400, CleanupScope::by_person).possibly_lost_cleared, 3);
  EXPECT_EQ(j.counts("att_1").possibly_lost, 0);
}

// R-B17: the first offer carries guidance; the next only after 24 h; restore after a definite failure; a new
// attachment gets fresh guidance; the timestamp survives restart.
TEST_F(JournalTest, GuidanceCadence_RB17) {
  {
    Journal j(db_path());
    j.upsert_attachment(row());
    for (int i = 1; i <= 4; ++i) j.record_received(row(), msg(i), 1000);
    const auto a = j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1000);
    EXPECT_TRUE(a.guidance);
    EXPECT_FALSE(a.previous_guidance);
    EXPECT_FALSE(j.offer("att_1", {"msg_2"}, OfferSeen::this_turn, 1000 + 3600).guidance);
  }
  Journal j(db_path());  // restart: no repeated guidance
  EXPECT_FALSE(j.offer("att_1", {"msg_3"}, OfferSeen::this_turn, 1000 + 7200).guidance);
  const auto d = j.offer("att_1", {"msg_4"}, OfferSeen::this_turn, 1000 + 86400);
  EXPECT_TRUE(d.guidance);
  ASSERT_TRUE(d.previous_guidance);
  EXPECT_EQ(*d.previous_guidance, 1000);
  j.restore_guidance("att_1", d.previous_guidance);
  EXPECT_EQ(j.attachment("att_1")->guidance_at, 1000);
  // An empty offer does not touch guidance.
  EXPECT_FALSE(j.offer("att_1", {"msg_missing"}, OfferSeen::this_turn, 1000 + 90000).guidance);
  // A newly attached session gets fresh instructions.
  j.upsert_attachment(row("att_new", "s1"));
  j.record_received(row("att_new", "s1"), msg(9), 1000);
  EXPECT_TRUE(j.offer("att_new", {"msg_9"}, OfferSeen::this_turn, 1000 + 90001).guidance);
}

TEST_F(JournalTest, OfferOnlyForOwnAttachment) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.upsert_attachment(row("att_2", "s2", "other"));
  j.record_received(row(), msg(1), 1000);
  EXPECT_TRUE(j.offer("att_2", {"msg_1"}, OfferSeen::this_turn, 1001).messages.empty());
  EXPECT_EQ(j.pending("att_1", 20).size(), 1u);
}

TEST_F(JournalTest, WithheldIsNotPending_RB8) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.record_received(row(), msg(1), 1000);
  j.withhold({"msg_1"}, "sender_unauthorised");
  EXPECT_TRUE(j.pending("att_1", 20).empty());
  EXPECT_EQ(j.counts("att_1").withheld, 1);
  EXPECT_TRUE(j.offer("att_1", {"msg_1"}, OfferSeen::this_turn, 1001).messages.empty());
}

TEST_F(JournalTest, AttachmentPerSessionReplacesOld) {
  Journal j(db_path());
  j.upsert_attachment(row("att_1", "s1"));
  j.upsert_attachment(row("att_2", "s1"));
  EXPECT_FALSE(j.attachment("att_1"));
  EXPECT_EQ(j.find_attachment("claude", "s1")->attachment_id, "att_2");
  j.set_attachment_state("att_2", AttachmentState::offline);
  EXPECT_EQ(j.find_attachment("claude", "s1")->state, AttachmentState::offline);
}

// R-B2 / invariant 3: outbox items keep their submission id and order.
TEST_F(JournalTest, OutboxOldestFirst_RB2) {
  Journal j(db_path());
  OutboxItem a{0, "sub_a", "att_1", "send", "POST", "/v1/messages", "{}", 0};
  OutboxItem b{0, "sub_b", "att_1", "send", "POST", "/v1/messages", "{}", 0};
  const auto sa = j.outbox_add(a, 1);
  j.outbox_add(b, 2);
  auto q = j.outbox_queued(10);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].submission_id, "sub_a");
  j.outbox_attempted(sa, "unreachable");
  EXPECT_EQ(j.outbox_queued(1)[0].attempts, 1);
  j.outbox_finish(sa, OutboxState::done, "{}", 3);
  q = j.outbox_queued(10);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].submission_id, "sub_b");
  EXPECT_THROW(j.outbox_add(a, 4), sql::SqliteError);  // a submission id is minted once
}

TEST_F(JournalTest, IntegrityCheckOk) {
  Journal j(db_path());
  EXPECT_EQ(j.integrity_check(), "ok");
}

// Invariant 10: a corrupt journal is a fatal SQLite error (the bridge then exits non-zero).
TEST_F(JournalTest, CorruptFileIsFatal) {
  {
    FILE* f = std::fopen(db_path().c_str(), "wb");
    ASSERT_NE(f, nullptr);
    const std::string junk(8192, 'x');
    std::fwrite(junk.data(), 1, junk.size(), f);
    std::fclose(f);
  }
  try {
    Journal j(db_path());
    FAIL() << "opening a corrupt journal must fail";
  } catch (const sql::SqliteError& e) {
    EXPECT_TRUE(e.fatal()) << e.what();
  }
}

}  // namespace
}  // namespace agentworks::bridge
