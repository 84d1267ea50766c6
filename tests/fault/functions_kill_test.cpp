// R-F6 and R-F1 under crashes: a real agentworks-server is killed with SIGKILL at a random moment while
// two threads fire function calls, each with its own submission_id. Every round checks that the executions died
// with their server (no keeper of that server, no process working in the Crew folder), that after a restart on
// the same data each submission_id recovers exactly one call (the accepted one when its answer arrived, never
// `conflict`), and that no execution ever ran twice: the function appends its call id to a counter file, so a
// call rerun by itself after the restart would show up there twice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/crew_folder.hpp"
#include "testing/http_client.hpp"
#include "testing/server_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kRounds = 12;
constexpr int kThreads = 2;
constexpr int kCallsPerThread = 4;
constexpr int kCalls = kThreads * kCallsPerThread;
constexpr int kMaxKillDelayMs = 300;
constexpr int kMaxSleepMs = 250;

// The function: records that it ran (its call id, one line, in the Crew folder outside .calls), sleeps the time
// its `sleep` argument says, and completes.
constexpr const char* kCountedSleep =
    "echo \"$AGENTWORKS_CALL_ID\" >> counter.log\n"
    "seconds=$(printf '%s' \"$FUNCTION_INPUTS\" |\n"
    "  sed -n 's/.*\"sleep\"[[:space:]]*:[[:space:]]*\"\\([0-9.]*\\)\".*/\\1/p')\n"
    "sleep \"${seconds:-0}\"\n"
    "echo \"slept $seconds\"";

std::uint32_t seed_of_run() {
  if (const char* s = std::getenv("AGENTWORKS_FAULT_SEED"); s != nullptr && *s != '\0')
    return static_cast<std::uint32_t>(std::stoul(s));
  return std::random_device{}();
}

std::string error_code_in(const json& j) {
  return j.is_object() && j.contains("error") && j["error"].is_object() ? j["error"].value("code", "") : "";
}

json parse_or_null(const std::string& body) { return json::parse(body, nullptr, false); }

// One call of a round: what was sent, and what its first attempt (before the kill) was told.
struct PlannedCall {
  std::string submission_id;
  json arguments;
  bool wait = false;          // the first attempt asked for wait_seconds (answered when the call ends)
  int first_http = -1;        // -1: never sent (the kill came first); 0: sent, no answer
  std::string first_call_id;  // set when the first attempt was accepted
  std::string first_status;   // the status in that answer
};

// A process that belongs to a killed server's executions: a keeper started with `--parent SERVER_PID`, or any
// process whose working directory is the Crew folder or inside it. Zombies are gone already.
std::vector<std::string> leftover_processes(const fs::path& crew_dir, pid_t server_pid) {
  std::vector<std::string> found;
  const std::string crew = crew_dir.string();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(name);
    if (pid == static_cast<long>(::getpid())) continue;
    const std::string stat = read_file(entry.path() / "stat");
    const auto paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] == 'Z') continue;
    std::vector<std::string> args;
    std::istringstream cmd(read_file(entry.path() / "cmdline"));
    for (std::string arg; std::getline(cmd, arg, '\0');) args.push_back(arg);
    std::error_code cwd_ec;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", cwd_ec).string();
    const bool keeper = args.size() >= 3 && fs::path(args[0]).filename() == "agentworks-keeper" &&
                        args[1] == "--parent" && args[2] == std::to_string(server_pid);
    const bool in_crew = !cwd_ec && (cwd == crew || cwd.rfind(crew + "/", 0) == 0);
    if (!keeper && !in_crew) continue;
    std::string line = "pid " + name + " cwd " + cwd + ":";
    for (const auto& a : args) line += " " + a;
    found.push_back(line);
  }
  return found;
}

// How often each line occurs in the counter file.
std::map<std::string, int> counter_lines(const fs::path& file) {
  std::map<std::string, int> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) ++lines[line];
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  " + l;
  return out;
}

class FunctionsKillTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure() && server_) std::cerr << "=== server log ===\n" << server_->log().substr(0, 30000) << "\n";
  }

  void start_round(int round) {
    const fs::path base = home_.path("round-" + std::to_string(round));
    crew_dir_ = base / "crew";
    CrewFolder crew(crew_dir_);
    const json inputs = {{"type", "object"},
                         {"properties",
                          {{"sleep", {{"type", "string"}, {"pattern", "^[0-9]\\.[0-9]{3}$"}}},
                           {"tag", {{"type", "string"}}}}},
                         {"required", {"sleep", "tag"}},
                         {"additionalProperties", false}};
    crew.declare({CrewFolder::function("counted_sleep", crew.script("counted_sleep.sh", kCountedSleep), inputs)});
    ServerOptions options;
    options.data_dir = base / "data";
    options.env = home_.env();
    // Room for every call of the round at once: a `busy` refusal would only blur what the round checks.
    options.extra_args = {"--crew-max-running", std::to_string(kCalls)};
    server_.reset();
    server_ = std::make_unique<ServerProcess>(options);
    connect();
    const auto r = http_->post("/v1/crews", json{{"crew_name", "api"}, {"dir", crew_dir_.string()}}.dump());
    ASSERT_EQ(r.status, 201) << r.body;
  }
  void connect() { http_ = std::make_unique<HttpClient>(server_->url(), server_->owner_token()); }

  static json call_body(const PlannedCall& c, bool wait) {
    json body = {{"function", "counted_sleep"}, {"arguments", c.arguments}, {"submission_id", c.submission_id}};
    if (wait) body["wait_seconds"] = 10;
    return body;
  }
  static HttpResponse post_call(const HttpClient& http, const PlannedCall& c, bool wait) {
    return http.request("POST", "/v1/crews/api/calls", call_body(c, wait).dump(), {}, std::chrono::seconds(30));
  }

  // Fires the round's calls from kThreads threads and kills the server `kill_delay` after the first one went out.
  // Returns how many execution processes were alive just before the kill (so the check after it is not idle).
  std::size_t fire_and_kill(std::vector<PlannedCall>& calls, std::mt19937& rng, std::chrono::milliseconds kill_delay) {
    std::vector<std::vector<int>> gaps(kThreads);  // ms before each call, drawn here so the seed decides them
    for (auto& g : gaps)
      for (int i = 0; i < kCallsPerThread; ++i) g.push_back(std::uniform_int_distribution<int>(0, 40)(rng));
    std::atomic<bool> killed{false};
    std::mutex m;
    std::condition_variable first_sent;
    bool any_sent = false;
    const std::string url = server_->url();
    const std::string token = server_->owner_token();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const HttpClient http(url, token);
        const std::vector<int>& my_gaps = gaps[static_cast<std::size_t>(t)];
        for (int i = 0; i < kCallsPerThread; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(my_gaps[static_cast<std::size_t>(i)]));
          if (killed.load()) return;  // the port may belong to another test's server by now
          PlannedCall& c = calls[static_cast<std::size_t>(t * kCallsPerThread + i)];
          {
            const std::lock_guard<std::mutex> lock(m);
            any_sent = true;
          }
          first_sent.notify_all();
          const HttpResponse r = post_call(http, c, c.wait);
          c.first_http = r.status;
          if (r.status / 100 == 2) {
            const json j = parse_or_null(r.body);
            c.first_call_id = j.is_object() ? j.value("call_id", "") : "";
            c.first_status = j.is_object() ? j.value("status", "") : "";
          }
        }
      });
    }
    {
      std::unique_lock<std::mutex> lock(m);
      first_sent.wait(lock, [&] { return any_sent; });
    }
    std::this_thread::sleep_for(kill_delay);  // the random moment of the crash, not a synchronisation
    killed.store(true);
    const std::size_t alive = leftover_processes(crew_dir_, server_->pid()).size();
    server_->kill();
    for (auto& th : threads) th.join();
    return alive;
  }

  TempHome home_;
  fs::path crew_dir_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<HttpClient> http_;
};

