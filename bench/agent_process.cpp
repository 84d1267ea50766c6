#include "agent_process.hpp"

#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

extern char** environ;

namespace agentworks::bench {
namespace {

// NUL-separated /proc file as strings.
std::vector<std::string> read_nul_list(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> out;
  std::string item;
  while (std::getline(in, item, '\0')) out.push_back(item);
  return out;
}

pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  char state = 0;
  long ppid = 0;
  std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid);
  return static_cast<pid_t>(ppid);
}

}  // namespace

std::optional<CapturedRun> capture_cli_process(const std::string& env_entry, const std::string& cli) {
  std::map<pid_t, CapturedRun> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    auto environment = read_nul_list(entry.path() / "environ");
    if (std::find(environment.begin(), environment.end(), env_entry) == environment.end()) continue;
    auto argv = read_nul_list(entry.path() / "cmdline");
    const bool is_cli = std::any_of(argv.begin(), argv.begin() + std::min<std::ptrdiff_t>(2, std::ssize(argv)),
                                    [&](const std::string& a) {
                                      const std::string base = std::filesystem::path(a).filename().string();
                                      return base.rfind(cli, 0) == 0;
                                    });
    if (!is_cli) continue;
    std::error_code ec;
    const auto cwd = std::filesystem::read_symlink(entry.path() / "cwd", ec);
    // `node` (Codex's codex.js runs under /usr/bin/env node) becomes the program itself.
    const auto exe = std::filesystem::read_symlink(entry.path() / "exe", ec);
    if (!ec && !argv.empty() && argv[0].find('/') == std::string::npos) argv[0] = exe.string();
    const auto pid = static_cast<pid_t>(std::stol(name));
    found[pid] = CapturedRun{std::move(argv), std::move(environment), cwd, pid};
  }
  for (const auto& [pid, run] : found) {
    if (!found.count(parent_of(pid))) return run;
  }
  return std::nullopt;
}

std::int64_t boottime_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::optional<std::int64_t> process_start_ns(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));  // from field 3 (state) on
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return static_cast<std::int64_t>(std::stoll(field) * (1'000'000'000 / ::sysconf(_SC_CLK_TCK)));
  }
  return std::nullopt;
}

std::string fresh_uuid() {
  static std::mt19937_64 rng{std::random_device{}()};
  const std::uint64_t a = rng(), b = rng();
  char out[37];
  std::snprintf(out, sizeof out, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return out;
}

testing::EnvOverrides exact_env(const std::vector<std::string>& environment) {
  testing::EnvOverrides env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    env[kv.substr(0, kv.find('='))] = std::nullopt;
  }
  for (const auto& kv : environment) {
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::vector<std::int64_t> paired(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) out.push_back(a[i] - b[i]);
  return out;
}

std::optional<std::string> parse_agent_bench_args(int argc, char** argv, const std::string& default_cli, int& runs,
                                                  std::vector<char*>& rest) {
  std::string cli = default_cli;
  rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--cli" && i + 1 < argc) {
      cli = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (runs < 1 || (cli != "both" && cli != "claude" && cli != "codex")) {
    std::fprintf(stderr, "usage: %s [--runs N>=1] [--cli claude|codex|both]\n", argv[0]);
    return std::nullopt;
  }
  return cli;
}

int run_agent_bench(int argc, char** argv, const std::string& default_cli, int& runs, const std::string& suite) {
  std::vector<char*> rest;
  const auto cli = parse_agent_bench_args(argc, argv, default_cli, runs, rest);
  if (!cli) return 2;
  ::setenv("AGENTWORKS_E2E_REQUIRED", "1", 1);  // a missing CLI is a failure here, not a skip
  int rest_argc = static_cast<int>(rest.size());
  ::testing::InitGoogleTest(&rest_argc, rest.data());
  if (*cli != "both") ::testing::GTEST_FLAG(filter) = (*cli == "claude" ? "Claude" : "Codex") + suite + ".*";
  return RUN_ALL_TESTS();
}

}  // namespace agentworks::bench
