// SIGKILL cycle benchmark: a real server and bridge in a temp HOME; each cycle sends messages with
// the CLI (every send with a submission id), takes them through the bridge socket, and SIGKILLs the bridge, the
// server or both at a random moment, then restarts them. After every kill the killed process's SQLite file
// passes PRAGMA integrity_check. At the end, with both clean: every submission is accepted (a send whose answer
// was lost is retried with its id), the server stores each accepted send exactly once (0 lost, 0 doubled), and
// the bridge offered no message twice and has every accepted message persisted as offered (0 lost).
// Bounded by --cycles and --max-seconds; exits 1 on any loss, duplicate or integrity failure, 2 when it measured
// nothing. docs/benchmarks.md has the command and results.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "bench_run.hpp"
#include "bench_rig.hpp"
#include "testing/bridge_client.hpp"
#include "testing/net_probe.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "bench_options.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace agentworks::bench {
namespace {

struct Options : ProgramOptions {
  long cycles = 1000;
  double cycle_seconds = 3600;  // no new cycle starts after this long (not the watchdog)
  std::uint32_t seed = 0;
};

std::vector<std::vector<std::string>> query(const std::string& db_path, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + db_path);
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    const std::string msg = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error("bad query " + sql + ": " + msg);
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      const auto* t = sqlite3_column_text(st, i);
      row.emplace_back(t != nullptr ? reinterpret_cast<const char*>(t) : "");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rows;
}

// PRAGMA integrity_check of a SQLite file opened read-only ("ok" when healthy, else the problem).
std::string integrity_of(const std::string& db_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    const std::string msg = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return "cannot open: " + msg;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* st = nullptr;
  std::string result = "no answer";
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    const auto* t = sqlite3_column_text(st, 0);
    result = t != nullptr ? reinterpret_cast<const char*>(t) : "";
  } else {
    result = std::string("query failed: ") + sqlite3_errmsg(db);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return result;
}

class Rig {
 public:
  explicit Rig(const Options& o) : opt_(o) {
    root_ = testing::make_temp_dir("aw-kc-", o.data_parent).string();  // short: the bridge socket path must fit in sun_path
    for (const char* d : {"home", "config", "state", "data", "run"}) ::mkdir((root_ + "/" + d).c_str(), 0700);
    env_ = temp_home_env(root_);
    fs::create_directories(root_ + "/server");
    port_ = testing::closed_loopback_port();
    url_ = "http://127.0.0.1:" + std::to_string(port_);
  }
  ~Rig() {
    bridge_.kill_and_wait();
    server_.kill_and_wait();
    if (std::getenv("AGENTWORKS_BENCH_KEEP_DATA") == nullptr) fs::remove_all(root_);
  }

  bool server_up() { return server_.running(); }
  bool bridge_up() { return bridge_.running(); }
  void kill_server() { server_.kill_and_wait(); }
  void kill_bridge() { bridge_.kill_and_wait(); }
  std::string server_db() const { return root_ + "/server/server.db"; }
  std::string journal_db() const { return root_ + "/state/agentworks/journal.db"; }
  // Where the bridge listens: ~/.local/state/agentworks/run, whatever XDG_RUNTIME_DIR says (the TempHome layout).
  std::string socket() const { return root_ + "/home/.local/state/agentworks/run/bridge.sock"; }
  const std::string& root() const { return root_; }

