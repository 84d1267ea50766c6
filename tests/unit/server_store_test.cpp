// Server store rules without sockets: sends, reads, limits, receipts, identities, revocation. Run on SQLite and,
// as pg.StoreTest.*, on PostgreSQL (R-T1).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <string>

#include "agentworks/error.hpp"
#include "agentworks/sqlite.hpp"
#include "store/call_list_store.hpp"
#include "store/calls_store.hpp"
#include "store/store.hpp"
#include "testing/test_store.hpp"
#include "testing/temp_home.hpp"

namespace fs = std::filesystem;
using namespace agentworks;
using namespace agentworks::server;

namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = agentworks::testing::make_temp_dir("aw-store-test-", "/tmp");
  }
  void TearDown() override {
    store_.reset();
    if (agentworks::testing::store_is_postgresql()) agentworks::testing::release_test_store(dir_);
    fs::remove_all(dir_);
  }
  // SQLite in the directory, or (pg.StoreTest.*) a PostgreSQL database of the directory.
  StoreLocation location() const {
    const bool pg = agentworks::testing::store_is_postgresql();
    return StoreLocation{dir_, pg ? agentworks::testing::test_store_url(dir_) : "", ""};
  }
  Store& open(Limits limits = {}) {
    store_ = std::make_unique<Store>(location(), limits);
    owner_token_ = *run<std::optional<std::string>>([&] { return store_->ensure_owner(); });
    owner_ = *store_->authenticate(owner_token_);
    return *store_;
  }
  // One request in its own committed batch, as the dispatcher runs it.
  template <typename T>
  T run(const std::function<T()>& f) {
    T out{};
    try {
      store_->in_request([&] { out = f(); });
    } catch (...) {
      store_->commit_batch();
      throw;
    }
    store_->commit_batch();
    return out;
  }
  void run_void(const std::function<void()>& f) {
    run<int>([&] {
      f();
      return 0;
    });
  }
  // f either calls the helpers above (each its own request) or store methods directly.
  ErrorCode code_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    ADD_FAILURE() << "expected an error";
    return ErrorCode::internal;
  }
  Agent reg(const std::string& name) {
    return run<Agent>([&] { return store_->register_agent(owner_, name, std::nullopt, std::nullopt, std::nullopt).first; });
  }
  Receipt send(const Connection& from, const std::string& text, std::optional<std::string> target,
               std::optional<std::string> inbox, std::optional<std::string> as,
               std::optional<std::string> submission = std::nullopt) {
    SendInput in;
    in.target = std::move(target);
    in.inbox_id = std::move(inbox);
    in.message = text;
    in.agent_name = std::move(as);
    in.submission_id = std::move(submission);
    return run<Receipt>([&] { return store_->send(from, in); });
  }
  std::vector<Message> mailbox(const Connection& who, const std::string& name, std::string after = "0") {
    ReadInput in;
    in.agent_name = name;
    in.after = after;
    return run<std::vector<Message>>([&] { return store_->fetch(store_->resolve_read(who, in), 100); });
  }

  fs::path dir_;
  std::unique_ptr<Store> store_;
  std::string owner_token_;
  Connection owner_;
};

}  // namespace

// R-M1, R-M7: send, read, reply; the mailbox read shows reply_address and the reply reaches the named initiator.
TEST_F(StoreTest, SeedFlowSendReadReplyRM1RM7) {
  open();
  reg("reviewer");
  reg("worker");
  const Receipt r = send(owner_, "Ready for review", "agent:Reviewer", std::nullopt, "worker");
  EXPECT_FALSE(r.repeated);
  const auto got = mailbox(owner_, "reviewer");
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].inbox_id, r.inbox_id);
  EXPECT_EQ(got[0].sender_agent_name, "worker");
  EXPECT_EQ(got[0].direction, "to_agent");

  const Receipt reply = send(owner_, "LGTM", std::nullopt, r.inbox_id, "reviewer");
  EXPECT_EQ(reply.conversation_id, r.conversation_id);
  const auto back = mailbox(owner_, "worker");
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(back[0].direction, "to_initiator");
  EXPECT_EQ(back[0].body, "LGTM");
  // A second send to the same target continues the conversation.
  EXPECT_EQ(send(owner_, "again", "agent:reviewer", std::nullopt, "worker").inbox_id, r.inbox_id);
}

