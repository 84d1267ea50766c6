// Retention of call outputs (R-F6): with a 1-second TTL and no sweep interval, a finished call's folder is removed
// when a later call of the Crew starts (by the server's sweep thread, so the test waits for it); its files then
// answer expired (HTTP 410, CLI exit 4) and files_expired is true, while the record stays readable; a running
// call's folder is kept however old.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <string>

#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

class FunctionsRetention : public CrewTest {};

TEST_F(FunctionsRetention, FinishedOutputsExpireRunningKept_R_F6) {
  start_server({"--call-output-ttl-seconds", "1", "--call-sweep-interval-seconds", "0"});
  make_crew("api", json::array({function_decl("report"), function_decl("hold")}),
            {{"tools/report.sh", "echo kept-answer\necho data > \"$FUNCTION_OUTPUT_DIR/out.txt\""},
             {"tools/hold.sh", "echo held > \"$FUNCTION_OUTPUT_DIR/held.txt\"\n" + blocking_script()}});
  const json finished = call_ok("api", "report", json::object(), {{"wait_seconds", 20}});
  ASSERT_EQ(finished.at("status"), "completed") << finished.dump();
  const std::string old_id = finished.at("call_id").get<std::string>();
  ASSERT_EQ(file_page(owner_http(), old_id, "out.txt").status, 200);
  const std::string running_id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));

  // Both folders are now older than the TTL (whole seconds on the server's clock)...
  const std::time_t since = std::time(nullptr);
  ASSERT_TRUE(wait_until([&] { return std::time(nullptr) >= since + 3; }, std::chrono::seconds(8),
                         std::chrono::milliseconds(50)));
  // ...and a later call of the Crew sweeps the finished one.
  const json trigger = call_ok("api", "report", json::object(), {{"wait_seconds", 20}});
  EXPECT_EQ(trigger.at("status"), "completed");
  ASSERT_TRUE(wait_until([&] { return status(old_id).at("files_expired") == true; }, std::chrono::seconds(15)))
      << "the finished call's files were not marked expired";
  EXPECT_FALSE(fs::exists(call_dir("api", old_id))) << "the finished call's folder was not removed";
  EXPECT_TRUE(fs::exists(call_dir("api", running_id) / "held.txt")) << "a running call's folder is kept";

  const HttpResponse expired = file_page(owner_http(), old_id, "out.txt");
  EXPECT_EQ(expired.status, 410) << describe(expired);
  EXPECT_EQ(error_code_of(expired.body), "expired") << describe(expired);
  const json record = status(old_id);
  EXPECT_EQ(record.at("status"), "completed") << "the record stays: " << record.dump();
  EXPECT_EQ(answer_of(record), "kept-answer");
  EXPECT_EQ(record.at("files_expired"), true) << record.dump();
  const CliResult cli = owner().json({"functions", "call-file", "--call", old_id, "--file", "out.txt"});
  EXPECT_EQ(cli.exit_code, 4) << cli.describe();
  EXPECT_EQ(cli.error_code(), "expired") << cli.describe();

  EXPECT_EQ(file_page(owner_http(), running_id, "held.txt").status, 200);
  open_gate(crew_dir("api"));
  EXPECT_EQ(wait_terminal(running_id).at("status"), "completed");
  EXPECT_EQ(status(running_id).at("files_expired"), false);
}

