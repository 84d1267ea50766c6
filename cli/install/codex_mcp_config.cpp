#include "install/codex_mcp_config.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <system_error>

#include "agentworks/error.hpp"
#include "install/file_io.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

constexpr const char* kBegin = "# BEGIN agentworks (written by `agentworks attach codex`; removed by --uninstall)";
constexpr const char* kEnd = "# END agentworks";

// A TOML basic string.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

struct Span {
  std::size_t begin = std::string::npos;  // first byte of the BEGIN line
  std::size_t end = std::string::npos;    // one past the END line's newline
};

// Where the managed block is (begin == npos: none). A BEGIN without END is treated as no block.
Span find_block(const std::string& toml) {
  Span span;
  const std::size_t b = toml.find(kBegin);
  if (b == std::string::npos || (b != 0 && toml[b - 1] != '\n')) return span;
  std::size_t e = toml.find(std::string("\n") + kEnd, b);
  if (e == std::string::npos) return span;
  e = toml.find('\n', e + 1);
  span.begin = b;
  span.end = e == std::string::npos ? toml.size() : e + 1;
  return span;
}

// True when `text` (outside our block) defines the agentworks MCP server itself: a [mcp_servers.agentworks…]
// table header or a dotted key mcp_servers.agentworks… .
bool defines_agentworks_server(const std::string& text) {
  static const std::regex table(R"(^\s*\[\s*mcp_servers\s*\.\s*("agentworks"|'agentworks'|agentworks)\s*[.\]])");
  static const std::regex dotted(R"(^\s*mcp_servers\s*\.\s*("agentworks"|'agentworks'|agentworks)\s*[.=])");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, table) || std::regex_search(line, dotted)) return true;
  }
  return false;
}

}  // namespace

std::string codex_mcp_block(const std::string& cli_path, bool allow_tools) {
  std::string b = std::string(kBegin) + "\n[mcp_servers.agentworks]\ncommand = " + toml_string(cli_path) +
                  "\nargs = [\"mcp\", \"serve\", \"--provider\", \"codex\"]\n";
  if (allow_tools) {
    b += "# `--allow-tools`: the messaging and function tools run without asking the person each time (the function\n"
         "# tools still need the person's grant: agentworks agents grant NAME --functions CREW).\n";
    for (const char* tool : kPluginTools)
      b += std::string("[mcp_servers.agentworks.tools.") + tool + "]\napproval_mode = \"approve\"\n";
  }
  return b + kEnd + "\n";
}

std::string with_codex_mcp_block(const std::string& toml, const std::string& block) {
  const Span span = find_block(toml);
  const std::string before = span.begin == std::string::npos ? toml : toml.substr(0, span.begin);
  const std::string after = span.begin == std::string::npos ? "" : toml.substr(span.end);
  if (defines_agentworks_server(before) || defines_agentworks_server(after)) {
    throw Error(ErrorCode::conflict,
                "this config.toml already defines the agentworks MCP server ([mcp_servers.agentworks]) outside the "
                "block agentworks manages; remove that table (agentworks writes its own) and run `agentworks attach "
                "codex` again (nothing was changed)");
  }
  if (span.begin != std::string::npos) return before + block + after;
  std::string out = toml;
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (!out.empty()) out += '\n';
  return out + block;
}

std::string without_codex_mcp_block(const std::string& toml) {
  const Span span = find_block(toml);
  if (span.begin == std::string::npos) return toml;
  std::string before = toml.substr(0, span.begin);
  const std::string after = toml.substr(span.end);
  // The blank line the install put before the block goes with it.
  if (after.empty() && before.size() >= 2 && before.compare(before.size() - 2, 2, "\n\n") == 0) before.pop_back();
  std::string out = before + after;
  if (out.find_first_not_of(" \t\r\n") == std::string::npos) out.clear();
  return out;
}

json merge_codex_mcp_config(const fs::path& config, const std::string& cli_path, bool allow_tools) {
  const std::string old = read_text_file(config);
  const std::string next = with_codex_mcp_block(old, codex_mcp_block(cli_path, allow_tools));
  return {{"path", config.string()}, {"changed", write_file_atomic(config, next)}};
}

json remove_codex_mcp_config(const fs::path& config) {
  std::error_code ec;
  if (!fs::exists(config, ec)) return {{"path", config.string()}, {"changed", false}, {"removed_file", false}};
  const std::string old = read_text_file(config);
  const std::string next = without_codex_mcp_block(old);
  if (next == old) return {{"path", config.string()}, {"changed", false}, {"removed_file", false}};
  if (next.empty()) {
    fs::remove(config, ec);
    if (ec) throw Error(ErrorCode::internal, "cannot remove " + config.string() + ": " + ec.message());
    return {{"path", config.string()}, {"changed", true}, {"removed_file", true}};
  }
  write_file_atomic(config, next);
  return {{"path", config.string()}, {"changed", true}, {"removed_file", false}};
}

}  // namespace agentworks::cli::install