// R-M2: a repeated submission_id returns the original receipt; a different text is a conflict.
TEST_F(StoreTest, SubmissionIdIsIdempotentRM2) {
  open();
  reg("reviewer");
  const Receipt a = send(owner_, "hello", "agent:reviewer", std::nullopt, std::nullopt, "sub-1");
  const Receipt b = send(owner_, "hello", "agent:reviewer", std::nullopt, std::nullopt, "sub-1");
  EXPECT_TRUE(b.repeated);
  EXPECT_EQ(a.message_id, b.message_id);
  EXPECT_EQ(mailbox(owner_, "reviewer").size(), 1U);
  EXPECT_EQ(code_of([&] { send(owner_, "other", "agent:reviewer", std::nullopt, std::nullopt, "sub-1"); }),
            ErrorCode::conflict);
}

// R-M3, R-M7: cursor spaces are distinct.
TEST_F(StoreTest, CursorSpacesMismatchRM3) {
  open();
  reg("reviewer");
  const Receipt r = send(owner_, "hi", "agent:reviewer", std::nullopt, std::nullopt);
  EXPECT_EQ(code_of([&] { mailbox(owner_, "reviewer", "i1"); }), ErrorCode::cursor_mismatch);
  ReadInput in;
  in.inbox_id = r.inbox_id;
  in.after = "m1";
  EXPECT_EQ(code_of([&] { store_->resolve_read(owner_, in); }), ErrorCode::cursor_mismatch);
  EXPECT_EQ(code_of([&] { mailbox(owner_, "reviewer", "x7"); }), ErrorCode::bad_request);
  EXPECT_TRUE(mailbox(owner_, "reviewer", mailbox(owner_, "reviewer").back().seq > 0 ? "m999" : "0").empty());
}

// R-M10: the per-conversation rate limit counts both directions; the failed send stores nothing.
TEST_F(StoreTest, RateLimitPerConversationRM10) {
  Limits l;
  l.rate_limit_per_hour = 3;
  open(l);
  reg("reviewer");
  reg("worker");
  const Receipt r = send(owner_, "1", "agent:reviewer", std::nullopt, "worker");
  send(owner_, "2", std::nullopt, r.inbox_id, "reviewer");
  send(owner_, "3", "agent:reviewer", std::nullopt, "worker");
  EXPECT_EQ(code_of([&] { send(owner_, "4", std::nullopt, r.inbox_id, "reviewer"); }), ErrorCode::rate_limited);
  EXPECT_EQ(mailbox(owner_, "reviewer").size(), 2U);
  EXPECT_EQ(code_of([&] { send(owner_, std::string(20001, 'x'), "agent:reviewer", std::nullopt, "worker"); }),
            ErrorCode::invalid_message);
}

// R-M11: history is capped; a pending oldest message (live attachment, not processed) blocks with inbox_full.
TEST_F(StoreTest, InboxHistoryAndInboxFullRM11) {
  Limits l;
  l.inbox_history = 2;
  open(l);
  reg("reviewer");
  const Receipt r = send(owner_, "1", "agent:reviewer", std::nullopt, std::nullopt);
  send(owner_, "2", "agent:reviewer", std::nullopt, std::nullopt);
  send(owner_, "3", "agent:reviewer", std::nullopt, std::nullopt);
  auto got = mailbox(owner_, "reviewer");
  ASSERT_EQ(got.size(), 2U);
  EXPECT_EQ(got[0].body, "2");

  run<Attachment>([&] { return store_->create_attachment(owner_, "reviewer", "", "", ""); });
  EXPECT_EQ(code_of([&] { send(owner_, "4", std::nullopt, r.inbox_id, std::nullopt); }), ErrorCode::inbox_full);
  run<Message>([&] { return store_->receipt_set(owner_, got[0].message_id, "processed", std::nullopt); });
  send(owner_, "4", std::nullopt, r.inbox_id, std::nullopt);
  got = mailbox(owner_, "reviewer");
  ASSERT_EQ(got.size(), 2U);
  EXPECT_EQ(got[1].body, "4");
}

