#include "prompt_command.hpp"

#include <array>

#include "agentworks/validation.hpp"

namespace agentworks::hook {
namespace {

// A word and whether any of it was in quotes: a purpose must be quoted, so that `attach my agent` (a name with a
// space) is never taken as the name `my` with the purpose `agent`.
struct Word {
  std::string text;
  bool quoted = false;
};

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

// The command word as the person types it in this provider (Codex's TUI rejects unknown slash commands).
std::string command_word(Provider provider) { return std::string(provider_info(provider).command_word); }

// The attach command to type instead: NAME then the purpose words, quoted (what was typed, made safe to show).
std::string quoted_form(Provider provider, const std::vector<Word>& positional) {
  std::string purpose;
  for (std::size_t i = 1; i < positional.size(); ++i) {
    if (i > 1) purpose += ' ';
    for (const char c : positional[i].text) {
      if (c == '"' || c == '\\') purpose += '\\';
      purpose += c;
    }
  }
  return command_word(provider) + " attach " + echo_typed(positional[0].text) + " \"" + echo_typed(purpose, 200) +
         "\"";
}

// The verb and its arguments, already split into words (words[0] is the verb).
PromptParse parse_words(const std::vector<Word>& words, Provider provider) {
  if (words.empty()) return PromptUsage{"say what to do"};
  const std::string& verb_word = words[0].text;
  const auto verb = find_verb(verb_word);
  if (!verb) return PromptUsage{"unknown command `" + echo_typed(verb_word) + "`"};
  PromptCommand cmd;
  cmd.verb = *verb;
  const std::size_t args = words.size() - 1;
  if (*verb != Verb::attach) {
    if (args != 0) return PromptUsage{"`" + verb_word + "` takes no arguments"};
    return cmd;
  }
  // Options may come anywhere after the verb; at most NAME and "PURPOSE" remain.
  std::vector<Word> positional;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto& w = words[i].text;
    if (w == "--confirm") {
      cmd.confirm = true;
    } else if (w == "--take") {
      cmd.take = true;
    } else if (w == "--no-native") {
      cmd.no_native = true;
    } else if (w == "--native-remote") {
      if (i + 1 >= words.size()) return PromptUsage{"`--native-remote` needs unix:///ABSOLUTE/SOCKET"};
      cmd.native_remote = words[++i].text;
    } else if (!w.empty() && w[0] == '-') {
      return PromptUsage{"unknown option `" + echo_typed(w) + "`"};
    } else {
      positional.push_back(words[i]);
    }
  }
  // Not an alias of --take: `attach --confirm now` would otherwise take the name "now" from a live chat.
  if (cmd.confirm && !positional.empty()) return PromptUsage{"`attach --confirm` takes no name or purpose"};
  if (cmd.take && positional.empty()) return PromptUsage{"`--take` needs the name: attach NAME --take"};
  if (positional.empty()) return cmd;  // propose a name and purpose (or confirm the proposal)
  if (positional[0].text.empty()) return PromptUsage{"the name is empty"};
  // A name is one word; a purpose is in quotes. Unquoted words after the name are refused, never guessed at.
  if (positional.size() > 2 || (positional.size() == 2 && !positional[1].quoted)) {
    return PromptUsage{"a name is one word and the purpose goes in quotes: type " +
                       quoted_form(provider, positional) + " (or join the words into one name, like my-agent)"};
  }
  cmd.name = positional[0].text;
  if (positional.size() == 2) cmd.purpose = positional[1].text;
  return cmd;
}

std::optional<std::vector<Word>> split_marked(std::string_view text) {
  std::vector<Word> words;
  Word current;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_space(c)) {
      if (in_word) words.push_back(std::move(current));
      current = Word{};
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const auto close = text.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      current.text.append(text.substr(i + 1, close - i - 1));
      current.quoted = true;
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) ++j;
        current.text.push_back(text[j]);
      }
      if (j >= text.size()) return std::nullopt;
      current.quoted = true;
      i = j;
    } else {
      current.text.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(current));
  return words;
}

}  // namespace

std::optional<std::vector<std::string>> split_words(std::string_view text) {
  auto marked = split_marked(text);
  if (!marked) return std::nullopt;
  std::vector<std::string> words;
  words.reserve(marked->size());
  for (auto& w : *marked) words.push_back(std::move(w.text));
  return words;
}

PromptParse parse_prompt(std::string_view prompt, Provider provider) {
  const std::string_view text = trim(prompt);
  std::optional<std::string_view> rest;
  for (const std::string_view word : {std::string_view("/agentworks:agentworks"), std::string_view("/agentworks")}) {
    if ((rest = after_word(text, word))) break;
  }
  if (!rest && provider == Provider::codex) {
    // ^agentworks (attach|status|detach|resume|cleanup)(\s|$): the person's command, valid or not (a mistyped
    // one is answered with the usage, never handed to the model). Other prose about agentworks is ordinary.
    const auto tail = after_word(text, "agentworks");
    if (!tail || tail->empty()) return NotACommand{};
    const std::string_view after = trim(*tail);
    std::size_t n = 0;
    while (n < after.size() && is_word_char(after[n])) ++n;
    if (!find_verb(after.substr(0, n))) return NotACommand{};
    if (n < after.size() && !is_space(after[n])) return NotACommand{};
    rest = tail;
  }
  if (!rest) return NotACommand{};
  if (rest->find_first_of("\n\r") != std::string_view::npos) {
    return PromptUsage{"type the command alone on one line"};
  }
  const auto words = split_marked(*rest);
  return words ? parse_words(*words, provider) : PromptParse(PromptUsage{"a quote is not closed"});
}

std::string_view verb_name(Verb verb) {
  for (const auto& v : kVerbs) {
    if (v.verb == verb) return v.name;
  }
  return "status";
}

std::string usage_text(Provider provider, std::string_view problem) {
  // Codex's TUI rejects unknown slash commands, so its people type the command without the slash.
  const std::string c = command_word(provider);
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
