// The pure parts of `agentworks doctor` (cli/doctor/) and the native-route version rules it shares with the
// bridge (native_versions.hpp): what Codex's config.toml, hook commands and HTTP Date headers are read as.
#include <gtest/gtest.h>

#include "agentworks/native_versions.hpp"
#include "doctor/hook_files.hpp"
#include "doctor/http_probe.hpp"
#include "doctor/toml_scan.hpp"

namespace agentworks::cli::doctor {
namespace {

TEST(DoctorToml, ReadsCodexTrustTablesInlineTablesAndTheMcpServer) {
  const TomlValues t = scan_toml(
      "model = \"x\"  # a comment\n"
      "[projects.\"/home/a/proj\"]\ntrust_level = \"trusted\"\n"
      "[hooks.state.\"/home/a/proj/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:ab\"\n"
      "[hooks.state]\n\"k\" = { trusted_hash = 'sha256:cd', enabled = true }\n"
      "[[profiles]]\nname = \"ignored\"\n"
      "[mcp_servers.agentworks]\ncommand = \"/usr/bin/agentworks\"\nargs = [\"mcp\", \"serve\"]\n");
  ASSERT_NE(t.get({"projects", "/home/a/proj", "trust_level"}), nullptr);
  EXPECT_EQ(*t.get({"projects", "/home/a/proj", "trust_level"}), "trusted");
  EXPECT_EQ(*t.get({"hooks", "state", "/home/a/proj/.codex/hooks.json:stop:0:0", "trusted_hash"}), "sha256:ab");
  EXPECT_EQ(*t.get({"hooks", "state", "k", "trusted_hash"}), "sha256:cd");
  EXPECT_EQ(*t.get({"mcp_servers", "agentworks", "command"}), "/usr/bin/agentworks");
  EXPECT_NE(t.get({"mcp_servers", "agentworks", "args"})->find("serve"), std::string::npos);
  EXPECT_EQ(t.get({"name"}), nullptr);
  EXPECT_EQ(t.get({"projects", "/other", "trust_level"}), nullptr);
  EXPECT_TRUE(t.has_table({"mcp_servers", "agentworks"}));
}

TEST(DoctorHooks, TheProgramOfAHookCommandIsItsUnquotedFirstWord) {
  EXPECT_EQ(command_program("/opt/aw/agentworks-hook claude Stop"), "/opt/aw/agentworks-hook");
  EXPECT_EQ(command_program("'/my dir/agentworks-hook' codex Stop"), "/my dir/agentworks-hook");
  EXPECT_EQ(command_program("'/it'\\''s/agentworks-hook' cursor stop"), "/it's/agentworks-hook");
}

TEST(DoctorClock, ParsesImfFixdateOnly) {
  EXPECT_EQ(parse_http_date("Thu, 03 Dec 2026 07:40:00 GMT"), std::optional<std::time_t>(1796283600));
  EXPECT_EQ(parse_http_date("Thu, 03 Dec 2026 07:40:00 UTC"), std::nullopt);
  EXPECT_EQ(parse_http_date("03 Dec 2026"), std::nullopt);
  EXPECT_EQ(parse_http_date("Thu, 03 Foo 2026 07:40:00 GMT"), std::nullopt);
}

TEST(NativeVersions, PiSteerRange_RN3) {
  EXPECT_TRUE(native_versions::pi_steer_known("0.73.0"));
  EXPECT_TRUE(native_versions::pi_steer_known("0.73.1"));
  for (const auto* v : {"0.72.9", "0.74.0", "1.73.1", "0.73", "0.73.1-beta", "", "v0.73.1"}) {
    EXPECT_FALSE(native_versions::pi_steer_known(v)) << v;
  }
}

TEST(NativeVersions, ClaudeVersionLineAndRanges) {
  EXPECT_EQ(native_versions::parse_claude_version_line("2.1.332 (Claude Code)\n"), "2.1.332");
  EXPECT_EQ(native_versions::parse_claude_version_line("Claude Code\n"), std::nullopt);
  EXPECT_TRUE(native_versions::claude_inbox_known("2.1.332"));
  EXPECT_FALSE(native_versions::claude_inbox_known("2.2.0"));
  EXPECT_TRUE(native_versions::codex_queue_known("0.171.9"));
  EXPECT_FALSE(native_versions::codex_queue_known("0.172.0"));
}

}  // namespace
}  // namespace agentworks::cli::doctor
