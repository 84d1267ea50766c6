// Calls from executions (R-D4): a function's execution calls functions of Crews its Crew may call, with
// `agentworks functions …` in its own environment (never the computer user's login). Its call is the caller of
// record; a repeat without a submission id is the same call; it reads only the calls it made and cannot ask for
// notices; nesting stops at four levels, a cycle back to an open ancestor is refused, and a parent's end cancels
// its open children.
#include <gtest/gtest.h>

#include <string>

#include "support/crew_fixture.hpp"
#include "testing/binaries.hpp"

namespace agentworks::testing {
namespace {

class FunctionsNesting : public CrewTest {
 protected:
  // `agentworks functions ARGS --json`, its output (and errors) into OUT in the Crew folder; never fails the script.
  static std::string cli_into(const std::string& args, const std::string& out) {
    return "'" + cli_binary() + "' functions " + args + " --json > " + out + " 2>&1 || true\n";
  }
  json read_json_file(const std::filesystem::path& path) {
    EXPECT_TRUE(wait_file(path)) << path;
    const json j = json::parse(read_file(path), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << path << ": " << read_file(path);
    return j;
  }
};

// The execution calls another Crew's function and waits for it; the child names the parent as its caller, the
// same call again (no submission id) is the same call, and the person reads the child too.
TEST_F(FunctionsNesting, AnExecutionCallsAnotherCrewAsItsCall_R_D4) {
  start_server();
  make_crew("tools", json::array({function_decl("echo")}), {{"tools/echo.sh", "echo tool says hi"}});
  make_crew("api", json::array({function_decl("delegate")}),
            {{"tools/delegate.sh",
              cli_into("call --crew tools --function echo --args '{\"n\":1}' --wait 25", "first.json") +
                  cli_into("call --crew tools --function echo --args '{\"n\":1}'", "again.json") +
                  "echo delegated"}});
  const std::string parent = call_ok("api", "delegate").at("call_id").get<std::string>();
  ASSERT_EQ(wait_terminal(parent).at("status"), "completed");
  const json first = read_json_file(crew_dir("api") / "first.json");
  ASSERT_TRUE(first.contains("call_id")) << first.dump();
  const std::string child = first.at("call_id").get<std::string>();
  EXPECT_EQ(first.at("status"), "completed") << first.dump();
  EXPECT_EQ(answer_of(first), "tool says hi");
  EXPECT_EQ(first.at("caller").at("connection_id"), parent) << "the parent call is the caller of record";
  EXPECT_EQ(first.at("parent_call_id"), parent);
  EXPECT_EQ(first.at("depth"), 2);
  EXPECT_EQ(read_json_file(crew_dir("api") / "again.json").at("call_id"), child)
      << "the same (parent, Crew, function, arguments) is the same call";
  EXPECT_EQ(call_folder_count("tools"), 1u) << "it ran once";
  EXPECT_EQ(status(child).at("status"), "completed") << "the person reads the child";
}

// Nesting stops at level four (the fifth is forbidden) and a call back into an open ancestor's function is a
// cycle (conflict); neither makes anything.
TEST_F(FunctionsNesting, DepthIsBoundedAndACycleIsRefused_R_D4) {
  start_server({"--crew-max-running", "10"});
  json functions = json::array();
  std::vector<std::pair<std::string, std::string>> scripts;
  for (int level = 1; level <= 5; ++level) {
    const std::string name = "f" + std::to_string(level);
    functions.push_back(function_decl(name));
    scripts.emplace_back("tools/" + name + ".sh",
                         cli_into("call --crew api --function f" + std::to_string(level + 1) + " --args '{}' --wait 25",
                                  name + ".json") + "echo " + name);
  }
  functions.push_back(function_decl("f6"));
  scripts.emplace_back("tools/f6.sh", "echo f6");
  functions.push_back(function_decl("loop"));
  scripts.emplace_back("tools/loop.sh", cli_into("call --crew api --function loop --args '{}'", "loop.json"));
  make_crew("api", functions, scripts);

  ASSERT_EQ(wait_terminal(call_ok("api", "f1").at("call_id").get<std::string>(), std::chrono::seconds(90)).at("status"),
            "completed");
  for (const char* name : {"f1", "f2", "f3"}) {
    const json made = read_json_file(crew_dir("api") / (std::string(name) + ".json"));
    EXPECT_EQ(made.value("status", ""), "completed") << name << ": " << made.dump();
  }
  const json fifth = read_json_file(crew_dir("api") / "f4.json");
  EXPECT_EQ(fifth.at("error").at("code"), "forbidden") << fifth.dump();
  EXPECT_FALSE(std::filesystem::exists(crew_dir("api") / "f5.json")) << "level five never ran";

  ASSERT_EQ(wait_terminal(call_ok("api", "loop").at("call_id").get<std::string>()).at("status"), "completed");
  const json cycle = read_json_file(crew_dir("api") / "loop.json");
  EXPECT_EQ(cycle.at("error").at("code"), "conflict") << cycle.dump();
  EXPECT_NE(cycle.at("error").at("message").get<std::string>().find("cycle"), std::string::npos) << cycle.dump();
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/calls?limit=100", std::nullopt, 200).at("calls").size(), 5u)
      << "f1..f4 and loop: the refused calls made nothing";
}

// When the parent ends, what its execution left running is cancelled (its tree killed).
TEST_F(FunctionsNesting, AParentsEndCancelsItsOpenChildren_R_D4) {
  start_server();
  make_crew("tools", json::array({function_decl("hold")}), {{"tools/hold.sh", blocking_script()}});
  make_crew("api", json::array({function_decl("starter")}),
            {{"tools/starter.sh", cli_into("call --crew tools --function hold --args '{}'", "child.json") +
                                      "while [ ! -e ../tools/started.log ]; do sleep 0.02; done\necho started"}});
  const std::string parent = call_ok("api", "starter").at("call_id").get<std::string>();
  ASSERT_EQ(wait_terminal(parent).at("status"), "completed");
  const std::string child = read_json_file(crew_dir("api") / "child.json").at("call_id").get<std::string>();
  const json ended = wait_terminal(child);
  EXPECT_EQ(ended.at("status"), "cancelled") << ended.dump();
  EXPECT_TRUE(processes_in(crew_dir("tools")).empty());
}

// An execution reads and cancels only what it made, and cannot ask for notices; outside an execution the same
// commands act as the person's login.
TEST_F(FunctionsNesting, AnExecutionReachesOnlyItsOwnCalls_R_D4) {
  start_server();
  make_crew("tools", json::array({function_decl("echo")}), {{"tools/echo.sh", "echo hi"}});
  const std::string foreign = call_ok("tools", "echo").at("call_id").get<std::string>();
  ASSERT_EQ(wait_terminal(foreign).at("status"), "completed");
  register_agent(owner(), "reviewer");
  make_crew("api", json::array({function_decl("probe")}),
            {{"tools/probe.sh", cli_into("call-status --call " + foreign, "read.json") +
                                    cli_into("cancel --call " + foreign, "cancel.json") +
                                    cli_into("call --crew tools --function echo --args '{}' --notify agent:reviewer",
                                             "notify.json") +
                                    "echo probed"}});
  ASSERT_EQ(wait_terminal(call_ok("api", "probe").at("call_id").get<std::string>()).at("status"), "completed");
  EXPECT_EQ(read_json_file(crew_dir("api") / "read.json").at("error").at("code"), "not_found");
  EXPECT_EQ(read_json_file(crew_dir("api") / "cancel.json").at("error").at("code"), "not_found");
  EXPECT_EQ(read_json_file(crew_dir("api") / "notify.json").at("error").at("code"), "bad_request");
  EXPECT_EQ(status(foreign).at("status"), "completed") << "untouched";
  EXPECT_TRUE(cli_ok(owner(), {"functions", "call-status", "--call", foreign}).contains("call_id"))
      << "outside an execution the login reads it";
}

}  // namespace
}  // namespace agentworks::testing
