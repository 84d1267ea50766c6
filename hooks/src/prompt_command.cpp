#include "prompt_command.hpp"

#include <array>

namespace agentworks::hook {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

struct VerbName {
  std::string_view name;
  Verb verb;
};
constexpr std::array<VerbName, 5> kVerbs = {{{"attach", Verb::attach},
                                             {"status", Verb::status},
                                             {"detach", Verb::detach},
                                             {"resume", Verb::resume},
                                             {"cleanup", Verb::cleanup}}};

std::optional<Verb> find_verb(std::string_view word) {
  for (const auto& v : kVerbs) {
    if (v.name == word) return v.verb;
  }
  return std::nullopt;
}

// After the command word: the rest when the word ends there (end of text or whitespace), else nullopt
// ("/agentworksfoo" is not our command).
std::optional<std::string_view> after_word(std::string_view text, std::string_view word) {
  if (text.substr(0, word.size()) != word) return std::nullopt;
  const auto rest = text.substr(word.size());
  if (!rest.empty() && !is_space(rest.front())) return std::nullopt;
  return rest;
}

// The verb and its arguments, already split into words (words[0] is the verb).
PromptParse parse_words(const std::vector<std::string>& words) {
  if (words.empty()) return PromptUsage{"say what to do"};
  const auto verb = find_verb(words[0]);
  if (!verb) return PromptUsage{"unknown command `" + words[0] + "`"};
  PromptCommand cmd;
  cmd.verb = *verb;
  const std::size_t args = words.size() - 1;
  if (*verb != Verb::attach) {
    if (args != 0) return PromptUsage{"`" + words[0] + "` takes no arguments"};
    return cmd;
  }
  // Options may come anywhere after the verb; at most NAME and "PURPOSE" remain.
  std::vector<std::string> positional;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto& w = words[i];
    if (w == "--confirm") {
      cmd.confirm = true;
    } else if (w == "--take") {
      cmd.take = true;
    } else if (w == "--no-native") {
      cmd.no_native = true;
    } else if (w == "--native-remote") {
      if (i + 1 >= words.size()) return PromptUsage{"`--native-remote` needs unix:///ABSOLUTE/SOCKET"};
      cmd.native_remote = words[++i];
    } else if (!w.empty() && w[0] == '-') {
      return PromptUsage{"unknown option `" + w + "`"};
    } else {
      positional.push_back(w);
    }
  }
  // Not an alias of --take: `attach --confirm now` would otherwise take the name "now" from a live chat.
  if (cmd.confirm && !positional.empty()) return PromptUsage{"`attach --confirm` takes no name or purpose"};
  if (cmd.take && positional.empty()) return PromptUsage{"`--take` needs the name: attach NAME --take"};
  if (positional.empty()) return cmd;  // propose a name and purpose (or confirm the proposal)
  if (positional[0].empty()) return PromptUsage{"the name is empty"};
  if (positional.size() > 2) return PromptUsage{"put the purpose in quotes: attach NAME \"PURPOSE\""};
  cmd.name = positional[0];
  if (positional.size() == 2) cmd.purpose = positional[1];
  return cmd;
}

}  // namespace

std::optional<std::vector<std::string>> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_space(c)) {
      if (in_word) words.push_back(std::move(current));
      current.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const auto close = text.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      current.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) ++j;
        current.push_back(text[j]);
      }
      if (j >= text.size()) return std::nullopt;
      i = j;
    } else {
      current.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(current));
  return words;
}

PromptParse parse_prompt(std::string_view prompt, Provider provider) {
  const std::string_view text = trim(prompt);
  std::optional<std::string_view> rest;
  bool strict = false;
  for (const std::string_view word : {std::string_view("/agentworks:agentworks"), std::string_view("/agentworks")}) {
    if ((rest = after_word(text, word))) break;
  }
  if (!rest && provider == Provider::codex) {
    // ^agentworks (attach|status|detach|resume|cleanup)\b, and then the whole command must parse.
    const auto tail = after_word(text, "agentworks");
    if (!tail || tail->empty()) return NotACommand{};
    const std::string_view after = trim(*tail);
    std::size_t n = 0;
    while (n < after.size() && is_word_char(after[n])) ++n;
    if (!find_verb(after.substr(0, n))) return NotACommand{};
    if (tail->find_first_of("\n\r") != std::string_view::npos) return NotACommand{};
    rest = tail;
    strict = true;
  }
  if (!rest) return NotACommand{};
  if (rest->find_first_of("\n\r") != std::string_view::npos) {
    return PromptUsage{"type the command alone on one line"};
  }
  const auto words = split_words(*rest);
  PromptParse parsed = words ? parse_words(*words) : PromptParse(PromptUsage{"a quote is not closed"});
  if (strict && !std::holds_alternative<PromptCommand>(parsed)) return NotACommand{};
  return parsed;
}

std::string_view verb_name(Verb verb) {
  for (const auto& v : kVerbs) {
    if (v.verb == verb) return v.name;
  }
  return "status";
}

std::string usage_text(Provider provider, std::string_view problem) {
  // Codex's TUI rejects unknown slash commands, so its people type the command without the slash.
  const std::string c = provider == Provider::codex ? "agentworks" : "/agentworks";
  std::string text = "agentworks: ";
  text.append(problem);
  text += ". Commands (typed by you; the model never sees them):\n";
  text += "  " + c + " attach                    propose a name and purpose for this chat\n";
  text += "  " + c + " attach --confirm          attach under the proposal\n";
  text += "  " + c + " attach NAME \"PURPOSE\"     attach under NAME\n";
  text += "  " + c + " attach NAME --take        take NAME from the connected chat that holds it\n";
  text += "      options: --no-native (deliver at the end of turns only)";
  if (provider == Provider::codex) text += ", --native-remote unix:///ABSOLUTE/SOCKET";
  text += "\n";
  text += "  " + c + " status                    this chat's attachment and waiting messages\n";
  text += "  " + c + " detach                    end this chat's attachment\n";
  text += "  " + c + " resume                    reconnect this chat's offline attachment\n";
  text += "  " + c + " cleanup                   remove old local delivery records";
  return text;
}

}  // namespace agentworks::hook
