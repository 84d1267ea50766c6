// agentworks-bench-channel: latency of the Claude channel (docs/benchmarks.md): a message sent to an agent over
// the server's HTTP API (POST /v1/messages) until the `notifications/claude/channel` line for it comes out of a
// real `agentworks mcp serve --claude-channel` child, through a real agentworks-server and agentworks-bridge.
// The benchmark process plays Claude Code: it is the MCP child's parent, and the attachment is resumed with its
// process key, so the child's `channel_take` resolves to it. Messages are sent one at a time, each after a random
// pause (0-250 ms) so that sends do not phase-lock with the child's 200 ms poll.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "agentworks/process_ancestry.hpp"
#include "bench_rig.hpp"
#include "bench_run.hpp"
#include "http_client.hpp"
#include "latency_stats.hpp"
#include "testing/bridge_client.hpp"
#include "testing/piped_process.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "bench_options.hpp"

namespace bench = agentworks::bench;
namespace testing = agentworks::testing;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr const char* kSession = "bench-channel-session";
constexpr const char* kAgent = "bench-channel";

struct Options : bench::ProgramOptions {
  Options() { max_seconds = 300; }
  std::size_t messages = 100;
};


// Claude Code's start of an MCP session: initialize, its answer (which must declare the claude/channel
// capability), then notifications/initialized, which starts the channel.
bool initialize_channel(testing::PipedProcess& child, std::chrono::milliseconds timeout, std::string* error) {
  const json init = {{"jsonrpc", "2.0"},
                     {"id", 1},
                     {"method", "initialize"},
                     {"params",
                      {{"protocolVersion", "2025-06-18"},
                       {"capabilities", json::object()},
                       {"clientInfo", {{"name", "agentworks-bench-channel"}, {"version", "1"}}}}}};
  if (!child.write_line(init.dump())) {
    *error = "cannot write initialize to the MCP child";
    return false;
  }
  const auto deadline = Clock::now() + timeout;
  while (true) {
    const auto line = child.read_line(deadline);
    if (!line) {
      *error = "no initialize answer from the MCP child";
      return false;
    }
    const auto answer = json::parse(*line, nullptr, false);
    if (answer.is_object() && answer.value("id", 0) == 1) {
      if (!answer.contains("result") || !answer["result"].contains("capabilities") ||
          !answer["result"]["capabilities"].contains("experimental")) {
        *error = "the MCP child does not declare the claude/channel capability: " + *line;
        return false;
      }
      break;
    }
  }
  return child.write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}

// The content of a channel notification line, or "" for any other line.
std::string channel_content(const std::string& line) {
  const json j = json::parse(line, nullptr, false);
  if (!j.is_object() || j.value("method", "") != "notifications/claude/channel") return {};
  if (!j.contains("params") || !j["params"].is_object()) return {};
  return j["params"].value("content", "");
}

