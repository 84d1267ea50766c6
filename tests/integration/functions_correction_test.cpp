// The output contract (R-F5): with an output schema the result file is validated after the run; missing or
// invalid, exactly one correction turn runs in the same folder with FUNCTION_CORRECTION set; still invalid, the
// final answer is the result only when it is schema-valid JSON, else the call fails with result_invalid and the
// text kept. A crash, a kill or a timeout is a failure, never a correction.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

json words_schema() {
  return {{"type", "object"}, {"properties", {{"words", {{"type", "integer"}}}}}, {"required", {"words"}}};
}

class FunctionsCorrection : public CrewTest {
 protected:
  static bool has_event(const json& call, const std::string& type) {
    const auto types = event_types(call);
    return std::find(types.begin(), types.end(), type) != types.end();
  }
  // Crew "api" with one schema'd function per script body; every run appends its call id (and whether it is the
  // correction run) to runs.log.
  void crew_with(const std::vector<std::pair<std::string, std::string>>& functions, const json& extra = json::object()) {
    json decls = json::array();
    std::vector<std::pair<std::string, std::string>> scripts;
    for (const auto& [name, body] : functions) {
      json e = extra;
      e["output_schema"] = words_schema();
      decls.push_back(function_decl(name, e));
      scripts.emplace_back("tools/" + name + ".sh",
                           "echo \"$AGENTWORKS_CALL_ID ${FUNCTION_CORRECTION:+correction}\" >> runs.log\n" + body);
    }
    make_crew("api", decls, scripts);
  }
  std::size_t runs() const { return line_count(crew_dir("api") / "runs.log"); }
  json run(const std::string& function) {
    return wait_terminal(call_ok("api", function).at("call_id").get<std::string>(), std::chrono::seconds(40));
  }
};

// R-F5: a valid result file completes at once: result inline, no correction turn.
TEST_F(FunctionsCorrection, ValidResultFirstTime_R_F5) {
  start_server();
  crew_with({{"good", "echo '{\"words\": 3}' > \"$FUNCTION_RESULT_FILE\"\necho counted three"}});
  const json c = run("good");
  EXPECT_EQ(c.at("status"), "completed") << c.dump();
  EXPECT_EQ(c.at("result"), (json{{"words", 3}})) << c.dump();
  EXPECT_TRUE(c.at("result_file").is_null()) << c.dump();
  EXPECT_EQ(answer_of(c), "counted three");
  EXPECT_FALSE(has_event(c, "correction_started")) << c.dump();
  EXPECT_EQ(runs(), 1u);
}

// R-F5: invalid the first time, valid after the correction: one more run in the same folder with
// FUNCTION_CORRECTION holding the validation errors; completed with the corrected result.
TEST_F(FunctionsCorrection, CorrectionTurnFixesResult_R_F5) {
  start_server();
  crew_with({{"fixes",
              "if [ -z \"$FUNCTION_CORRECTION\" ]; then\n"
              "  echo \"$FUNCTION_OUTPUT_DIR\" > first_dir.txt\n"
              "  echo '{\"words\": \"many\"}' > \"$FUNCTION_RESULT_FILE\"\n"
              "else\n"
              "  echo \"$FUNCTION_OUTPUT_DIR\" > second_dir.txt\n"
              "  printf '%s' \"$FUNCTION_CORRECTION\" > \"$FUNCTION_OUTPUT_DIR/correction.txt\"\n"
              "  echo '{\"words\": 2}' > \"$FUNCTION_RESULT_FILE\"\n"
              "fi"}});
  const json c = run("fixes");
  EXPECT_EQ(c.at("status"), "completed") << c.dump();
  EXPECT_EQ(c.at("result"), (json{{"words", 2}})) << c.dump();
  EXPECT_TRUE(has_event(c, "correction_started")) << c.dump();
  EXPECT_EQ(runs(), 2u) << "exactly one correction turn";
  const std::string id = c.at("call_id").get<std::string>();
  const std::string correction = read_file(call_dir("api", id) / "correction.txt");
  EXPECT_FALSE(correction.empty());
  EXPECT_NE(correction.find("words"), std::string::npos) << "the validation errors name the bad field: " << correction;
  EXPECT_EQ(read_file(crew_dir("api") / "first_dir.txt"), read_file(crew_dir("api") / "second_dir.txt"))
      << "the correction runs in the same folder";
  const std::string log = read_file(crew_dir("api") / "runs.log");
  EXPECT_NE(log.find(id + " correction"), std::string::npos) << log;
}

// R-F5: no result file either time, but the final stdout is JSON valid for the schema: completed from it.
TEST_F(FunctionsCorrection, FinalAnswerUsedWhenValidJson_R_F5) {
  start_server();
  crew_with({{"stdout_json", "echo '{\"words\": 5}'"}});
  const json c = run("stdout_json");
  EXPECT_EQ(c.at("status"), "completed") << c.dump();
  EXPECT_EQ(c.at("result"), (json{{"words", 5}})) << c.dump();
  EXPECT_TRUE(has_event(c, "correction_started")) << c.dump();
  EXPECT_EQ(runs(), 2u);
}