// R-M12, R-M13: at the per-account inbox cap the oldest idle inbox is evicted and then answers expired.
TEST_F(StoreTest, InboxCapEvictsOldestRM12RM13) {
  Limits l;
  l.max_inboxes_per_account = 1;
  open(l);
  reg("a");
  reg("b");
  const Receipt first = send(owner_, "to a", "agent:a", std::nullopt, std::nullopt);
  send(owner_, "to b", "agent:b", std::nullopt, std::nullopt);
  EXPECT_EQ(code_of([&] { send(owner_, "x", std::nullopt, first.inbox_id, std::nullopt); }), ErrorCode::expired);
  const Conversation c = run<Conversation>([&] { return store_->inbox_info(owner_, first.inbox_id); });
  EXPECT_EQ(c.state, ConversationState::expired);
  // Pending messages protect an inbox: with b attached and unprocessed nothing can be evicted.
  run<Attachment>([&] { return store_->create_attachment(owner_, "b", "", "", ""); });
  EXPECT_EQ(code_of([&] { send(owner_, "to a again", "agent:a", std::nullopt, std::nullopt); }),
            ErrorCode::limit_reached);
}

// R-M5: registration caps.
TEST_F(StoreTest, RegistrationCapRM5) {
  Limits l;
  l.max_agents_per_account = 2;
  open(l);
  reg("a");
  reg("b");
  EXPECT_EQ(code_of([&] { reg("c"); }), ErrorCode::limit_reached);
  EXPECT_EQ(code_of([&] { reg("bad name"); }), ErrorCode::invalid_name);
  reg("B");  // re-registration of an existing name (case-insensitive) is not a new one
}

// R-M6: the allow-list is checked on every send as a name; re-registering without the field keeps it.
TEST_F(StoreTest, AllowListRM6) {
  open();
  const std::string other_token = run<std::string>([&] { return store_->add_account("other"); });
  (void)other_token;
  reg("reviewer");
  const NewConnection child = run<NewConnection>([&] { return store_->create_child(owner_, "reviewer", "", false); });
  reg("worker");
  // The child is bound to reviewer: it may not speak as worker.
  EXPECT_EQ(code_of([&] { send(child.connection, "x", "agent:worker", std::nullopt, "worker"); }), ErrorCode::forbidden);
  // ...and always speaks as reviewer.
  send(child.connection, "from child", "agent:worker", std::nullopt, std::nullopt);
  EXPECT_EQ(mailbox(owner_, "worker").at(0).sender_agent_name, "reviewer");
  EXPECT_EQ(code_of([&] { mailbox(child.connection, "worker"); }), ErrorCode::forbidden);
}

// R-M8: a recreated name is a new identity; the old conversation never reaches it.
TEST_F(StoreTest, RecreatedNameIsNewIdentityRM8) {
  open();
  const Agent first = reg("reviewer");
  const Receipt r = send(owner_, "old", "agent:reviewer", std::nullopt, std::nullopt);
  run<std::string>([&] { return store_->unregister_agent(owner_, "reviewer"); });
  const Agent second = reg("reviewer");
  EXPECT_NE(first.agent_id, second.agent_id);
  EXPECT_TRUE(mailbox(owner_, "reviewer").empty());
  EXPECT_EQ(code_of([&] { send(owner_, "x", std::nullopt, r.inbox_id, std::nullopt); }), ErrorCode::not_found);
  EXPECT_NE(send(owner_, "new", "agent:reviewer", std::nullopt, std::nullopt).inbox_id, r.inbox_id);
}

// R-M9: addresses of another account are not found.
TEST_F(StoreTest, OtherAccountsAreInvisibleRM9) {
  open();
  reg("reviewer");
  const Receipt r = send(owner_, "hi", "agent:reviewer", std::nullopt, std::nullopt);
  const std::string token = run<std::string>([&] { return store_->add_account("other"); });
  const Connection other = *store_->authenticate(token);
  EXPECT_EQ(code_of([&] { send(other, "x", "agent:reviewer", std::nullopt, std::nullopt); }), ErrorCode::not_found);
  EXPECT_EQ(code_of([&] { send(other, "x", std::nullopt, r.inbox_id, std::nullopt); }), ErrorCode::not_found);
  EXPECT_EQ(code_of([&] { store_->receipt_get(other, r.message_id); }), ErrorCode::not_found);
}

