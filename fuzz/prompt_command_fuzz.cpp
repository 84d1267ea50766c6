// The person's typed `/agentworks ...` command inside a submitted prompt. Invariants: no crash; only a prompt
// whose trimmed text starts with the command word is ever a command or a usage error; Codex's slash-less form
// is strict (a command or nothing, never a usage block, so ordinary prose reaches the model); a command's
// fields never hold a line break; split_words inverts quoting (quoted words split back to themselves).
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "prompt_command.hpp"

namespace {

using namespace agentworks::hook;

bool no_line_break(const std::optional<std::string>& s) {
  return !s || s->find_first_of("\r\n") == std::string::npos;
}

std::string quote(const std::string& word) {
  std::string out = "\"";
  for (const char c : word) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view prompt(reinterpret_cast<const char*>(data), size);
  const bool mentions = prompt.find("agentworks") != std::string_view::npos;
  for (const Provider p : {Provider::claude, Provider::codex, Provider::cursor, Provider::pi}) {
    const PromptParse parsed = parse_prompt(prompt, p);
    if (!mentions) FUZZ_CHECK(std::holds_alternative<NotACommand>(parsed), "no command word, no command");
    if (const auto* cmd = std::get_if<PromptCommand>(&parsed)) {
      FUZZ_CHECK(no_line_break(cmd->name) && no_line_break(cmd->purpose) && no_line_break(cmd->native_remote),
                 "a command is one line");
      (void)verb_name(cmd->verb);
    }
    if (std::holds_alternative<PromptUsage>(parsed)) {
      const auto first = prompt.find_first_not_of(" \t\r\n\f\v");
      FUZZ_CHECK(first != std::string_view::npos &&
                     (prompt[first] == '/' || (p == Provider::codex && prompt.substr(first, 10) == "agentworks")),
                 "only the command forms show usage");
      FUZZ_CHECK(!usage_text(p, std::get<PromptUsage>(parsed).problem).empty(), "usage text");
    }
  }
  if (const auto words = split_words(prompt)) {
    std::string joined;
    for (const auto& w : *words) joined += quote(w) + " ";
    const auto again = split_words(joined);
    FUZZ_CHECK(again && *again == *words, "quoted words split back to themselves");
  }
  return 0;
}