// R-F5: invalid both times and the final text is not schema-valid JSON: failed, result_invalid, answer kept.
TEST_F(FunctionsCorrection, InvalidBothTimesFails_R_F5) {
  start_server();
  crew_with({{"never", "echo '{\"words\": \"x\"}' > \"$FUNCTION_RESULT_FILE\"\necho 'sorry, no count'"},
             {"wrong_json", "echo '{\"count\": 1}'"}});
  const json c = run("never");
  EXPECT_EQ(c.at("status"), "failed") << c.dump();
  EXPECT_EQ(c.at("error").value("code", ""), "result_invalid") << c.dump();
  EXPECT_EQ(answer_of(c), "sorry, no count") << c.dump();
  EXPECT_TRUE(c.at("result").is_null());
  EXPECT_EQ(runs(), 2u);
  const json w = run("wrong_json");
  EXPECT_EQ(w.at("status"), "failed") << w.dump();
  EXPECT_EQ(w.at("error").value("code", ""), "result_invalid") << "JSON, but not valid for the schema: " << w.dump();
  EXPECT_EQ(runs(), 4u);
}

// R-F5: a FIFO as the result file is refused as not a regular file, never opened for a blocking read: the call
// fails with result_invalid and the server goes on answering.
TEST_F(FunctionsCorrection, FifoAsResultFileIsRefusedWithoutBlocking_R_F5) {
  start_server();
  crew_with({{"fifo", "rm -f \"$FUNCTION_RESULT_FILE\"; mkfifo \"$FUNCTION_RESULT_FILE\"\necho 'no count'"}});
  const json c = run("fifo");
  EXPECT_EQ(c.at("status"), "failed") << c.dump();
  EXPECT_EQ(c.at("error").value("code", ""), "result_invalid") << c.dump();
  EXPECT_NE(c.dump().find("not a regular file"), std::string::npos) << c.dump();
  EXPECT_EQ(owner_http().get("/v1/health").status, 200);
}

// R-F5: a non-zero exit, a kill and a timeout fail at once, even with an invalid result: no correction turn.
TEST_F(FunctionsCorrection, CrashKillTimeoutNeverCorrected_R_F5) {
  start_server();
  crew_with({{"crashes", "echo '{\"words\": \"x\"}' > \"$FUNCTION_RESULT_FILE\"\necho oops >&2\nexit 1"},
             {"killed", "kill -9 $$"}});
  json slow = function_decl("slow", {{"output_schema", words_schema()}, {"timeout_seconds", 1}});
  write_script(crew_dir("api"), "tools/slow.sh",
               "echo \"$AGENTWORKS_CALL_ID ${FUNCTION_CORRECTION:+correction}\" >> runs.log\n"
               "while [ ! -e gate/open ]; do sleep 0.02; done");
  json decls = json::parse(read_file(crew_dir("api") / ".agentworks" / "functions.json")).at("functions");
  decls.push_back(slow);
  write_functions(crew_dir("api"), decls);
  ASSERT_EQ(reload_crew(owner_http(), "api").status, 200);

  const json crashed = run("crashes");
  EXPECT_EQ(crashed.at("status"), "failed") << crashed.dump();
  EXPECT_EQ(crashed.at("error").value("code", ""), "exit_status") << crashed.dump();
  EXPECT_FALSE(has_event(crashed, "correction_started")) << crashed.dump();
  EXPECT_EQ(runs(), 1u);
  const json killed = run("killed");
  EXPECT_EQ(killed.at("error").value("code", ""), "killed") << killed.dump();
  EXPECT_EQ(runs(), 2u);
  const json timed_out = run("slow");
  EXPECT_EQ(timed_out.at("status"), "failed") << timed_out.dump();
  EXPECT_EQ(timed_out.at("error").value("code", ""), "timeout") << timed_out.dump();
  EXPECT_FALSE(has_event(timed_out, "correction_started")) << timed_out.dump();
  EXPECT_EQ(runs(), 3u) << "a timeout is never followed by a correction run";
}

// R-F5: a result over 256 KiB is not inline: `result` null and `result_file` names the file to read.
TEST_F(FunctionsCorrection, LargeResultIsAFileReference_R_F5) {
  start_server();
  json schema = {{"type", "object"}, {"properties", {{"blob", {{"type", "string"}}}}}, {"required", {"blob"}}};
  make_crew("api", json::array({function_decl("large", {{"output_schema", schema}})}),
            {{"tools/large.sh",
              "{ printf '{\"blob\": \"'; head -c 300000 /dev/zero | tr '\\0' b; printf '\"}'; } > \"$FUNCTION_RESULT_FILE\""}});
  const json c = wait_terminal(call_ok("api", "large").at("call_id").get<std::string>());
  EXPECT_EQ(c.at("status"), "completed") << c.dump().substr(0, 2000);
  EXPECT_TRUE(c.at("result").is_null()) << c.dump().substr(0, 2000);
  ASSERT_TRUE(c.at("result_file").is_string()) << c.dump().substr(0, 2000);
  const HttpResponse page = file_page(owner_http(), c.at("call_id").get<std::string>(),
                                      c.at("result_file").get<std::string>(), 0, 16);
  ASSERT_EQ(page.status, 200) << describe(page);
  EXPECT_EQ(parse_json(page.body).value("content", ""), "{\"blob\": \"bbbbbb");
}

}  // namespace
}  // namespace agentworks::testing
