// The journal's state enums: the names are the journal's column values and the wire's strings, byte for
// byte, and a state column holding an unknown value reads as corruption, never as some other state.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "state/journal.hpp"
#include "state/states.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bridge {
namespace {

namespace fs = std::filesystem;

TEST(JournalStates, NamesAreTheColumnValues) {
  EXPECT_EQ(to_string(AttachmentState::attached), "attached");
  EXPECT_EQ(to_string(AttachmentState::offline), "offline");
  EXPECT_EQ(to_string(AttachmentState::fenced), "fenced");
  EXPECT_EQ(to_string(MessageState::received), "received");
  EXPECT_EQ(to_string(MessageState::offered), "offered");
  EXPECT_EQ(to_string(MessageState::admitted), "admitted");
  EXPECT_EQ(to_string(MessageState::processed), "processed");
  EXPECT_EQ(to_string(MessageState::withheld), "withheld");
  EXPECT_EQ(to_string(OutboxState::queued), "queued");
  EXPECT_EQ(to_string(OutboxState::done), "done");
  EXPECT_EQ(to_string(OutboxState::failed), "failed");
}

TEST(JournalStates, ParseRoundTripsAndRefusesUnknown) {
  for (auto s : {AttachmentState::attached, AttachmentState::offline, AttachmentState::fenced}) {
    EXPECT_EQ(parse_attachment_state(to_string(s)), s);
  }
  for (auto s : {MessageState::received, MessageState::offered, MessageState::admitted, MessageState::processed,
                 MessageState::withheld}) {
    EXPECT_EQ(parse_message_state(to_string(s)), s);
  }
  for (auto s : {OutboxState::queued, OutboxState::done, OutboxState::failed}) {
    EXPECT_EQ(parse_outbox_state(to_string(s)), s);
  }
  EXPECT_FALSE(parse_attachment_state("Attached"));
  EXPECT_FALSE(parse_attachment_state(""));
  EXPECT_FALSE(parse_message_state("pending"));
  EXPECT_FALSE(parse_outbox_state("sent"));
}

class JournalStateColumns : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = agentworks::testing::make_temp_dir("bridge_states_", "/tmp");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string db_path() const { return (dir_ / "journal.db").string(); }

  static AttachmentRow row() {
    AttachmentRow r;
    r.attachment_id = "att_1";
    r.provider = "claude";
    r.session_id = "s1";
    r.agent_name = "Reviewer";
    r.purpose = "review";
    r.server_url = "http://127.0.0.1:1";
    r.connection_id = "conn_1";
    r.state = AttachmentState::offline;
    r.created_at = 100;
    return r;
  }

  static std::string column(Journal& j, const std::string& query) {
    sql::Stmt s(j.db(), query);
    return s.step() ? s.text(0) : std::string("<none>");
  }

  fs::path dir_;
};

TEST_F(JournalStateColumns, WritesTheSameStrings) {
  Journal j(db_path());
  j.upsert_attachment(row());
  EXPECT_EQ(column(j, "SELECT state FROM attachments"), "offline");
  j.set_attachment_state("att_1", AttachmentState::fenced);
  EXPECT_EQ(column(j, "SELECT state FROM attachments"), "fenced");
  const auto seq = j.outbox_add({0, "sub_1", "att_1", "ack", "POST", "/v1/x", "{}", 0}, 1);
  EXPECT_EQ(column(j, "SELECT state FROM outbox"), "queued");
  EXPECT_EQ(j.outbox_state(seq), OutboxState::queued);
  j.outbox_finish(seq, OutboxState::failed, "{}", 2);
  EXPECT_EQ(column(j, "SELECT state FROM outbox"), "failed");
  EXPECT_EQ(j.outbox_state(seq), OutboxState::failed);
}

TEST_F(JournalStateColumns, UnknownValueIsCorruption) {
  Journal j(db_path());
  j.upsert_attachment(row());
  j.record_received(row(), {"msg_1", 1, "{}", false, ""}, 1);
  j.outbox_add({0, "sub_1", "att_1", "ack", "POST", "/v1/x", "{}", 0}, 1);
  j.db().exec("UPDATE attachments SET state = 'asleep'; UPDATE messages SET state = 'lost'; "
              "UPDATE outbox SET state = 'maybe'");
  auto expect_corrupt = [](auto&& read) {
    try {
      read();
      ADD_FAILURE() << "an unknown state was read as a known one";
    } catch (const sql::SqliteError& e) {
      EXPECT_TRUE(e.fatal()) << e.what();
    }
  };
  expect_corrupt([&] { j.attachment("att_1"); });
  expect_corrupt([&] { j.attachments(); });
  expect_corrupt([&] { j.message_state("msg_1"); });
  expect_corrupt([&] { j.counts("att_1"); });
  expect_corrupt([&] { j.set_delivery("msg_1", MessageState::admitted, 2); });
  expect_corrupt([&] { j.outbox_state(1); });
}

}  // namespace
}  // namespace agentworks::bridge
