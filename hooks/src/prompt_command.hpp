// The person's typed `/agentworks ...` commands, recognised in a submitted prompt (R-H4, R-H5, R-H6). Pure: no
// I/O, unit-tested. Only a prompt that IS the command (after trimming whitespace) counts, so attach text inside
// a delivered agent message (a Cursor followup or a Codex <hook_prompt> continuation) is never a command.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "provider.hpp"

namespace agentworks::hook {

enum class Verb { attach, status, detach, resume, cleanup };

struct PromptCommand {
  Verb verb = Verb::status;
  std::optional<std::string> name;     // attach NAME
  std::optional<std::string> purpose;  // attach NAME "PURPOSE"
  bool confirm = false;                // attach --confirm
  bool take = false;                   // attach NAME --take: move a name another connected chat holds
  bool no_native = false;              // attach --no-native: no native push for this attachment
  std::optional<std::string> native_remote;  // attach --native-remote unix:///ABS (Codex app-server)
  bool operator==(const PromptCommand&) const = default;
};

// The prompt starts with the command word but the rest is wrong: blocked with the usage text.
struct PromptUsage {
  std::string problem;  // one sentence, e.g. "unknown command `foo`"
  bool operator==(const PromptUsage&) const = default;
};

struct NotACommand {
  bool operator==(const NotACommand&) const = default;
};

using PromptParse = std::variant<NotACommand, PromptCommand, PromptUsage>;

// Accepted: `/agentworks VERB ARGS` and `/agentworks:agentworks VERB ARGS` for every provider; for Codex also
// `agentworks VERB ARGS` without the slash (its TUI rejects unknown slash commands) when VERB is one of the five
// and a whole word: then it is the person's command, valid or not (a bad one is answered with the usage). Any
// other prompt is ordinary and goes to the model untouched. A purpose must be quoted: `attach my agent` is
// refused with the quoted form to type.
PromptParse parse_prompt(std::string_view prompt, Provider provider);

// Shell-like words: whitespace separates; "double quotes" (with \" and \\ escapes) and 'single quotes' group.
// nullopt when a quote is left open.
std::optional<std::vector<std::string>> split_words(std::string_view text);

std::string_view verb_name(Verb verb);

// The text shown to the person for a bad command: the problem, then the commands in the provider's form.
std::string usage_text(Provider provider, std::string_view problem);

}  // namespace agentworks::hook
