// home_dir() and its fallback without NSS (common/include/agentworks/paths.hpp): $HOME when absolute, else this
// uid's line of /etc/passwd read as a file (the hook), or the account database (the other programs).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "agentworks/paths.hpp"

namespace agentworks::paths {
namespace {

TEST(HomeInPasswd, FindsTheUidsHome) {
  const std::string text =
      "root:x:0:0:root:/root:/bin/bash\n"
      "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
      "ada:x:1000:1000:Ada Lovelace,,,:/home/ada:/bin/bash\n";
  EXPECT_EQ(home_in_passwd(text, 0), "/root");
  EXPECT_EQ(home_in_passwd(text, 1000), "/home/ada");
  EXPECT_EQ(home_in_passwd(text, 1001), "");
  EXPECT_EQ(home_in_passwd(text, 100), "");  // a uid is matched whole, not as a prefix of 1000
}

TEST(HomeInPasswd, MalformedLinesAndRelativeHomesAreSkipped) {
  const std::string text =
      "\n"
      "# a comment\n"
      "short:x:1000\n"                          // too few fields
      "rel:x:1000:1000::home/rel:/bin/sh\n"     // a relative home is not a home
      "empty:x:1000:1000:::/bin/sh\n"           // neither is an empty one
      "ok:x:1000:1000::/home/ok:/bin/sh";       // no final newline
  EXPECT_EQ(home_in_passwd(text, 1000), "/home/ok");
  EXPECT_EQ(home_in_passwd("", 0), "");
  EXPECT_EQ(home_in_passwd("::::::", 0), "");
}

class HomeDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* h = std::getenv("HOME")) saved_ = h;
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("HOME", saved_->c_str(), 1);
    } else {
      ::unsetenv("HOME");
    }
    account_database_home = nullptr;
  }
  std::optional<std::string> saved_;
};

TEST_F(HomeDirTest, AnAbsoluteHomeWins) {
  ::setenv("HOME", "/tmp/some-home", 1);
  EXPECT_EQ(home_dir(), "/tmp/some-home");
}

TEST_F(HomeDirTest, WithoutHomeThePasswdFileIsRead) {
  std::ifstream in("/etc/passwd");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string expected = home_in_passwd(text.str(), static_cast<unsigned>(::getuid()));
  ::unsetenv("HOME");
  EXPECT_EQ(home_dir().string(), expected.empty() ? "/" : expected);
  ::setenv("HOME", "relative/home", 1);  // ignored like an unset one
  EXPECT_EQ(home_dir().string(), expected.empty() ? "/" : expected);
}

TEST_F(HomeDirTest, TheAccountDatabaseIsAskedOnlyWhenChosen) {
  ::unsetenv("HOME");
  account_database_home = [] { return std::string("/from/the/account/database"); };
  EXPECT_EQ(home_dir(), "/from/the/account/database");
  use_account_database();
  EXPECT_NE(account_database_home, nullptr);
  EXPECT_FALSE(home_dir().empty());
}

}  // namespace
}  // namespace agentworks::paths
