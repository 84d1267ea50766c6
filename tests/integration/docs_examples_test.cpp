// The documentation's example sessions run as written, in order, against a real server in a temp HOME: README.md's
// quick start, every example of docs/talking.md, and the Crew commands of docs/functions.md. An id an example shows
// as a placeholder (INBOX_ID, MESSAGE_ID, msg_…, inb_…, wku_…) is the one an earlier command of the same session
// answered, `~/` is the temp HOME, and each command must succeed. That every other command line of the docs parses
// is unit/docs_examples_test.cpp.
#include <gtest/gtest.h>

#include <map>

#include "support/crew_folder.hpp"
#include "support/docs_examples.hpp"
#include "support/messaging_fixture.hpp"
#include "testing/binaries.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

class DocsExamples : public MessagingTest {
 protected:
  // The examples of `file` from the one whose line contains `from` to the one that contains `to`, inclusive.
  std::vector<Example> block(const std::string& file, const std::string& from, const std::string& to) const {
    std::vector<Example> out;
    bool in = false;
    for (const auto& e : examples_in(fs::path(AGENTWORKS_SOURCE_DIR) / file, AGENTWORKS_SOURCE_DIR)) {
      if (!in && e.line.find(from) != std::string::npos) in = true;
      if (in) out.push_back(e);
      if (in && e.line.find(to) != std::string::npos) break;
    }
    EXPECT_FALSE(out.empty()) << file << " has no example with " << from;
    return out;
  }

  // Runs each example with --json; what it answered fills the placeholders of the ones after it.
  void run(const std::vector<Example>& examples) {
    for (const auto& e : examples) {
      std::vector<std::string> argv;
      for (auto word : shell_words(e.line)) {
        for (const auto& [placeholder, value] : ids_) {
          if (const auto at = word.find(placeholder); at != std::string::npos) word.replace(at, placeholder.size(), value);
        }
        if (word.rfind("~/", 0) == 0) word = (home_.home() / word.substr(2)).string();
        argv.push_back(word);
      }
      argv.erase(argv.begin());  // "agentworks"
      argv.push_back("--json");
      const CliResult r = owner().run(argv);
      ASSERT_EQ(r.exit_code, 0) << e.where << ": " << e.line << "\n" << r.describe();
      learn(r.json());
      ++ran_;
    }
  }

  void learn(const json& answer) {
    if (!answer.is_object()) return;
    if (answer.contains("message_id") && answer["message_id"].is_string()) {
      ids_["MESSAGE_ID"] = answer["message_id"];
      ids_["msg_\xE2\x80\xA6"] = answer["message_id"];
    }
    if (answer.contains("wakeup_id") && answer["wakeup_id"].is_string()) ids_["wku_\xE2\x80\xA6"] = answer["wakeup_id"];
    for (const auto& m : answer.value("messages", json::array())) {
      if (m.contains("reply_address") && m["reply_address"].is_string()) {
        ids_["INBOX_ID"] = m["reply_address"];
        ids_["inb_\xE2\x80\xA6"] = m["reply_address"];
      }
    }
  }

  std::map<std::string, std::string> ids_;
  int ran_ = 0;
};

TEST_F(DocsExamples, TheQuickStartAndTheTalkingExamplesRun) {
  start_server();
  run(block("README.md", "messages register --agent reviewer", "messages receipt"));
  EXPECT_EQ(ran_, 7);
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"Ready for review"});

  run(block("docs/talking.md", "agents set reviewer --nudge off", "wakeups resume"));
  EXPECT_EQ(cli_ok(owner(), {"agents", "show", "reviewer"}).at("communication"), "direct");
  const json wakeups = cli_ok(owner(), {"wakeups", "list", "--agent", "reviewer"});
  ASSERT_EQ(wakeups.at("wakeups").size(), 1u) << wakeups.dump();
  EXPECT_EQ(wakeups.at("wakeups")[0].at("state"), "cancelled");
}

TEST_F(DocsExamples, TheCrewCommandsOfTheFunctionsGuideRun) {
  start_server();
  CrewFolder crew(home_.home() / "src" / "api");
  crew.declare({CrewFolder::function("word_count", crew.script("count.sh", "wc -w"))});
  run(block("docs/functions.md", "crews register api --dir ~/src/api ", "crews unregister api"));
  EXPECT_EQ(ran_, 6);
  EXPECT_EQ(cli_ok(owner(), {"crews", "list"}).at("crews").size(), 0u) << "the last example unregisters it";
}

}  // namespace
}  // namespace agentworks::testing
