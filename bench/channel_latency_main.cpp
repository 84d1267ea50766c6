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
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "agentworks/process_ancestry.hpp"
#include "bench_run.hpp"
#include "bridge_process.hpp"
#include "bridge_socket_client.hpp"
#include "channel_mcp_child.hpp"
#include "http_client.hpp"
#include "latency_stats.hpp"
#include "server_process.hpp"

extern char** environ;

namespace bench = agentworks::bench;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr const char* kSession = "bench-channel-session";
constexpr const char* kAgent = "bench-channel";

struct Options {
  std::string server_binary;
  std::string bridge_binary;
  std::string cli_binary;
  std::string data_parent = "/tmp";
  std::size_t messages = 100;
  unsigned max_seconds = 300;
};


// The MCP child runs in the bridge's temp HOME (it finds the bridge socket under HOME).
std::vector<std::string> child_environment(const std::string& root) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.rfind("HOME=", 0) == 0 || kv.rfind("XDG_", 0) == 0 || kv.rfind("AGENTWORKS_", 0) == 0) continue;
    env.push_back(kv);
  }
  for (const auto& [k, d] : {std::pair{"HOME", "home"}, {"XDG_CONFIG_HOME", "config"}, {"XDG_STATE_HOME", "state"},
                             {"XDG_DATA_HOME", "data"}, {"XDG_RUNTIME_DIR", "run"}}) {
    env.push_back(std::string(k) + "=" + root + "/" + d);
  }
  return env;
}

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
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
  bench::ServerProcess server;
  std::string error;
  if (!server.start(opt.server_binary, {"--rate-limit-per-hour", "100000000"}, opt.data_parent, 30s, &error)) {
    std::fprintf(stderr, "server: %s\n", error.c_str());
    return 2;
  }
  bench::watch_process(server.pid());
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  bench::BridgeProcess bridge(opt.bridge_binary, opt.data_parent);
  if (!bridge.write_config(url, server.token(), &error) || !bridge.start(30s, &error)) {
    std::fprintf(stderr, "bridge: %s\n", error.c_str());
    return 2;
  }
  bench::watch_process(bridge.pid());
  bench::BridgeSocketClient c;
  if (!c.connect(bridge.socket_path(), &error)) {
    std::fprintf(stderr, "bridge socket: %s\n", error.c_str());
    return 2;
  }
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
  const bool connected = wait_until(
      [&] {
        const json s = c.call({{"op", "status"}});
        for (const auto& at : s.value("attachments", json::array())) {
          if (at.value("session_id", "") == kSession && at.value("stream", "") == "connected") return true;
        }
        return false;
      },
      30s);
  if (!connected) {
    std::fprintf(stderr, "the attachment's stream did not connect within 30 s\n");
    return 2;
  }

  bench::ChannelMcpChild child;
  if (!child.start(opt.cli_binary, child_environment(bridge.root()), &error) || !child.initialize(10s, &error)) {
    std::fprintf(stderr, "mcp child: %s\n", error.c_str());
    return 2;
  }

  bench::HttpClient http("127.0.0.1", server.port(), server.token());
  http.set_timeout(30s);
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> pause_ms(0, 250);
  std::vector<std::int64_t> samples;
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
  child.stop();
  bridge.stop();
  bridge.remove_home();
  server.stop();
  return lost == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-channel: send -> Claude channel notification latency (docs/benchmarks.md)"};
  app.add_option("--server", opt.server_binary, "agentworks-server binary (default: ../server/ next to this binary)");
  app.add_option("--bridge", opt.bridge_binary, "agentworks-bridge binary (default: ../daemon/ next to this binary)");
  app.add_option("--cli", opt.cli_binary, "agentworks CLI binary (default: ../cli/ next to this binary)");
  app.add_option("--data-parent", opt.data_parent, "where the server data and the bridge's temp HOME go");
  app.add_option("--messages", opt.messages, "messages to time, one at a time")->check(CLI::Range(1, 10000));
  app.add_option("--max-seconds", opt.max_seconds, "watchdog: the whole run is killed after this long")
      ->check(CLI::Range(10, 3600));
  CLI11_PARSE(app, argc, argv);
  if (opt.server_binary.empty()) opt.server_binary = bench::built_program("server", "agentworks-server");
  if (opt.bridge_binary.empty()) opt.bridge_binary = bench::built_program("daemon", "agentworks-bridge");
  if (opt.cli_binary.empty()) opt.cli_binary = bench::built_program("cli", "agentworks");
  bench::arm_watchdog("agentworks-bench-channel", opt.max_seconds);
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agentworks-bench-channel: %s\n", e.what());
    bench::kill_watched();
    return 2;
  }
}
