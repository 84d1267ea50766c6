// Private runtime directory, lock and socket claim (invariant 9, R-B9, race-free start).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "start/instance.hpp"
#include "start/private_dir.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bridge {
namespace {

namespace fs = std::filesystem;

class PrivateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = agentworks::testing::make_temp_dir("bridge_dir_", "/tmp");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(PrivateDirTest, CreatesDirectory0700_RB9) {
  const auto dir = root_ / "a" / "agentworks";
  const auto fd = open_private_dir(dir);
  EXPECT_TRUE(fd.valid());
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_uid, ::getuid());
}

TEST_F(PrivateDirTest, RefusesSymlink_RB9) {
  const auto real = root_ / "real";
  ASSERT_EQ(::mkdir(real.c_str(), 0700), 0);
  const auto link = root_ / "agentworks";
  fs::create_directory_symlink(real, link);
  try {
    open_private_dir(link);
    FAIL() << "a symlinked directory must be refused";
  } catch (const StartupError& e) {
    EXPECT_NE(std::string(e.what()).find("symlink"), std::string::npos) << e.what();
  }
}

TEST_F(PrivateDirTest, RefusesWiderMode_RB9) {
  const auto dir = root_ / "agentworks";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  EXPECT_THROW(open_private_dir(dir), StartupError);
  // The state directory variant tightens instead.
  EXPECT_TRUE(open_owned_dir_tightening(dir).valid());
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}

TEST_F(PrivateDirTest, RefusesForeignOwner_RB9) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to create a directory owned by another uid";
  const auto dir = root_ / "agentworks";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  try {
    open_private_dir(dir);
    FAIL() << "a directory owned by another uid must be refused";
  } catch (const StartupError& e) {
    EXPECT_NE(std::string(e.what()).find("owned by uid 65534"), std::string::npos) << e.what();
  }
  EXPECT_THROW(open_owned_dir_tightening(dir), StartupError);
}

TEST_F(PrivateDirTest, SecondClaimSeesTheFirst) {
  const auto dir = root_ / "agentworks";
  const auto fd = open_private_dir(dir);
  auto first = claim_instance(fd.get(), dir);
  ASSERT_TRUE(first.instance);
  struct stat st {};
  ASSERT_EQ(::stat((dir / kSocketName).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // R-B9
  auto second = claim_instance(fd.get(), dir);
  EXPECT_FALSE(second.instance);
  EXPECT_FALSE(second.already_running.empty());
  release_instance(*first.instance, fd.get());
  EXPECT_FALSE(fs::exists(dir / kSocketName));
}

TEST_F(PrivateDirTest, StaleSocketIsReplacedUnderTheLock) {
  const auto dir = root_ / "agentworks";
  const auto fd = open_private_dir(dir);
  {
    // A socket file with nobody listening: what a killed bridge leaves behind.
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string p = (dir / kSocketName).string();
    std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
    ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(s);
  }
  EXPECT_FALSE(socket_answers(fd.get(), dir));
  auto claim = claim_instance(fd.get(), dir);
  ASSERT_TRUE(claim.instance);
  EXPECT_TRUE(socket_answers(fd.get(), dir));
  release_instance(*claim.instance, fd.get());
}

}  // namespace
}  // namespace agentworks::bridge
