// MessagingTest plus what the function tests (functions_*_test.cpp, R-F1..R-F6) repeat: real Crew folders in the
// temp HOME with small shell scripts as `run.command`, the Crew and call routes over HTTP, status polling with a
// deadline, and restarting the server on the same port and data. Scripts that must hold a call open block until a
// gate file appears, so a test decides when an execution ends (no fixed sleeps).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/messaging_fixture.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {

// `text` without trailing line breaks.
std::string trim_newlines(std::string text);

// The Call statuses that end a call (docs/protocol.md "Crews and functions").
bool is_terminal_status(const std::string& status);

class CrewTest : public MessagingTest {
 protected:
  // A new folder under the temp HOME for a Crew (crews/NAME), with .agentworks/ and tools/ made.
  std::filesystem::path make_crew_dir(const std::string& name);
  // Writes DIR/REL as an executable `#!/bin/sh` script with `body`.
  static void write_script(const std::filesystem::path& dir, const std::string& rel, const std::string& body);
  // Writes DIR/.agentworks/functions.json as {"functions": FUNCTIONS}, two-space indented (one key a line).
  static void write_functions(const std::filesystem::path& dir, const json& functions);
  static void write_text(const std::filesystem::path& path, const std::string& text);
  // One function declaration running ./tools/SCRIPT (default: NAME.sh) with permissive object inputs.
  static json function_decl(const std::string& name, const json& extra = json::object(), const std::string& script = "");
  // A Crew folder NAME with `functions` declared and one script per (relative path, body), registered by the
  // owner over HTTP (201). Returns the Crew object; the folder is crew_dir(NAME).
  json make_crew(const std::string& name, const json& functions,
                 const std::vector<std::pair<std::string, std::string>>& scripts);
  std::filesystem::path crew_dir(const std::string& name) const { return home_.path("crews") / name; }

  // The account id of the connection `http` speaks for (GET /v1/whoami).
  std::string account_id_of(const HttpClient& http);
  // POST /v1/crews {"crew_name","dir"} as `http`.
  HttpResponse register_crew(const HttpClient& http, const std::string& name, const std::filesystem::path& dir);
  HttpResponse reload_crew(const HttpClient& http, const std::string& crew);
  // POST /v1/crews/{crew}/calls with `function`, `arguments` and the extra fields (submission_id, wait_seconds).
  HttpResponse call(const HttpClient& http, const std::string& crew, const std::string& function, const json& arguments,
                    const json& extra = json::object());
  // A call that must be accepted (201 unless `expected_status`); returns the Call.
  json call_ok(const std::string& crew, const std::string& function, const json& arguments = json::object(),
               const json& extra = json::object(), int expected_status = 201);
  // GET /v1/calls/{id}?QUERY as the owner (200 expected).
  json status(const std::string& call_id, const std::string& query = "");
  HttpResponse status_as(const HttpClient& http, const std::string& call_id, const std::string& query = "");
  // Polls the status until `done` holds; throws with the last status when it does not within `timeout`.
  template <typename Done>
  json wait_status(const std::string& call_id, Done&& done,
                   std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Polls until the call is completed, failed, cancelled or interrupted.
  json wait_terminal(const std::string& call_id, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // GET /v1/calls/{id}/file?name=NAME[&offset&limit] as `http`.
  HttpResponse file_page(const HttpClient& http, const std::string& call_id, const std::string& name,
                         std::optional<long long> offset = std::nullopt, std::optional<long long> limit = std::nullopt);

  // The call's folder: crew_dir(CREW)/.calls/CALL_ID.
  std::filesystem::path call_dir(const std::string& crew, const std::string& call_id) const {
    return crew_dir(crew) / ".calls" / call_id;
  }
  // Number of call folders (call_…) in crew_dir(CREW)/.calls (0 when it does not exist).
  std::size_t call_folder_count(const std::string& crew) const;
  // Lines in a file (0 when missing): the scripts append one line per run to a counter file.
  static std::size_t line_count(const std::filesystem::path& path);
  // Waits until `path` exists.
  static bool wait_file(const std::filesystem::path& path, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Waits until `path` holds at least `lines` lines.
  static bool wait_lines(const std::filesystem::path& path, std::size_t lines,
                         std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // A pid a script wrote to `path`, once the file holds one.
  static pid_t read_pid(const std::filesystem::path& path);
  // The processes (as this test sees them) whose working directory is `dir` and whose command line, its arguments
  // joined by spaces, holds `part`. An execution runs in a PID namespace of its own with its own /proc, where the
  // pids it could write down are not this test's, so its processes are found this way: by the Crew folder they
  // run in (unique per test) and what they run.
  static std::vector<pid_t> processes_in(const std::filesystem::path& dir, const std::string& part = "");

  // Stops the server (SIGTERM, `graceful`, or SIGKILL like a crash) and starts it again on the same port and data.
  void stop_server(bool graceful);
  void start_again_same_port();

  // A Call's answer without trailing line breaks (the server may keep or drop stdout's last newline); "" when null.
  static std::string answer_of(const json& call) {
    const json& a = call.at("answer");
    return a.is_string() ? trim_newlines(a.get<std::string>()) : std::string();
  }
  // Message texts of a Call's page.
  static std::vector<std::string> message_texts(const json& call);
  // Event types of a Call's page.
  static std::vector<std::string> event_types(const json& call);

  // The body of a script that blocks until the file `gate` (relative to the Crew folder) exists, after appending a
  // line to `started` (relative too): the calls it runs stay open until the test creates the gate.
  static std::string blocking_script(const std::string& gate = "gate/open", const std::string& started = "started.log");
  // Opens the gate of blocking_script() in Crew folder `dir`.
  static void open_gate(const std::filesystem::path& dir, const std::string& gate = "gate/open");

  // The port the first start picked, kept across restarts.
  int port_ = 0;
};

template <typename Done>
json CrewTest::wait_status(const std::string& call_id, Done&& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  json last;
  while (true) {
    last = status(call_id);
    if (done(last)) return last;
    if (std::chrono::steady_clock::now() >= deadline) {
      throw std::runtime_error("call " + call_id + " did not reach the awaited state; last status: " + last.dump());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Decodes standard base64 (the file pages' content_base64).
std::string base64_decode(const std::string& text);

}  // namespace agentworks::testing
