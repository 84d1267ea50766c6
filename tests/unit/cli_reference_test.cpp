// The manual page and the shell completions come from the one command table: every command is in them, and the
// bash script completes command words and options when bash runs it.
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "command.hpp"
#include "reference/command_reference.hpp"
#include "reference/completion_script.hpp"
#include "reference/man_page.hpp"

using namespace agentworks::cli;
namespace fs = std::filesystem;

namespace {

// Runs bash with the completion script loaded and COMP_WORDS set to `line` split on spaces (a trailing space
// completes a new word); returns COMPREPLY, one word per line.
std::string complete_in_bash(const std::string& script, const std::string& line) {
  char templ[] = "/tmp/aw-completion-XXXXXX";
  const int fd = ::mkstemp(templ);
  EXPECT_GE(fd, 0);
  { std::ofstream(templ) << script; }
  const std::string command = "bash --norc --noprofile -c 'source " + std::string(templ) +
                              " && read -ra COMP_WORDS <<< \"" + line + "\" && COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))" +
                              (line.ends_with(" ") ? " && COMP_WORDS+=(\"\") && COMP_CWORD=${#COMP_WORDS[@]}-1" : "") +
                              " && _agentworks && printf \"%s\\n\" \"${COMPREPLY[@]}\"'";
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    ::pclose(p);
  }
  ::close(fd);
  fs::remove(templ);
  return out;
}

TEST(CliReference, EveryCommandIsInTheManualAndTheCompletions) {
  const CliReference cli = describe_cli();
  ASSERT_EQ(cli.commands.size(), command_table().size());
  const std::string man = render_man_page(cli);
  const std::string bash = *render_completion_script(cli, "bash");
  const std::string zsh = *render_completion_script(cli, "zsh");
  for (const auto& entry : command_table()) {
    std::string escaped;
    for (char ch : entry.path) escaped += ch == '-' ? std::string("\\-") : std::string(1, ch);
    EXPECT_NE(man.find(".SS \"" + escaped + "\""), std::string::npos) << entry.path;
    EXPECT_NE(bash.find("    \"" + std::string(entry.path) + "\") echo"), std::string::npos) << entry.path;
    EXPECT_NE(zsh.find("    \"" + std::string(entry.path) + "\") echo"), std::string::npos) << entry.path;
  }
  EXPECT_EQ(man.find("\xe2"), std::string::npos) << "non-ASCII reaches troff unescaped";
  EXPECT_FALSE(render_completion_script(cli, "fish").has_value());
}

TEST(CliReference, BashCompletesCommandWordsAndOptions) {
  const std::string bash = *render_completion_script(describe_cli(), "bash");
  EXPECT_EQ(complete_in_bash(bash, "agentworks messages se"), "send\n");
  EXPECT_EQ(complete_in_bash(bash, "agentworks daemon st"), "start\nstop\nstatus\n");
  EXPECT_EQ(complete_in_bash(bash, "agentworks messages send --tar"), "--target\n");
  // An option's value is skipped on the way to the command path.
  EXPECT_EQ(complete_in_bash(bash, "agentworks messages send --agent worker --mess"), "--message\n");
  EXPECT_EQ(complete_in_bash(bash, "agentworks --vers"), "--version\n");
}

}  // namespace