// R-F6 (an execution dies with its server, even on kill -9; a call running then reads `interrupted` and is
// never started again by itself) and R-F1 (a submission_id recovers its call after a lost answer: one call_id, never
// `conflict`, never a second run).
TEST_F(FunctionsKillTest, KillNineAtRandomMomentsNeverRunsACallTwice_R_F6_R_F1) {
  const std::uint32_t seed = seed_of_run();
  std::cout << "FunctionsKillTest seed " << seed << " (AGENTWORKS_FAULT_SEED=" << seed << " draws the same delays)\n";
  RecordProperty("seed", std::to_string(seed));
  std::mt19937 rng(seed);
  int interrupted_total = 0, completed_total = 0, recovered_total = 0, lost_answers_total = 0;
  std::size_t alive_at_kill = 0;

  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", round " + std::to_string(round));
    ASSERT_NO_FATAL_FAILURE(start_round(round));
    std::vector<PlannedCall> calls(kCalls);
    for (int i = 0; i < kCalls; ++i) {
      auto& c = calls[static_cast<std::size_t>(i)];
      c.submission_id = "r" + std::to_string(round) + "-c" + std::to_string(i);
      const int ms = std::uniform_int_distribution<int>(0, kMaxSleepMs)(rng);
      char sleep[16];
      std::snprintf(sleep, sizeof sleep, "%d.%03d", ms / 1000, ms % 1000);
      c.arguments = {{"sleep", sleep}, {"tag", c.submission_id}};
      c.wait = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    }
    const auto kill_delay = std::chrono::milliseconds(std::uniform_int_distribution<int>(0, kMaxKillDelayMs)(rng));
    const pid_t server_pid = server_->pid();
    alive_at_kill += fire_and_kill(calls, rng, kill_delay);
    for (const auto& c : calls) {
      EXPECT_TRUE(c.first_http == -1 || c.first_http == 0 || c.first_http == 201)
          << c.submission_id << " before the kill: HTTP " << c.first_http;
    }

    // R-F6: the keepers and everything they ran are gone once the server is (they need a moment to notice).
    std::vector<std::string> left;
    EXPECT_TRUE(wait_until([&] { return (left = leftover_processes(crew_dir_, server_pid)).empty(); },
                           std::chrono::seconds(20)))
        << "processes outlived their server (killed after " << kill_delay.count() << " ms):" << join(left);
    ASSERT_TRUE(left.empty());

    server_->start();  // the same data directory (a new port)
    connect();
    // R-F1: every submission again, with its arguments: one call_id each; the accepted one when it was accepted.
    std::map<std::string, const PlannedCall*> by_call_id;
    std::set<std::string> created_after_restart;
    for (const auto& c : calls) {
      for (int round_trip = 0; round_trip < 2; ++round_trip) {  // the second proves the binding holds
        const HttpResponse r = post_call(*http_, c, false);
        const json j = parse_or_null(r.body);
        ASSERT_TRUE(r.status == 200 || r.status == 201)
            << c.submission_id << " again: HTTP " << r.status << " " << r.body << " (first attempt HTTP "
            << c.first_http << ")";
        EXPECT_NE(error_code_in(j), "conflict") << r.body;
        const std::string id = j.value("call_id", "");
        ASSERT_FALSE(id.empty()) << r.body;
        if (!c.first_call_id.empty()) {
          EXPECT_EQ(r.status, 200) << c.submission_id << " was accepted as " << c.first_call_id << ": " << r.body;
          EXPECT_EQ(id, c.first_call_id) << c.submission_id << ": the accepted call must be the one recovered";
        }
        if (round_trip == 0) {
          if (r.status == 201) created_after_restart.insert(id);
          if (c.first_call_id.empty() && r.status == 200) ++lost_answers_total;
          if (r.status == 200) ++recovered_total;
          EXPECT_EQ(by_call_id.count(id), 0u) << "two submissions share call " << id;
          by_call_id[id] = &c;
        } else {
          EXPECT_EQ(r.status, 200) << c.submission_id << ": " << r.body;
          EXPECT_EQ(by_call_id.count(id), 1u) << c.submission_id << " recovered another call " << id;
        }
      }
    }

    // Every call ends; none is left running.
    std::map<std::string, json> final_state;
    for (const auto& [id, c] : by_call_id) {
      json last;
      const bool ended = wait_until(
          [&] {
            const HttpResponse r = http_->get("/v1/calls/" + id);
            if (r.status != 200) return false;
            last = parse_or_null(r.body);
            const std::string s = last.is_object() ? last.value("status", "") : "";
            return s == "completed" || s == "failed" || s == "interrupted";
          },
          std::chrono::seconds(30), std::chrono::milliseconds(20));
      ASSERT_TRUE(ended) << "call " << id << " (" << c->submission_id << ") never ended: " << last.dump();
      final_state[id] = last;
    }
    // Nothing runs once every call has ended: a rerun would be a process in the Crew folder or a second line.
    std::vector<std::string> running;
    EXPECT_TRUE(wait_until([&] { return (running = leftover_processes(crew_dir_, server_->pid())).empty(); },
                           std::chrono::seconds(20)))
        << "processes still run after every call ended:" << join(running);

    const auto runs = counter_lines(crew_dir_ / "counter.log");
    for (const auto& [id, count] : runs) {
      EXPECT_EQ(by_call_id.count(id), 1u) << "an execution ran for call " << id << ", which no submission recovers";
      EXPECT_LE(count, 1) << "call " << id << " ran " << count << " times";
    }
    for (const auto& [id, c] : final_state) {
      const std::string status = c.value("status", "");
      const auto it = runs.find(id);
      const int count = it == runs.end() ? 0 : it->second;
      const std::string sid = by_call_id[id]->submission_id;
      if (status == "completed") {
        ++completed_total;
        EXPECT_EQ(count, 1) << "completed call " << id << " (" << sid << ") ran " << count << " times";
        EXPECT_EQ(c.value("answer", ""), "slept " + by_call_id[id]->arguments.value("sleep", "")) << c.dump();
      } else if (status == "interrupted") {
        ++interrupted_total;
        EXPECT_EQ(error_code_in(c), "interrupted") << c.dump();
        EXPECT_EQ(created_after_restart.count(id), 0u) << "a call of the new server was interrupted: " << c.dump();
      } else {
        ADD_FAILURE() << "call " << id << " (" << sid << ") ended " << status << ": " << c.dump();
      }
      if (created_after_restart.count(id) != 0) {
        EXPECT_EQ(status, "completed") << c.dump();
      }
      // What a caller was told had completed stays completed (finished calls are readable after a restart).
      if (by_call_id[id]->first_status == "completed") {
        EXPECT_EQ(status, "completed") << c.dump();
      }
    }
    server_->kill();
    if (HasFailure()) break;
  }
  std::cout << "FunctionsKillTest: " << kRounds << " rounds; " << recovered_total
            << " calls recovered by submission_id (" << lost_answers_total << " whose answer was lost); "
            << completed_total << " completed, " << interrupted_total << " interrupted; " << alive_at_kill
            << " execution processes (keepers, scripts, sleeps) were alive when the server was killed\n";
}

}  // namespace
}  // namespace agentworks::testing
