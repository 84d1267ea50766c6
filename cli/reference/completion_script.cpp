#include "reference/completion_script.hpp"

#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace agentworks::cli {
namespace {

// The two lookup functions both scripts share: the words that may follow a command path, and a command's
// options. Both answer 1 for a path that is not a command (an option's value, say).
std::string lookup_functions(const CliReference& cli) {
  std::map<std::string, std::vector<std::string>> children;  // "" is the root
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& c : cli.commands) {
    std::string prefix;
    std::string_view rest = c.path;
    for (;;) {
      const auto space = rest.find(' ');
      const std::string word(rest.substr(0, space));
      if (seen[prefix].insert(word).second) children[prefix].push_back(word);
      if (space == std::string_view::npos) break;
      prefix += (prefix.empty() ? "" : " ") + word;
      rest.remove_prefix(space + 1);
    }
  }
  std::ostringstream s;
  s << "_agentworks_children() {\n  case \"$1\" in\n";
  for (const auto& [prefix, words] : children) {
    s << "    \"" << prefix << "\") echo \"";
    for (std::size_t i = 0; i < words.size(); ++i) s << (i ? " " : "") << words[i];
    s << "\" ;;\n";
  }
  s << "    *) return 1 ;;\n  esac\n}\n";
  s << "_agentworks_options() {\n  case \"$1\" in\n    \"\") echo \"--help --version --json --config\" ;;\n";
  for (const auto& c : cli.commands) {
    s << "    \"" << c.path << "\") echo \"";
    bool first = true;
    for (const auto& o : c.options) {
      if (o.positional) continue;
      for (const auto& n : o.names) {
        s << (first ? "" : " ") << n;
        first = false;
      }
    }
    s << "\" ;;\n";
  }
  s << "    *) return 1 ;;\n  esac\n}\n";
  return s.str();
}

// Walks the words typed before the cursor, skipping options and their values, to the deepest command path.
constexpr char kPathWalk[] =
    "    [[ $w == -* ]] && continue\n"
    "    next=\"${path_:+$path_ }$w\"\n"
    "    if _agentworks_children \"$next\" >/dev/null || _agentworks_options \"$next\" >/dev/null; then\n"
    "      path_=$next\n"
    "    fi\n";

}  // namespace

std::optional<std::string> render_completion_script(const CliReference& cli, std::string_view shell) {
  std::ostringstream s;
  if (shell == "bash") {
    s << "# bash completion for agentworks " << cli.version << " (generated from its command table by\n"
      << "# `agentworks completion bash`)\n"
      << lookup_functions(cli) << "_agentworks() {\n"
      << "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" path_=\"\" w next i candidates\n"
      << "  for ((i = 1; i < COMP_CWORD; i++)); do\n    w=\"${COMP_WORDS[i]}\"\n"
      << kPathWalk << "  done\n"
      << "  if [[ $cur == -* ]]; then\n    candidates=$(_agentworks_options \"$path_\")\n"
      << "  else\n    candidates=$(_agentworks_children \"$path_\") || candidates=\"\"\n  fi\n"
      << "  COMPREPLY=($(compgen -W \"$candidates\" -- \"$cur\"))\n}\n"
      << "complete -F _agentworks agentworks\n";
    return s.str();
  }
  if (shell == "zsh") {
    s << "#compdef agentworks\n"
      << "# zsh completion for agentworks " << cli.version << " (generated from its command table by\n"
      << "# `agentworks completion zsh`)\n"
      << lookup_functions(cli) << "_agentworks() {\n"
      << "  local path_=\"\" w next i\n"
      << "  for ((i = 2; i < CURRENT; i++)); do\n    w=${words[i]}\n"
      << kPathWalk << "  done\n"
      << "  if [[ ${words[CURRENT]} == -* ]]; then\n    compadd -- ${=$(_agentworks_options \"$path_\")}\n"
      << "  else\n    compadd -- ${=$(_agentworks_children \"$path_\")}\n  fi\n}\n"
      << "_agentworks \"$@\"\n";
    return s.str();
  }
  return std::nullopt;
}

}  // namespace agentworks::cli