int run(const Options& opt) {
  std::printf("agentworks-bench-channel: %zu messages, send -> notifications/claude/channel\n", opt.messages);
  std::string error;
  bench::BenchServer server(opt.server_binary, {"--rate-limit-per-hour", "100000000"}, opt.data_parent, 30s);
  const std::string& token = server.token();
  const std::uint16_t port = server.port();
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  bench::BenchBridge bridge(opt.bridge_binary, opt.data_parent, url, token, 30s);
  std::unique_ptr<agentworks::testing::BridgeClient> client =
      agentworks::testing::BridgeClient::open(bridge.socket_path(), &error, 30s);
  if (!client) {
    std::fprintf(stderr, "bridge socket: %s\n", error.c_str());
    return 2;
  }
  auto& c = *client;
  const json a = c.call({{"op", "attach"}, {"provider", "claude"}, {"session_id", kSession}, {"agent_name", kAgent},
                         {"purpose", "channel latency benchmark"}, {"config", bridge.config_path()}});
  if (!a.value("ok", false)) {
    std::fprintf(stderr, "attach failed: %s\n", a.dump().c_str());
    return 2;
  }
  // This process is the "provider" the MCP child runs under: store the attachment with its key.
  const auto me = agentworks::process::key_of(static_cast<long>(::getpid()));
  if (!me) {
    std::fprintf(stderr, "cannot read this process's /proc entry\n");
    return 2;
  }
  const json r = c.call({{"op", "resume"}, {"provider", "claude"}, {"session_id", kSession},
                         {"process", {{"pid", me->pid}, {"start", me->start}}}});
  if (!r.value("ok", false)) {
    std::fprintf(stderr, "resume failed: %s\n", r.dump().c_str());
    return 2;
  }
  const bool connected = testing::wait_until(
      [&] {
        const json s = c.call({{"op", "status"}});
        for (const auto& at : s.value("attachments", json::array())) {
          if (at.value("session_id", "") == kSession && at.value("stream", "") == "connected") return true;
        }
        return false;
      },
      30s, 20ms);
  if (!connected) {
    std::fprintf(stderr, "the attachment's stream did not connect within 30 s\n");
    return 2;
  }

  // The benchmark is the child's provider ancestor (its first non-shell parent), so the bridge resolves the child
  // by the benchmark's own process key.
  testing::PipedProcess child({opt.cli_binary, "mcp", "serve", "--provider", "claude", "--claude-channel"},
                              bench::temp_home_env(bridge.root()), {}, {});
  bench::watch_process(child.pid());
  if (!initialize_channel(child, 10s, &error)) {
    std::fprintf(stderr, "mcp child: %s\n", error.c_str());
    return 2;
  }

  bench::HttpClient http("127.0.0.1", port, token);
  http.set_timeout(30s);
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> pause_ms(0, 250);
  std::vector<std::int64_t> samples;
  std::vector<std::int64_t> send_floor;  // the send's own round trip: the server's accept and commit
  std::size_t lost = 0;
  for (std::size_t i = 0; i < opt.messages; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    const std::string text = "channel latency " + std::to_string(i);
    const auto t0 = Clock::now();
    const auto sent = http.request("POST", "/v1/messages",
                                   json{{"target", std::string("agent:") + kAgent}, {"message", text}}.dump());
    if (sent.status < 200 || sent.status >= 300) {
      std::fprintf(stderr, "send %zu failed: HTTP %d %s %s\n", i, sent.status, sent.body.c_str(), sent.error.c_str());
      return 2;
    }
    send_floor.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    bool got = false;
    const auto deadline = t0 + 10s;
    while (!got) {
      const auto line = child.read_line(deadline);
      if (!line) break;
      got = channel_content(*line) == text;
    }
    if (!got) {
      ++lost;
      continue;
    }
    samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
  }
  const auto s = bench::summarize(samples);
  std::printf("send -> channel notification: %zu received, %zu not within 10 s; p50 %.1f ms, p99 %.1f ms, "
              "max %.1f ms (target p50 < 25 ms)\n",
              s.count, lost, s.p50_ms, s.p99_ms, s.max_ms);
  const auto f = bench::summarize(send_floor);
  std::printf("floor, the send's own round trip (POST /v1/messages answered): p50 %.1f ms, p99 %.1f ms; "
              "ratio p50 %.2f, p99 %.2f\n",
              f.p50_ms, f.p99_ms, f.p50_ms > 0 ? s.p50_ms / f.p50_ms : 0.0, f.p99_ms > 0 ? s.p99_ms / f.p99_ms : 0.0);
  // Closing stdin ends it; the destructor SIGKILLs it when it has not exited within 5 s.
  child.close_stdin();
  child.wait_exit(5s);
  bench::unwatch_process(child.pid());
  bridge.stop();
  server.stop();
  return lost == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-channel: send -> Claude channel notification latency (docs/benchmarks.md)"};
  bench::add_program_options(app, opt, bench::kServer | bench::kBridge | bench::kCli,
                             "the server data and the bridge's temp HOME");
  app.add_option("--messages", opt.messages, "messages to time, one at a time")->check(CLI::Range(1, 10000));
  bench::add_watchdog_option(app, opt);
  CLI11_PARSE(app, argc, argv);
  bench::resolve_programs(opt, bench::kServer | bench::kBridge | bench::kCli);
  return bench::run_with_watchdog("agentworks-bench-channel", opt.max_seconds, [&] { return run(opt); });
}