// R-M14: only the receiver sets delivery; states never go backwards.
TEST_F(StoreTest, ReceiptsMonotonicReceiverOnlyRM14) {
  open();
  reg("reviewer");
  reg("worker");
  const NewConnection child = run<NewConnection>([&] { return store_->create_child(owner_, "worker", "", false); });
  const Receipt r = send(child.connection, "hi", "agent:reviewer", std::nullopt, std::nullopt);
  EXPECT_EQ(code_of([&] { store_->receipt_set(child.connection, r.message_id, "admitted", std::nullopt); }),
            ErrorCode::forbidden);
  auto m = run<Message>([&] { return store_->receipt_set(owner_, r.message_id, "processed", std::string("agent")); });
  EXPECT_EQ(m.state, MessageState::processed);
  EXPECT_TRUE(m.admitted_at.has_value());
  m = run<Message>([&] { return store_->receipt_set(owner_, r.message_id, "admitted", std::nullopt); });
  EXPECT_EQ(m.state, MessageState::processed);
  EXPECT_EQ(run<Message>([&] { return store_->receipt_get(child.connection, r.message_id); }).state, MessageState::processed);
  EXPECT_EQ(code_of([&] { store_->receipt_set(owner_, r.message_id, "stored", std::nullopt); }), ErrorCode::bad_request);
}

// R-B19, R-B20: revoking a login revokes its children at once; their attachments are revoked.
TEST_F(StoreTest, RevokeLoginRevokesChildrenRB20) {
  open();
  reg("reviewer");
  const NewConnection child = run<NewConnection>([&] { return store_->create_child(owner_, "reviewer", "", false); });
  const Attachment att =
      run<Attachment>([&] { return store_->create_attachment(child.connection, "reviewer", "", "", ""); });
  EXPECT_EQ(code_of([&] { store_->revoke_connection(child.connection, owner_.connection_id); }), ErrorCode::forbidden);
  const int children = run<int>([&] { return store_->revoke_connection(owner_, owner_.connection_id); });
  EXPECT_EQ(children, 1);
  EXPECT_FALSE(store_->authenticate(owner_token_).has_value());
  EXPECT_FALSE(store_->authenticate(child.token).has_value());
  EXPECT_EQ(store_->attachment_by_id(att.attachment_id)->state, AttachmentState::revoked);
}

// R-B8, R-M15: release check answers per message.
TEST_F(StoreTest, ReleaseCheckRB8) {
  open();
  reg("reviewer");
  reg("worker");
  const NewConnection sender = run<NewConnection>([&] { return store_->create_child(owner_, "worker", "", false); });
  const Receipt r = send(sender.connection, "hi", "agent:reviewer", std::nullopt, std::nullopt);
  const Receipt back = send(owner_, "to worker", "agent:worker", std::nullopt, std::nullopt);
  const Attachment att = run<Attachment>([&] { return store_->create_attachment(owner_, "reviewer", "", "", ""); });
  auto items = store_->release_check(att, {r.message_id, back.message_id, "msg_missing"});
  EXPECT_TRUE(items[0].releasable);
  EXPECT_EQ(items[1].reason, "not_recipient");
  EXPECT_EQ(items[2].reason, "not_retained");
  run<int>([&] { return store_->revoke_connection(owner_, sender.connection.connection_id); });
  items = store_->release_check(att, {r.message_id});
  EXPECT_EQ(items[0].reason, "sender_unauthorised");
  const Attachment newer = run<Attachment>([&] { return store_->create_attachment(owner_, "reviewer", "", "", ""); });
  (void)newer;
  items = store_->release_check(*store_->attachment_by_id(att.attachment_id), {r.message_id});
  EXPECT_EQ(items[0].reason, "not_current");
}

// A failed request changes nothing, even after partial writes inside it.
TEST_F(StoreTest, FailedRequestRollsBackItsSavepoint) {
  open();
  EXPECT_EQ(code_of([&] {
              run_void([&] {
                store_->register_agent(owner_, "ghost", std::nullopt, std::nullopt, std::nullopt);
                throw Error(ErrorCode::bad_request, "late failure");
              });
            }),
            ErrorCode::bad_request);
  EXPECT_FALSE(store_->find_agent(owner_.account_id, "ghost").has_value());
}