  // The same port every run, so the CLI config and the bridge's attachment stay valid across restarts.
  void start_server() {
    const std::string out = root_ + "/server.out" + std::to_string(++server_runs_);
    // One conversation carries every send: lift its hourly rate and history limits out of the way.
    server_ = testing::Child::start({opt_.server_binary, "--listen", "127.0.0.1:" + std::to_string(port_), "--data",
                           root_ + "/server", "--rate-limit-per-hour", "100000000", "--inbox-history", "100000000"},
                                    env_, out, out);
    const auto deadline = Clock::now() + 30s;
    while (Clock::now() < deadline) {
      if (!server_.running()) break;
      std::ifstream in(out);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (text.find("listening on") != std::string::npos) return;
      std::this_thread::sleep_for(5ms);
    }
    throw std::runtime_error("the server did not start (" + out + ")");
  }
  void start_bridge() {
    const std::string out = root_ + "/bridge.out" + std::to_string(++bridge_runs_);
    // Every send goes to one session: lift the bridge's 2,000-message per-session journal quota (R-B9) too, or
    // messages past it stay on the server only and the count of offers would stop there.
    testing::EnvOverrides env = env_;
    env["AGENTWORKS_BRIDGE_MAX_MESSAGES_PER_SESSION"] = "100000000";
    bridge_ = testing::Child::start({opt_.bridge_binary, "--foreground"}, env, out, out);
    const auto deadline = Clock::now() + 30s;
    while (Clock::now() < deadline) {
      if (!bridge_.running()) break;
      std::string ignored;
      if (const auto c = testing::BridgeClient::open(socket(), &ignored)) {
        try {
          if (c->call({{"op", "ping"}}, 2s).value("pid", 0) == bridge_.pid()) return;
        } catch (const std::exception&) {
        }
      }
      std::this_thread::sleep_for(10ms);
    }
    throw std::runtime_error("the bridge did not start (" + out + ")");
  }
  // exit_code -1 when it ran past the timeout.
  testing::ProcessResult cli(const std::vector<std::string>& args,
                             const std::optional<std::string>& input = std::nullopt) {
    std::vector<std::string> argv = {opt_.cli_binary};
    argv.insert(argv.end(), args.begin(), args.end());
    testing::ProcessResult r = testing::run_process(argv, {env_, input, 20s, {}});
    if (r.timed_out) r.exit_code = -1;
    return r;
  }
  void setup() {
    std::ifstream in(root_ + "/server/owner.token");
    std::string token;
    std::getline(in, token);
    if (cli({"login", "--server", url_, "--token-stdin"}, token).exit_code != 0) throw std::runtime_error("login failed");
    for (const char* a : {"worker", "reviewer"})
      if (cli({"messages", "register", "--agent", a, "--json"}).exit_code != 0) throw std::runtime_error("register failed");
    std::string error;
    const auto c = testing::BridgeClient::open(socket(), &error, 30s);
    if (!c) throw std::runtime_error(error);
    const json a = c->call({{"op", "attach"}, {"provider", "claude"}, {"session_id", "kc"}, {"agent_name", "reviewer"},
                           {"purpose", "kill cycles"}});
    if (!a.value("ok", false)) throw std::runtime_error("attach failed: " + a.dump());
  }

 private:
  const Options& opt_;
  std::string root_, url_;
  testing::EnvOverrides env_;
  int port_ = 0;
  testing::Child server_, bridge_;
  int server_runs_ = 0, bridge_runs_ = 0;
};

// What the clients saw: accepted submissions and offered messages.
struct Ledger {
  std::map<std::string, std::string> accepted;  // submission id -> message id
  std::deque<std::string> unsure;               // sends without an answer: retried with the same id
  std::map<std::string, int> offered;           // message id -> times a take handed it out
  long next = 0, send_calls = 0, take_calls = 0, doubled_receipts = 0;
  std::map<std::string, long> refusals;  // error code -> count, for sends that got an answer that was not a receipt

  void send(Rig& rig) {
    std::string sid;
    if (!unsure.empty()) {
      sid = unsure.front();
      unsure.pop_front();
    } else {
      sid = "kc-" + std::to_string(next++);
    }
    ++send_calls;
    const testing::ProcessResult r = rig.cli({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message",
                                 "message " + sid, "--submission-id", sid, "--json"});
    const json j = json::parse(r.out, nullptr, false);
    if (r.exit_code == 0 && j.is_object() && j.contains("message_id")) {
      const std::string id = j["message_id"].get<std::string>();
      const auto [it, fresh] = accepted.emplace(sid, id);
      if (!fresh && it->second != id) ++doubled_receipts;  // the same submission got two messages
    } else {
      const std::string code = j.is_object() && j.contains("error") ? j["error"].value("code", "?") : "no answer";
      ++refusals[code];
      unsure.push_back(sid);
    }
  }
  void take(std::unique_ptr<testing::BridgeClient>& c, Rig& rig) {
    std::string ignored;
    if (!c && !(c = testing::BridgeClient::open(rig.socket(), &ignored, 30s))) return;
    ++take_calls;
    try {
      const json t = c->call({{"op", "take"}, {"provider", "claude"}, {"session_id", "kc"}}, 5s);
      for (const auto& m : t.value("messages", json::array())) ++offered[m.value("message_id", "")];
    } catch (const std::exception&) {
      c.reset();
    }
  }
};