// R-F6: a call that ended before its folder was made (simulated by removing it) never reads `expired`: the sweep
// that removes another call's old folder records it as having no files, and call-status says "files: none".
TEST_F(FunctionsRetention, ACallThatNeverHadAFolderHasNoFilesNotExpiredOnes_R_F6) {
  start_server({"--call-output-ttl-seconds", "1", "--call-sweep-interval-seconds", "0"});
  make_crew("api", json::array({function_decl("report")}), {{"tools/report.sh", "echo report"}});
  const std::string with_folder = call_ok("api", "report", json::object(), {{"wait_seconds", 20}}).at("call_id");
  const std::string without = call_ok("api", "report", json::object(), {{"wait_seconds", 20}}).at("call_id");
  ASSERT_EQ(wait_terminal(without).at("status"), "completed");
  fs::remove_all(call_dir("api", without));
  const std::time_t since = std::time(nullptr);
  ASSERT_TRUE(wait_until([&] { return std::time(nullptr) >= since + 3; }, std::chrono::seconds(8),
                         std::chrono::milliseconds(50)));
  ASSERT_EQ(call_ok("api", "report", json::object(), {{"wait_seconds", 20}}).at("status"), "completed");
  // One sweep looks at both: once the first reads expired, the second has been recorded too.
  ASSERT_TRUE(wait_until([&] { return status(with_folder).at("files_expired") == true; }, std::chrono::seconds(15)));
  const json record = status(without);
  EXPECT_EQ(record.at("files_expired"), false) << record.dump();
  EXPECT_TRUE(record.at("files").empty()) << record.dump();
  const CliResult shown = owner().run({"functions", "call-status", without});
  EXPECT_NE(shown.out.find("files: none"), std::string::npos) << shown.describe();
  EXPECT_EQ(shown.out.find("expired"), std::string::npos) << shown.describe();
}

// R-F6: an expired call's folder leaves at once (renamed into .calls/.trash, its files `expired`), whatever it
// holds; the trash is emptied a bounded walk per sweep, so a huge folder goes over several short sweeps.
TEST_F(FunctionsRetention, AHugeFolderIsRemovedOverSeveralBoundedSweeps_R_F6) {
  start_server({"--call-output-ttl-seconds", "1", "--call-sweep-interval-seconds", "0"});
  make_crew("api", json::array({function_decl("many"), function_decl("report")}),
            {{"tools/many.sh", "cd \"$FUNCTION_OUTPUT_DIR\" && seq 1 25000 | xargs touch && echo made"},
             {"tools/report.sh", "echo report"}});
  const std::string id = call_ok("api", "many").at("call_id").get<std::string>();
  const json many = wait_terminal(id, std::chrono::seconds(60));
  ASSERT_EQ(many.at("status"), "completed") << many.dump().substr(0, 2000);
  const std::time_t since = std::time(nullptr);
  ASSERT_TRUE(wait_until([&] { return std::time(nullptr) >= since + 3; }, std::chrono::seconds(8),
                         std::chrono::milliseconds(50)));
  const fs::path trash = crew_dir("api") / ".calls" / ".trash";
  const auto left = [&] {
    std::size_t n = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(trash, ec), end; !ec && it != end; it.increment(ec)) ++n;
    return n;
  };
  ASSERT_EQ(call_ok("api", "report", json::object(), {{"wait_seconds", 20}}).at("status"), "completed");
  ASSERT_TRUE(wait_until([&] { return status(id).at("files_expired") == true; }, std::chrono::seconds(30)))
      << "the first sweep did not take the folder";
  EXPECT_FALSE(fs::exists(call_dir("api", id))) << "the folder leaves at the first sweep";
  EXPECT_GT(left(), 10000u) << "one sweep removes at most 10,000 entries";
  int sweeps = 1;
  while (left() > 0 && sweeps < 10) {
    const std::size_t before = left();
    ASSERT_EQ(call_ok("api", "report", json::object(), {{"wait_seconds", 20}}).at("status"), "completed");
    ++sweeps;
    // The sweep runs on the server's worker thread: wait until this one has taken its share.
    EXPECT_TRUE(wait_until([&] { return left() < before; }, std::chrono::seconds(30))) << "sweep " << sweeps;
  }
  // A sweep still running on the server's worker thread finishes the trash after the last trigger.
  EXPECT_TRUE(wait_until([&] { return left() == 0; }, std::chrono::seconds(30))) << left() << " entries left";
  EXPECT_GE(sweeps, 3) << "25,000 entries at most 10,000 a sweep";
}

}  // namespace
}  // namespace agentworks::testing
