// The one table of doctor checks, in report order: the server and the login first (everything else talks to
// them), then the bridge, each provider's setup, the agent CLIs, the journal and the clock.
#include <array>

#include "doctor/doctor_check.hpp"

namespace agentworks::cli::doctor {
namespace {

constexpr std::array kChecks = {
    CheckEntry{"server", std::nullopt, check_server, "agentworks up"},
    CheckEntry{"login", std::nullopt, check_login, "agentworks up"},
    CheckEntry{"server.unit", std::nullopt, check_server_unit, "agentworks up"},
    CheckEntry{"bridge", std::nullopt, check_bridge, "agentworks daemon start"},
    CheckEntry{"hooks.claude", Provider::claude, check_claude_hooks, "agentworks attach claude"},
    CheckEntry{"claude.plugin", Provider::claude, check_claude_plugin, "agentworks attach claude"},
    CheckEntry{"hooks.codex", Provider::codex, check_codex_hooks, "agentworks attach codex"},
    CheckEntry{"codex.trust", Provider::codex, check_codex_trust, "codex, then /hooks: trust the agentworks hooks"},
    CheckEntry{"codex.mcp", Provider::codex, check_codex_mcp, "agentworks attach codex"},
    CheckEntry{"hooks.cursor", Provider::cursor, check_cursor_hooks, "agentworks attach cursor"},
    CheckEntry{"pi.extension", Provider::pi, check_pi_extension, "agentworks attach pi"},
    CheckEntry{"claude.cli", Provider::claude, check_claude_cli,
               "install Claude Code (npm install -g @anthropic-ai/claude-code)"},
    CheckEntry{"codex.cli", Provider::codex, check_codex_cli, "install Codex (npm install -g @openai/codex)"},
    CheckEntry{"pi.cli", Provider::pi, check_pi_cli, "install Pi (npm install -g @mariozechner/pi-coding-agent)"},
    CheckEntry{"delivery", std::nullopt, check_delivery, "agentworks native on"},
    CheckEntry{"journal.integrity", std::nullopt, check_journal_integrity, "agentworks daemon stop"},
    CheckEntry{"journal.quota", std::nullopt, check_journal_quota, "agentworks status --agents"},
    CheckEntry{"clock", std::nullopt, check_clock, "sudo timedatectl set-ntp true"},
};

}  // namespace

std::string_view status_name(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::warn: return "warn";
    case Status::fail: return "fail";
  }
  return "fail";
}

std::span<const CheckEntry> check_table() { return kChecks; }

}  // namespace agentworks::cli::doctor
