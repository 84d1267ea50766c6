#include "native/codex_tui.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agentworks/providers.hpp"

namespace agentworks::bridge::native {

namespace {

namespace fs = std::filesystem;

// Codex subcommands that are not the TUI (`codex --help` of 0.171.0); `resume` and `fork` open the TUI.
constexpr std::array<std::string_view, 20> kNotTui = {
    "exec",  "e",     "review",   "login", "logout", "mcp",   "mcp-server", "app-server", "app",  "completion",
    "sandbox", "debug", "apply",  "a",     "cloud",  "queue", "features",   "help",       "agents", "--no-daemon"};

std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : text) {
    if (c == '\0') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::optional<std::string> slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

bool named_codex(const std::string& exe) {
  return fs::path(exe).filename() == provider_info(Provider::codex).executable;
}

std::string count_tuis(std::size_t n) { return std::to_string(n) + " Codex TUIs"; }

}  // namespace

bool runs_app_server(const CodexProcess& p) {
  return std::find(p.args.begin(), p.args.end(), "app-server") != p.args.end();
}

bool is_daemon_tui(const CodexProcess& p) {
  if (!named_codex(p.exe)) return false;
  for (const auto& a : p.args) {
    if (std::find(kNotTui.begin(), kNotTui.end(), a) != kNotTui.end()) return false;
    if (a == "--version" || a == "-V" || a == "--help" || a == "-h") return false;
  }
  return true;
}

TuiChoice choose_codex_tui(const CodexProcess& provider, const std::vector<CodexProcess>& running) {
  // `--no-daemon`: the TUI runs the hooks itself.
  // Only a Codex executable is probed and queued through: the bridge runs the provider's executable, and any
  // other program (a wrapper, a test runner) given `--version` could do anything.
  if (!named_codex(provider.exe)) {
    return {std::nullopt, "the process that runs this chat's hooks is " + fs::path(provider.exe).filename().string() +
                              ", not a Codex executable, so the bridge does not run it to queue messages"};
  }
  if (!runs_app_server(provider)) return {process::ProcessKey{provider.pid, provider.start}, {}};
  std::vector<const CodexProcess*> found;
  for (const auto& p : running) {
    if (p.pid != provider.pid && p.codex_home == provider.codex_home && is_daemon_tui(p)) found.push_back(&p);
  }
  if (found.size() == 1) return {process::ProcessKey{found[0]->pid, found[0]->start}, {}};
  const std::string home = provider.codex_home ? "CODEX_HOME " + *provider.codex_home : "the default CODEX_HOME";
  if (found.empty()) {
    return {std::nullopt, "no Codex TUI using " + home + " runs, so no one would see a queued message (Codex's "
                          "daemon runs queued messages even after its TUI quit)"};
  }
  return {std::nullopt, count_tuis(found.size()) + " share the Codex daemon of " + home +
                            ": the bridge cannot tell which one shows this chat, so it does not queue into it"};
}

std::optional<CodexProcess> read_codex_process(long pid) {
  const auto info = process::read_process(pid);
  if (!info) return std::nullopt;
  const fs::path dir = "/proc/" + std::to_string(pid);
  std::error_code ec;
  const auto exe = fs::read_symlink(dir / "exe", ec);
  if (ec) return std::nullopt;
  CodexProcess p;
  p.pid = pid;
  p.start = info->start;
  p.exe = exe.string();
  auto argv = split_nul(slurp(dir / "cmdline").value_or(""));
  if (!argv.empty()) argv.erase(argv.begin());
  p.args = std::move(argv);
  for (const auto& var : split_nul(slurp(dir / "environ").value_or(""))) {
    if (var.rfind("CODEX_HOME=", 0) == 0) p.codex_home = var.substr(11);
  }
  return p;
}

std::vector<CodexProcess> running_codex_processes() {
  std::vector<CodexProcess> out;
  const auto self = static_cast<long>(::getpid());
  std::error_code walk;
  for (fs::directory_iterator it("/proc", walk), end; !walk && it != end; it.increment(walk)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(name);
    if (pid == self) continue;
    std::error_code ec;
    const auto exe = fs::read_symlink(it->path() / "exe", ec);  // another user's process: EACCES, skipped
    if (ec || !named_codex(exe.string())) continue;
    if (auto p = read_codex_process(pid)) out.push_back(std::move(*p));
  }
  return out;
}

TuiChoice find_codex_tui(long provider_pid) {
  const auto provider = read_codex_process(provider_pid);
  if (!provider) return {std::nullopt, "the Codex process that runs this session's hooks has ended"};
  if (!runs_app_server(*provider)) return choose_codex_tui(*provider, {});
  return choose_codex_tui(*provider, running_codex_processes());
}

}  // namespace agentworks::bridge::native
