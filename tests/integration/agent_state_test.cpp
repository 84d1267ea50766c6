// The owner's state view (`agentworks messages state --agent NAME`, GET /v1/agents/{name}/state, the full
// connection's agents_state tool): where the agent's messages are received, its inboxes newest
// first and paged, each with its last deliveries (receipt and reply_state), never a message's text; the person's
// login only, and bad input changes nothing.
#include <gtest/gtest.h>

#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class AgentStateTest : public MessagingTest {};

TEST_F(AgentStateTest, TheOwnerSeesInboxesAndDeliveriesWithoutBodies) {
  start_server();
  for (const char* name : {"worker", "critic", "reviewer"}) register_agent(owner(), name);
  const json first = send_as(owner(), "worker", "agent:reviewer", "secret-body-1");
  const json second = send_as(owner(), "critic", "agent:reviewer", "secret-body-2");
  Identity reviewer = create_child(owner_token(), "reviewer");
  http_json(reviewer.http, "POST", "/v1/messages/" + first.at("message_id").get<std::string>() + "/receipt",
            R"({"delivery":"processed","reply_state":"no_reply"})", 200);

  const json st = cli_ok(owner(), {"messages", "state", "--agent", "reviewer"});
  EXPECT_EQ(st.at("agent_name"), "reviewer");
  EXPECT_EQ(st.at("communication"), "explicit");
  EXPECT_TRUE(st.at("receiving").is_null()) << "not attached";
  ASSERT_EQ(st.at("inboxes").size(), 2u) << st.dump();
  EXPECT_EQ(st.at("inboxes").at(0).at("inbox_id"), second.at("inbox_id")) << "newest first";
  EXPECT_EQ(st.at("inboxes").at(1).at("initiator").at("agent_name"), "worker");
  const json& record = st.at("inboxes").at(1).at("deliveries").at(0);
  EXPECT_EQ(record.at("message_id"), first.at("message_id"));
  EXPECT_EQ(record.at("state"), "processed");
  EXPECT_EQ(record.at("reply_state"), "no_reply");
  EXPECT_EQ(st.dump().find("secret-body"), std::string::npos) << "no bodies";

  const json page1 = http_json(owner_http(), "GET", "/v1/agents/reviewer/state?limit=1", std::nullopt, 200);
  ASSERT_EQ(page1.at("inboxes").size(), 1u);
  const json page2 = cli_ok(owner(), {"messages", "state", "--agent", "reviewer", "--after",
                                      page1.at("next_after").get<std::string>()});
  ASSERT_EQ(page2.at("inboxes").size(), 1u);
  EXPECT_EQ(page2.at("inboxes").at(0).at("inbox_id"), first.at("inbox_id"));
  EXPECT_TRUE(page2.at("next_after").is_null());

  const json attached = attach_over_http("reviewer", "sess-7");
  EXPECT_EQ(cli_ok(owner(), {"messages", "state", "--agent", "reviewer"}).at("receiving").at("session_id"), "sess-7")
      << attached.dump();
  const CliResult human = owner().run({"messages", "state", "--agent", "reviewer"});
  EXPECT_EQ(human.exit_code, 0) << human.describe();
  EXPECT_NE(human.out.find(first.at("message_id").get<std::string>() + " to_agent processed, no_reply"),
            std::string::npos)
      << human.out;

  EXPECT_EQ(reviewer.http.get("/v1/agents/reviewer/state").status, 403) << "a chat does not see the owner's view";
  EXPECT_EQ(owner_http().get("/v1/agents/nobody/state").status, 404);
  EXPECT_EQ(owner_http().get("/v1/agents/reviewer/state?after=x1").status, 400);
  EXPECT_EQ(owner_http().get("/v1/agents/reviewer/state?limit=0").status, 400);
}

// R-X1: the person may set how the chat talks when registering the name; a bad value registers nothing.
TEST_F(AgentStateTest, RegisterSetsHowTheChatTalks_RX1) {
  start_server();
  EXPECT_EQ(register_agent(owner(), "talker", {"--communication", "direct"}).at("communication"), "direct");
  EXPECT_EQ(cli_ok(owner(), {"agents", "show", "talker"}).at("communication"), "direct");
  EXPECT_EQ(register_agent(owner(), "talker", {"--communication", "explicit"}).at("communication"), "explicit");
  EXPECT_EQ(owner().json({"messages", "register", "--agent", "quiet", "--communication", "loud"}).exit_code, 2);
  EXPECT_EQ(http_json(owner_http(), "POST", "/v1/agents", R"({"agent_name":"quiet","communication":"loud"})", 400)
                .at("error").at("code"), "bad_request");
  EXPECT_EQ(owner_http().get("/v1/agents/quiet").status, 404) << "a refused registration changes nothing";
}

}  // namespace
}  // namespace agentworks::testing
