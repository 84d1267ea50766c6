// The agent CLIs: `claude --version` and `codex --version` (only when installed, with a short deadline), and which
// native route that version gets from the bridge (the version rules of native_versions.hpp). A CLI that is not
// installed is a warning: the person may use another provider.
#include <chrono>
#include <optional>

#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"
#include "agentworks/native_versions.hpp"
#include "agentworks/paths.hpp"
#include "doctor/doctor_check.hpp"
#include "doctor/doctor_state.hpp"
#include "install/run_program.hpp"

namespace agentworks::cli::doctor {
namespace fs = std::filesystem;
namespace {

constexpr std::chrono::seconds kVersionTimeout{5};

// Claude: $AGENTWORKS_CLAUDE_BIN (the one `agentworks attach claude` runs) when set; else the executable on PATH.
std::optional<fs::path> agent_binary(Provider provider) {
  if (provider == Provider::claude) {
    if (const char* given = env::get(env::Var::claude_bin); given != nullptr) return fs::absolute(given);
  }
  return install::find_on_path(std::string(provider_info(provider).executable));
}

struct Run {
  std::optional<install::ProgramResult> result;
  std::string problem;
};

Run run_quietly(const std::vector<std::string>& argv) {
  try {
    return {install::run_program(argv, fs::temp_directory_path(), kVersionTimeout), ""};
  } catch (const Error& e) {
    return {std::nullopt, e.what()};
  }
}

std::string first_line(const std::string& text) { return text.substr(0, std::min<std::size_t>(text.find('\n'), 200)); }

// The version's answer, or the failing Finding.
std::optional<Finding> version_problem(const Run& run, const std::string& program) {
  if (!run.result) return Finding{Status::fail, "cannot run " + program + " --version: " + run.problem, ""};
  if (run.result->timed_out) {
    return Finding{Status::fail, program + " --version did not answer within " +
                                     std::to_string(kVersionTimeout.count()) + " s", ""};
  }
  if (run.result->exit_code != 0) {
    return Finding{Status::fail, program + " --version exited " + std::to_string(run.result->exit_code) + ": " +
                                     first_line(run.result->output), ""};
  }
  return std::nullopt;
}

}  // namespace

bool provider_installed(Provider provider) {
  if (provider == Provider::cursor) {
    std::error_code ec;
    return fs::is_directory(paths::home_dir() / ".cursor", ec);
  }
  return agent_binary(provider).has_value();
}

std::vector<Finding> check_claude_cli(State& /*state*/) {
  const auto claude = agent_binary(Provider::claude);
  if (!claude) return one(Status::warn, "Claude Code is not installed (no `claude` on PATH)");
  const Run run = run_quietly({claude->string(), "--version"});
  if (auto problem = version_problem(run, claude->string())) return {*problem};
  const auto version = native_versions::parse_claude_version_line(run.result->output);
  if (!version) {
    return one(Status::warn, claude->string() + " --version answered \"" + first_line(run.result->output) +
                                 "\", not a version");
  }
  if (native_versions::claude_inbox_known(*version)) {
    return one(Status::ok, "Claude Code " + *version + " at " + claude->string() +
                               ": native route claude-inbox (checked versions " +
                               std::string(native_versions::kClaudeInboxRange) + ")");
  }
  return one(Status::warn, "Claude Code " + *version + " at " + claude->string() +
                               ": no native route (the session inbox was checked for " +
                               std::string(native_versions::kClaudeInboxRange) + "); the Stop hook delivers",
             "npm install -g @anthropic-ai/claude-code@2.1.332 (for native push), or keep the Stop hook route");
}

std::vector<Finding> check_codex_cli(State& /*state*/) {
  const auto codex = agent_binary(Provider::codex);
  if (!codex) return one(Status::warn, "Codex is not installed (no `codex` on PATH)");
  const Run run = run_quietly({codex->string(), "--version"});
  if (auto problem = version_problem(run, codex->string())) return {*problem};
  const auto version = native_versions::parse_codex_version_line(run.result->output);
  if (!version) {
    return one(Status::warn, codex->string() + " --version answered \"" + first_line(run.result->output) +
                                 "\", not `codex-cli X.Y.Z`: no native route");
  }
  const std::string where = "Codex " + *version + " at " + codex->string();
  if (!native_versions::codex_queue_known(*version)) {
    return one(Status::warn, where + ": no native route (codex queue was checked for " +
                                 std::string(native_versions::kCodexQueueRange) + "); the Stop hook delivers",
               "npm install -g @openai/codex@0.171.0 (for native push), or keep the Stop hook route");
  }
  const Run help = run_quietly({codex->string(), "queue", "--help"});
  const bool has_queue = help.result && help.result->exit_code == 0 &&
                         help.result->output.find("Usage: codex queue") != std::string::npos;
  if (!has_queue) {
    return one(Status::warn, where + ": `codex queue --help` does not show the queue command; no native route",
               "npm install -g @openai/codex@0.171.0");
  }
  return one(Status::ok, where + ": native route codex-queue (checked versions " +
                             std::string(native_versions::kCodexQueueRange) + ")");
}

std::vector<Finding> check_pi_cli(State& /*state*/) {
  const auto pi = agent_binary(Provider::pi);
  if (!pi) return one(Status::warn, "Pi is not installed (no `pi` on PATH)");
  const Run run = run_quietly({pi->string(), "--version"});
  if (auto problem = version_problem(run, pi->string())) return {*problem};
  std::string version = first_line(run.result->output);
  while (!version.empty() && (version.back() == '\r' || version.back() == ' ')) version.pop_back();
  const std::string where = "Pi " + version + " at " + pi->string();
  if (!native_versions::pi_steer_known(version)) {
    return one(Status::warn, where + ": no native route (the agentworks extension was checked with " +
                                 std::string(native_versions::kPiSteerRange) + "); messages arrive at the end of each turn",
               "npm install -g @mariozechner/pi-coding-agent@0.73 (for native steer), or keep the end-of-turn delivery");
  }
  return one(Status::ok, where + ": native route pi-steer through the agentworks extension (checked versions " +
                             std::string(native_versions::kPiSteerRange) + ")");
}

}  // namespace agentworks::cli::doctor