int run(const Options& opt) {
  Rig rig(opt);
  Ledger ledger;
  std::mt19937 rng(opt.seed);
  rig.start_server();
  rig.start_bridge();
  rig.setup();
  const auto start = Clock::now();
  long cycles = 0, bridge_kills = 0, server_kills = 0, integrity_checks = 0, integrity_failures = 0;
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  for (; cycles < opt.cycles && elapsed() < opt.cycle_seconds; ++cycles) {
    if (!rig.server_up()) rig.start_server();
    if (!rig.bridge_up()) rig.start_bridge();
    std::atomic<bool> stop{false};
    std::thread worker([&, seed = rng()] {
      std::mt19937 local(seed);
      std::unique_ptr<testing::BridgeClient> c;
      while (!stop) {
        if (local() % 5 < 3) ledger.send(rig); else ledger.take(c, rig);
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 400));
    const auto victim = rng() % 3;  // 0 bridge, 1 server, 2 both
    if (victim != 1) {
      rig.kill_bridge();
      ++bridge_kills;
    }
    if (victim != 0) {
      rig.kill_server();
      ++server_kills;
    }
    stop = true;
    worker.join();
    for (const auto& [what, path] : {std::pair{victim != 1, rig.journal_db()}, std::pair{victim != 0, rig.server_db()}}) {
      if (!what || !fs::exists(path)) continue;
      ++integrity_checks;
      const std::string r = integrity_of(path);
      if (r != "ok") {
        ++integrity_failures;
        std::cerr << "cycle " << cycles << ": integrity_check of " << path << ": " << r << "\n";
      }
    }
    if (cycles % 50 == 0) {
      std::cout << "cycle " << cycles << " accepted=" << ledger.accepted.size() << " offered=" << ledger.offered.size()
                << " elapsed_s=" << static_cast<long>(elapsed()) << std::endl;
    }
  }

  // Settle: both up, every unanswered submission retried until accepted, every accepted message taken.
  if (!rig.server_up()) rig.start_server();
  if (!rig.bridge_up()) rig.start_bridge();
  const auto settle = Clock::now() + 120s;
  while (!ledger.unsure.empty() && Clock::now() < settle) ledger.send(rig);
  std::unique_ptr<testing::BridgeClient> c;
  std::set<std::string> offered_in_journal;
  while (Clock::now() < settle) {
    ledger.take(c, rig);
    offered_in_journal.clear();
    for (const auto& row : query(rig.journal_db(), "SELECT message_id FROM messages WHERE state = 'offered'"))
      offered_in_journal.insert(row[0]);
    bool all = true;
    for (const auto& [sid, id] : ledger.accepted) all = all && offered_in_journal.count(id) == 1;
    if (all) break;
    std::this_thread::sleep_for(50ms);
  }
  c.reset();
  rig.kill_bridge();
  rig.kill_server();
  const std::string journal_ok = integrity_of(rig.journal_db());
  const std::string server_ok = integrity_of(rig.server_db());

  // Server side: each accepted submission stored exactly once, under the message id its receipt named.
  std::map<std::string, int> stored_bodies;
  for (const auto& row : query(rig.server_db(), "SELECT body FROM messages")) ++stored_bodies[row[0]];
  std::map<std::string, std::string> submissions;
  for (const auto& row : query(rig.server_db(), "SELECT submission_id, message_id FROM submissions"))
    submissions[row[0]] = row[1];
  long lost_on_server = 0, doubled_on_server = 0, lost_by_bridge = 0, offered_twice = 0;
  for (const auto& [sid, id] : ledger.accepted) {
    const int n = stored_bodies.count("message " + sid) ? stored_bodies["message " + sid] : 0;
    if (n == 0 || submissions[sid] != id) ++lost_on_server;
    if (n > 1) ++doubled_on_server;
    if (offered_in_journal.count(id) == 0) ++lost_by_bridge;
  }
  for (const auto& [body, n] : stored_bodies) doubled_on_server += n > 1 ? 1 : 0;
  for (const auto& [id, n] : ledger.offered) offered_twice += n > 1 ? 1 : 0;

  std::cout << "kill_cycles: cycles=" << cycles << " seconds=" << static_cast<long>(elapsed())
            << " seed=" << opt.seed << "\n"
            << "  kills: bridge=" << bridge_kills << " server=" << server_kills << "\n"
            << "  sends: calls=" << ledger.send_calls << " accepted=" << ledger.accepted.size()
            << " unanswered_at_end=" << ledger.unsure.size() << " stored_on_server=" << stored_bodies.size() << "\n"
            << "  takes: calls=" << ledger.take_calls << " handed_out=" << ledger.offered.size()
            << " persisted_offered=" << offered_in_journal.size() << "\n"
            << "  integrity_check: after_kills=" << integrity_checks << " failed=" << integrity_failures
            << " journal_end=" << journal_ok << " server_end=" << server_ok << "\n"
            << "  lost_on_server=" << lost_on_server << " doubled_on_server=" << doubled_on_server
            << " doubled_receipts=" << ledger.doubled_receipts << " lost_by_bridge=" << lost_by_bridge
            << " offered_twice=" << offered_twice << "\n  refused sends (retried with their id):";
  for (const auto& [code, n] : ledger.refusals) std::cout << " " << code << "=" << n;
  std::cout << std::endl;
  if (cycles == 0 || ledger.accepted.empty() || ledger.offered.empty()) {
    std::cerr << "kill_cycles: measured nothing\n";
    return 2;
  }
  // Only crash-shaped refusals are expected; a rule refusal means the benchmark itself is set up wrong.
  long rule_refusals = 0;
  for (const auto& [code, n] : ledger.refusals)
    if (code != "no answer" && code != "unreachable" && code != "unavailable" && code != "internal") rule_refusals += n;
  const bool bad = rule_refusals || lost_on_server || doubled_on_server || ledger.doubled_receipts || lost_by_bridge || offered_twice ||
                   integrity_failures || !ledger.unsure.empty() || journal_ok != "ok" || server_ok != "ok";
  if (bad) std::cerr << "kill_cycles: FAILED (data: " << rig.root() << ")\n";
  return bad ? 1 : 0;
}

}  // namespace
}  // namespace agentworks::bench

int main(int argc, char** argv) {
  agentworks::bench::Options opt;
  opt.seed = std::random_device{}();
  CLI::App app{"agentworks-bench-kill-cycles: SIGKILL server and bridge at random moments; count losses and doubles"};
  app.add_option("--cycles", opt.cycles, "kill cycles")->check(CLI::Range(1L, 1000000L));
  app.add_option("--max-seconds", opt.cycle_seconds, "stop starting cycles after this long")->check(CLI::Range(1.0, 86400.0));
  app.add_option("--seed", opt.seed, "random seed (printed; rerun with it)");
  agentworks::bench::add_program_options(app, opt, agentworks::bench::kServer | agentworks::bench::kBridge |
                                                        agentworks::bench::kCli, "the temp HOME and the server data");
  CLI11_PARSE(app, argc, argv);
  agentworks::testing::set_children_die_with_parent(true);
  agentworks::bench::resolve_programs(opt, agentworks::bench::kServer | agentworks::bench::kBridge |
                                               agentworks::bench::kCli);
  try {
    return agentworks::bench::run(opt);
  } catch (const std::exception& e) {
    std::cerr << "kill_cycles: " << e.what() << "\n";
    return 1;
  }
}
