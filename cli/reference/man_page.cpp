#include "reference/man_page.hpp"

#include <cstdio>
#include <sstream>

#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"

namespace agentworks::cli {
namespace {

// Text as roff: backslashes and hyphens escaped, non-ASCII characters as \[uXXXX] (troff reads bytes), and
// no line may start with a control character.
std::string roff(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      const int extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : 1;
      unsigned code = byte & (0x3Fu >> extra);
      for (int k = 0; k < extra && i + 1 < text.size(); ++k)
        code = (code << 6) | (static_cast<unsigned char>(text[++i]) & 0x3Fu);
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\[u%04X]", code);
      out += buf;
    } else if (text[i] == '\\') {
      out += "\\e";
    } else if (text[i] == '-') {
      out += "\\-";
    } else {
      out += text[i];
    }
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

// Each runs in a test, in this order (ManualExamples.EveryExampleRuns).
const std::pair<std::string, std::string> kExamples[] = {
    {"agentworks messages register --agent worker", "Register the name worker, so this login can send as it."},
    {"agentworks messages send --agent worker --target agent:reviewer --message \"PR 7 is ready\"",
     "Send a message to the chat attached as reviewer; the answer is the receipt (message_id, inbox_id)."},
    {"agentworks agents set reviewer --nudge off",
     "Let the reviewer's silent turns end without being asked to answer; senders still see unanswered."},
    {"agentworks status --agents", "List the chats attached on this computer, what waits for each and how it talks."},
};

std::string option_line(const OptionReference& o) {
  std::string line;
  for (const auto& n : o.names) {
    if (!line.empty()) line += ", ";
    line += o.positional ? "\\fI" + roff(n) + "\\fR" : "\\fB" + roff(n) + "\\fR";
  }
  if (o.takes_value && !o.positional) line += " \\fIVALUE\\fR";
  return line;
}

}  // namespace

std::string render_man_page(const CliReference& cli) {
  std::ostringstream m;
  m << ".TH AGENTWORKS 1 \"\" \"agentworks " << cli.version << "\" \"User Commands\"\n";
  m << ".SH NAME\nagentworks \\- " << roff(cli.description.substr(cli.description.find(':') + 2)) << "\n";
  m << ".SH SYNOPSIS\n\\fBagentworks\\fR [\\fB\\-\\-json\\fR] [\\fB\\-\\-config\\fR \\fIFILE\\fR] \\fICOMMAND\\fR "
       "[\\fIOPTIONS\\fR]\n";
  m << ".SH DESCRIPTION\n"
    << roff("Every command prints a readable answer, or with --json one JSON object on stdout (errors too, as "
            "{\"error\":{\"code\",\"message\"}}). The exit status names the error class.")
    << "\n";
  if (!cli.groups.empty()) {
    m << ".SH COMMAND GROUPS\n";
    for (const auto& g : cli.groups) m << ".TP\n\\fB" << roff(g.name) << "\\fR\n" << roff(g.help) << "\n";
  }
  m << ".SH COMMANDS\n";
  for (const auto& c : cli.commands) {
    m << ".SS \"" << roff(c.path) << "\"\n" << roff(c.help) << "\n";
    for (const auto& o : c.options) {
      if (o.names.front() == "--help" || o.names.front() == "--config" || o.names.front() == "--json") continue;
      m << ".TP\n" << option_line(o) << "\n" << roff(o.help) << "\n";
    }
  }
  m << ".SH EXIT STATUS\n";
  for (const auto& [code, meaning] : exit_classes()) m << ".TP\n\\fB" << code << "\\fR\n" << roff(std::string(meaning)) << "\n";
  m << ".SH ENVIRONMENT\n";
  for (const auto& v : env::table()) {
    if (v.test_knob) continue;
    m << ".TP\n\\fB" << roff(std::string(v.name)) << "\\fR\n"
      << roff(std::string(v.purpose) + " (unset: " + std::string(v.default_value) + ")") << "\n";
  }
  m << ".SH EXAMPLES\n";
  for (const auto& [command, what] : kExamples)
    m << ".TP\n\\fB" << roff(command) << "\\fR\n" << roff(what) << "\n";
  m << ".SH FILES\n.TP\n\\fI$XDG_CONFIG_HOME/agentworks/config.json\\fR\n"
    << roff("The saved login (private). --config or $AGENTWORKS_CONFIG name another.") << "\n";
  m << ".SH SEE ALSO\n\\fBagentworks\\-bridge\\fR(1), \\fBagentworks\\-hook\\fR(1), \\fBagentworks\\-server\\fR(1)\n";
  return m.str();
}

}  // namespace agentworks::cli