// A data directory from before questions carried a schema: its call_inputs gains the column at open, old rows read
// without a schema, new ones keep theirs.
// A file from before the recent-calls list gains its indexes, and the calls it holds list newest first.
TEST_F(StoreTest, OldCallsGainTheListIndexes) {
  if (agentworks::testing::store_is_postgresql())
    GTEST_SKIP() << "SQLite upgrades its file in place; PostgreSQL changes schema only by migrate";
  open();
  store_.reset();
  const std::string columns = "INSERT INTO calls(call_id, crew_id, caller_account, caller_conn, function, arguments,"
                              " fingerprint, status, token_hash, created_at, updated_at) VALUES";
  {
    sql::Db db((dir_ / "server.db").string());
    db.exec("DROP INDEX calls_caller_account; DROP INDEX calls_caller_conn;"
            "INSERT INTO crews(crew_id, account_id, name, name_fold, dir, declaration, created_at, reloaded_at)"
            " VALUES('crw_a', 'acc_a', 'Api', 'api', '/x', '{}', 1, 1);" +
            columns + "('call_1', 'crw_a', 'acc_a', 'con_a', 'f', '{}', 'f', 'completed', 'h', 1, 1);" + columns +
            "('call_2', 'crw_a', 'acc_a', 'con_a', 'f', '{}', 'f', 'completed', 'h', 2, 2);");
  }
  store_ = std::make_unique<Store>(dir_, Limits{});
  {
    sql::Db db((dir_ / "server.db").string());
    sql::Stmt s(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name IN"
                    " ('calls_caller_account', 'calls_caller_conn')");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.int64(0), 2);
  }
  Connection login;
  login.connection_id = "con_other";
  login.account_id = "acc_a";
  login.kind = "login";
  const CallListPage page = run<CallListPage>([&] { return list_calls(*store_, login, CallListQuery{{}, "API", 1}); });
  ASSERT_EQ(page.calls.size(), 1u);
  EXPECT_EQ(page.calls[0].call_id, "call_2");
  EXPECT_EQ(page.calls[0].crew_name, "Api");
  ASSERT_TRUE(page.next_before.has_value());
  const CallListPage older =
      run<CallListPage>([&] { return list_calls(*store_, login, CallListQuery{page.next_before, "", 20}); });
  ASSERT_EQ(older.calls.size(), 1u);
  EXPECT_EQ(older.calls[0].call_id, "call_1");
  EXPECT_FALSE(older.next_before.has_value());
}

TEST_F(StoreTest, OldCallInputsGainTheSchemaColumn) {
  if (agentworks::testing::store_is_postgresql())
    GTEST_SKIP() << "SQLite upgrades its file in place; PostgreSQL changes schema only by migrate";
  open();
  store_.reset();
  {
    sql::Db db((dir_ / "server.db").string());
    db.exec("DROP TABLE call_inputs;"
            "CREATE TABLE call_inputs(request_id TEXT PRIMARY KEY, call_id TEXT NOT NULL, question TEXT NOT NULL,"
            " answer TEXT, asked_at INTEGER NOT NULL, answered_at INTEGER);"
            "INSERT INTO call_inputs VALUES('req_old', 'call_a', 'Old?', NULL, 1, NULL);");
  }
  store_ = std::make_unique<Store>(dir_, Limits{});  // the owner exists already
  const auto old_input = run<std::optional<CallInput>>([&] { return call_input(*store_, "call_a", "req_old"); });
  ASSERT_TRUE(old_input.has_value());
  EXPECT_EQ(old_input->question, "Old?");
  EXPECT_FALSE(old_input->schema_json.has_value());
  const CallInput added = run<CallInput>(
      [&] { return add_call_input(*store_, "call_a", "New?", std::string(R"({"type":"string"})")); });
  const auto pending = run<std::vector<CallInput>>([&] { return pending_inputs(*store_, "call_a"); });
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[1].request_id, added.request_id);
  EXPECT_EQ(pending[1].schema_json, std::optional<std::string>(R"({"type":"string"})"));
}
