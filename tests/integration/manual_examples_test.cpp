// The EXAMPLES of the manual page (`agentworks manual`) are commands a person copies: each one runs, in order, as
// written, against a real server and bridge, and succeeds.
#include <gtest/gtest.h>

#include <regex>

#include "support/bridge_fixture.hpp"
#include "support/docs_examples.hpp"

namespace agentworks::testing {
namespace {

using nlohmann::json;

class ManualExamples : public BridgeTest {};

// roff back to the text a person reads: `\-` is `-`, `\e` is a backslash.
std::string unroff(std::string text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '-' || text[i + 1] == 'e')) {
      out += text[i + 1] == '-' ? '-' : '\\';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

TEST_F(ManualExamples, EveryExampleRuns) {
  start_server();
  start_bridge();
  register_agent(owner(), "reviewer");
  const std::string page = cli_ok(owner(), {"manual"}).at("page");
  const auto section = page.find(".SH EXAMPLES\n");
  ASSERT_NE(section, std::string::npos) << page;
  const std::string examples = page.substr(section, page.find(".SH ", section + 1) - section);
  const std::regex command(R"(\.TP\n\\fB(.*)\\fR\n)");
  int ran = 0;
  for (std::sregex_iterator it(examples.begin(), examples.end(), command), end; it != end; ++it) {
    std::vector<std::string> argv = shell_words(unroff((*it)[1].str()));
    ASSERT_GE(argv.size(), 2u) << (*it)[1].str();
    ASSERT_EQ(argv.front(), "agentworks") << (*it)[1].str();
    argv.erase(argv.begin());
    const CliResult r = owner().run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    ++ran;
  }
  EXPECT_GE(ran, 4) << examples;
  // They did what they say.
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"PR 7 is ready"});
  EXPECT_EQ(cli_ok(owner(), {"agents", "show", "reviewer"}).at("nudge"), "off");
}

}  // namespace
}  // namespace agentworks::testing
