// Every `agentworks …` command line in a code block of README.md, docs/*.md and examples/*/README.md parses with
// the CLI's own command table (app_builder.hpp): the command exists, every flag is one of its flags, every value
// sits where the command takes one. A synopsis line is read as a person would try it: placeholders (CALL_ID, N,
// call_…) become sample values, [optional] parts are kept, the first of `a|b` alternatives is taken, and a list of
// commands (`crews call-status | call-file | …`) names commands that must exist. The quick start itself runs
// against a real server in DocsExamples (tests/integration/docs_examples_test.cpp).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "app_builder.hpp"
#include "support/docs_examples.hpp"

namespace agentworks::cli {
namespace {

using testing::every_example;
using testing::shell_words;

// A synopsis word as a person would type it: the first alternative, a sample value for a placeholder.
std::string as_typed(std::string word) {
  static const std::map<std::string, std::string> samples = {
      {"CALL_ID", "call_0123456789abcdef01234567"}, {"INBOX_ID", "inb_0123"}, {"INBOX", "inb_0123"},
      {"MESSAGE_ID", "msg_0123"}, {"REQUEST_ID", "req_0123"}, {"ID", "id-1"}, {"N", "3"}, {"BYTES", "100"},
      {"SECONDS", "5"}, {"PATH", "/tmp/out"}, {"CURSOR", "c1"}, {"TEXT", "hello"}, {"JSON", "{}"}, {"NAME", "api"},
      {"F", "echo"}, {"P", "claude"}, {"DIR", "/tmp/project"}, {"URL", "http://127.0.0.1:7787"}, {"PORT", "7787"}};
  if (word.rfind("--", 0) != 0) {
    if (const auto bar = word.find('|'); bar != std::string::npos && bar > 0) word = word.substr(0, bar);
  }
  if (const auto it = samples.find(word); it != samples.end()) return it->second;
  // call_…, inb_…, wku_…: an id of that kind; agent:NAME|crew:NAME was cut above.
  if (const auto dots = word.find("\xE2\x80\xA6"); dots != std::string::npos) return word.substr(0, dots) + "0123";
  if (const auto colon = word.find(':'); colon != std::string::npos) {
    const std::string rest = word.substr(colon + 1);
    if (const auto it = samples.find(rest); it != samples.end()) return word.substr(0, colon + 1) + it->second;
  }
  return word;
}

// The argv a person would type for `line` (without the leading "agentworks"): brackets and `( a | b )` groups
// resolved to their first choice, the trailing "…" of an open list dropped.
std::vector<std::string> typed_argv(const std::string& line) {
  std::string flat;
  int group = 0;
  bool skipping = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '(') {
      ++group;
      continue;
    }
    if (c == ')') {
      --group;
      skipping = false;
      continue;
    }
    if (group > 0 && c == '|' && i > 0 && line[i - 1] == ' ') {
      skipping = true;  // the other alternatives of `( a | b )`
      continue;
    }
    if (skipping) continue;
    if (c == '[' || c == ']') {
      flat += ' ';
      continue;
    }
    flat += c;
  }
  std::vector<std::string> argv;
  for (const auto& w : shell_words(flat)) {
    if (w == "\xE2\x80\xA6") continue;
    argv.push_back(as_typed(w));
  }
  if (!argv.empty()) argv.erase(argv.begin());  // "agentworks"
  return argv;
}

// Empty when `argv` parses, else CLI11's words.
std::string parse_error(const std::vector<std::string>& argv) {
  CLI::App app{kCliDescription, "agentworks"};
  GlobalOptions global;
  const auto registered = build_command_tree(app, global);
  std::vector<const char*> raw = {"agentworks"};
  for (const auto& a : argv) raw.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(raw.size()), raw.data());
  } catch (const CLI::Success&) {
    return "";
  } catch (const CLI::Error& e) {
    return e.what();
  }
  for (const auto& r : registered)
    if (r.app->parsed() && !r.app->remaining().empty()) return "unexpected words: " + r.app->remaining().front();
  return "";
}

bool command_exists(const std::vector<std::string>& path) {
  CLI::App app{kCliDescription, "agentworks"};
  GlobalOptions global;
  const auto registered = build_command_tree(app, global);
  std::string joined;
  for (const auto& p : path) joined += (joined.empty() ? "" : " ") + p;
  for (const auto& r : registered)
    if (r.path == joined) return true;
  return false;
}

TEST(DocsExamples, EveryCommandLineInTheDocsParses) {
  const auto examples = every_example(AGENTWORKS_SOURCE_DIR);
  EXPECT_GE(examples.size(), 80u) << "the docs' examples were not found";
  for (const auto& e : examples) {
    // "crews call-status | call-file | reply | cancel": a list of commands beside the first word.
    if (e.line.find(" | ") != std::string::npos && e.line.find('(') == std::string::npos) {
      const auto words = shell_words(e.line);
      ASSERT_GE(words.size(), 3u) << e.where;
      const std::string group = words[1];
      for (std::size_t i = 2; i < words.size(); ++i) {
        if (words[i] == "|") continue;
        EXPECT_TRUE(command_exists({group, words[i]})) << e.where << ": no command `" << group << " " << words[i]
                                                       << "` (" << e.line << ")";
      }
      continue;
    }
    const auto argv = typed_argv(e.line);
    const std::string error = parse_error(argv);
    std::string typed;
    for (const auto& a : argv) typed += " " + a;
    EXPECT_EQ(error, "") << e.where << ": " << e.line << "\n  typed as: agentworks" << typed;
  }
}

// The reader of examples itself: a wrong flag, a missing value and an unknown command are caught.
TEST(DocsExamples, AMistypedExampleIsCaught) {
  EXPECT_NE(parse_error(typed_argv("agentworks functions call-status --cal CALL_ID")), "");
  EXPECT_NE(parse_error(typed_argv("agentworks messages send --agent")), "");
  EXPECT_NE(parse_error(typed_argv("agentworks mesages list")), "");
  EXPECT_EQ(parse_error(typed_argv("agentworks functions call-status --call CALL_ID [--after N] [--wait 25]")), "");
  EXPECT_EQ(parse_error(typed_argv("agentworks bridge message reply --provider P (--message-id ID | --inbox INBOX) "
                                   "--message TEXT")),
            "");
}

}  // namespace
}  // namespace agentworks::cli
