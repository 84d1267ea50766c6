// Delivery receipts: stored -> admitted -> processed, set only by the receiver (R-M14).
#include <gtest/gtest.h>

#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class Receipts : public MessagingTest {};

// R-M14: a send leaves `stored`; only the receiver admits and processes; states never go backwards; the sender
// sees the current state in reads and through `messages receipt`.
TEST_F(Receipts, StoredAdmittedProcessedOnlyByReceiver_R_M14) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  Identity worker = create_child(owner_token(), "worker");      // the sender
  Identity reviewer = create_child(owner_token(), "reviewer");  // the receiver
  const json receipt = cli_ok(worker.cli, {"messages", "send", "--target", "agent:reviewer", "--message", "please ack"});
  const std::string id = receipt.at("message_id").get<std::string>();
  const std::string path = "/v1/messages/" + id + "/receipt";

  const json stored = cli_ok(worker.cli, {"messages", "receipt", "--message-id", id});
  EXPECT_EQ(stored.at("message_id"), id);
  EXPECT_EQ(stored.at("delivery").at("state"), "stored") << stored.dump();

  // The sender cannot admit its own message.
  const HttpResponse by_sender = worker.http.post(path, json{{"delivery", "admitted"}}.dump());
  EXPECT_EQ(by_sender.status, 403) << describe(by_sender);
  EXPECT_EQ(error_code_of(by_sender.body), "forbidden") << describe(by_sender);
  EXPECT_EQ(cli_ok(worker.cli, {"messages", "receipt", "--message-id", id}).at("delivery").at("state"), "stored");

  // The receiver admits, then processes.
  const json admitted = http_json(reviewer.http, "POST", path, json{{"delivery", "admitted"}, {"via", "agent"}}.dump(), 200);
  EXPECT_EQ(admitted.at("delivery").at("state"), "admitted") << admitted.dump();
  EXPECT_EQ(admitted.at("delivery").at("via"), "agent") << admitted.dump();
  EXPECT_TRUE(admitted.at("delivery").at("admitted_at").is_number()) << admitted.dump();
  EXPECT_EQ(cli_ok(worker.cli, {"messages", "receipt", "--message-id", id}).at("delivery").at("state"), "admitted");

  const HttpResponse processed_by_sender = worker.http.post(path, json{{"delivery", "processed"}}.dump());
  EXPECT_EQ(processed_by_sender.status, 403) << describe(processed_by_sender);

  const json processed = http_json(reviewer.http, "POST", path, json{{"delivery", "processed"}}.dump(), 200);
  EXPECT_EQ(processed.at("delivery").at("state"), "processed");
  EXPECT_TRUE(processed.at("delivery").at("processed_at").is_number()) << processed.dump();

  // Never backwards: admitting again is a no-op returning the current state.
  const json again = http_json(reviewer.http, "POST", path, json{{"delivery", "admitted"}}.dump(), 200);
  EXPECT_EQ(again.at("delivery").at("state"), "processed") << again.dump();

  // The sender sees it in reads of the conversation and through the receipt command.
  const json page = read_inbox(worker.cli, receipt.at("inbox_id").get<std::string>());
  ASSERT_EQ(page.at("messages").size(), 1u);
  EXPECT_EQ(page.at("messages")[0].at("delivery").at("state"), "processed") << page.dump();
  const CliResult human = worker.cli.run({"messages", "receipt", "--message-id", id});
  EXPECT_EQ(human.exit_code, 0) << human.describe();
  EXPECT_NE(human.out.find("processed"), std::string::npos) << human.describe();

  // Bad states are refused.
  const HttpResponse bad = reviewer.http.post(path, json{{"delivery", "stored"}}.dump());
  EXPECT_EQ(bad.status, 400) << describe(bad);
  const HttpResponse typo = reviewer.http.post(path, json{{"delivery", "done"}}.dump());
  EXPECT_EQ(typo.status, 400) << describe(typo);
  const CliResult unknown = worker.cli.json({"messages", "receipt", "--message-id", "msg_unknown"});
  EXPECT_EQ(unknown.exit_code, 4) << unknown.describe();
  EXPECT_EQ(unknown.error_code(), "not_found") << unknown.describe();
}

// R-M14: `processed` implies `admitted` (a receiver may jump straight to processed).
TEST_F(Receipts, ProcessedImpliesAdmitted_R_M14) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const json receipt = send_as(owner(), "worker", "agent:reviewer", "quick");
  const std::string id = receipt.at("message_id").get<std::string>();
  const json processed =
      http_json(owner_http(), "POST", "/v1/messages/" + id + "/receipt", json{{"delivery", "processed"}}.dump(), 200);
  EXPECT_EQ(processed.at("delivery").at("state"), "processed");
  EXPECT_TRUE(processed.at("delivery").at("admitted_at").is_number()) << processed.dump();
  EXPECT_TRUE(processed.at("delivery").at("processed_at").is_number()) << processed.dump();
}

}  // namespace
}  // namespace agentworks::testing
