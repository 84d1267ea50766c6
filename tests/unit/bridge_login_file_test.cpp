// The bridge's view of the person's login file: read again only when the file changed, and never a blocking open
// (a FIFO at the path reads as unreadable instead of hanging the loop).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "agentworks/config.hpp"
#include "platform/login_file.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bridge {
namespace {

namespace fs = std::filesystem;

class BridgeLoginFile : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("AGENTWORKS_CONFIG", path_.c_str(), 1); }
  void TearDown() override { ::unsetenv("AGENTWORKS_CONFIG"); }
  agentworks::testing::TempDir dir_{"aw-login-file-"};
  fs::path path_ = dir_.path() / "config.json";
};

TEST_F(BridgeLoginFile, NoFileIsNoLoginAndANewLoginIsSeenAtTheNextLook) {
  EXPECT_FALSE(current_login().login.has_value());
  EXPECT_FALSE(current_login().unreadable);
  Config c;
  c.server_url = "https://team.example:7787";
  c.token = "t";
  c.ca_file = "/etc/ca-one.pem";
  save_config(path_, c);
  ASSERT_TRUE(current_login().login.has_value());
  EXPECT_EQ(current_login().login->ca_file, "/etc/ca-one.pem");
  c.ca_file = "/etc/ca-two.pem";
  c.native = false;
  save_config(path_, c);
  EXPECT_EQ(current_login().login->ca_file, "/etc/ca-two.pem");
  EXPECT_FALSE(current_login().login->native);
  fs::remove(path_);
  EXPECT_FALSE(current_login().login.has_value());
}

TEST_F(BridgeLoginFile, AFileRewrittenInPlaceIsReadAgain) {
  std::ofstream(path_) << R"({"server_url":"http://127.0.0.1:1","token":"a"})";
  EXPECT_EQ(current_login().login->server_url, "http://127.0.0.1:1");
  std::ofstream(path_) << R"({"server_url":"http://127.0.0.1:22","token":"a"})";  // same inode, new size
  EXPECT_EQ(current_login().login->server_url, "http://127.0.0.1:22");
}

TEST_F(BridgeLoginFile, GarbageAndAFifoAreUnreadableAndNeverBlock) {
  std::ofstream(path_) << "not json";
  EXPECT_TRUE(current_login().unreadable);
  EXPECT_FALSE(current_login().login.has_value());
  fs::remove(path_);
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  EXPECT_TRUE(current_login().unreadable);  // an open of the FIFO for reading would wait for a writer forever
  fs::remove(path_);
  fs::create_directory(path_);
  EXPECT_TRUE(current_login().unreadable);
}

}  // namespace
}  // namespace agentworks::bridge
