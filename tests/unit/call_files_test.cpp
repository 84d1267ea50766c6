// Reading a call's files (R-F4): pages by offset and limit, text or base64, never outside the call's folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "agentworks/base64.hpp"
#include "agentworks/error.hpp"
#include "call/call_files.hpp"

namespace fs = std::filesystem;
using agentworks::Error;
using agentworks::ErrorCode;
using namespace agentworks::functions;

class CallFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aw-files-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    dir_ = root_ / "call";
    fs::create_directories(dir_ / "sub");
    std::ofstream(dir_ / "notes.txt") << "h\xC3\xA9llo";  // "héllo": é is two bytes
    std::ofstream(dir_ / "sub" / "deep.txt") << "deep";
    std::ofstream(root_ / "secret.txt") << "not yours";
    std::ofstream(dir_ / "blob.bin", std::ios::binary) << std::string("\x00\xFF\x10\x80", 4);
    fs::create_symlink(root_ / "secret.txt", dir_ / "link.txt");
    fs::create_directory_symlink(root_, dir_ / "up");
  }
  void TearDown() override { fs::remove_all(root_); }

  ErrorCode code_of(const std::string& name) {
    try {
      read_call_file(dir_, name, 0, 100);
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::internal;
  }
  fs::path root_, dir_;
};


TEST_F(CallFilesTest, ListsRegularFilesOnlyWithTheirKind) {
  const auto files = list_call_files(dir_);
  ASSERT_EQ(files.size(), 3U);
  EXPECT_EQ(files[0].name, "blob.bin");
  EXPECT_FALSE(files[0].text);
  EXPECT_EQ(files[1].name, "notes.txt");
  EXPECT_TRUE(files[1].text);
  EXPECT_EQ(files[1].size, 6);
  EXPECT_EQ(files[2].name, "sub/deep.txt");
}

TEST_F(CallFilesTest, PagesNeverSplitACharacter) {
  FilePage p = read_call_file(dir_, "notes.txt", 0, 2);  // "h" and the first byte of é
  EXPECT_TRUE(p.text);
  EXPECT_EQ(p.bytes, "h");
  EXPECT_EQ(p.next_offset, 1);
  EXPECT_FALSE(p.eof);
  p = read_call_file(dir_, "notes.txt", p.next_offset, 100);
  EXPECT_EQ(p.bytes, "\xC3\xA9llo");
  EXPECT_TRUE(p.eof);
  EXPECT_EQ(p.next_offset, 6);
  p = read_call_file(dir_, "notes.txt", 100, 10);  // past the end: empty, at the end
  EXPECT_TRUE(p.eof);
  EXPECT_TRUE(p.bytes.empty());
}

TEST_F(CallFilesTest, BinaryPagesAreBase64) {
  const FilePage p = read_call_file(dir_, "blob.bin", 0, 100);
  EXPECT_FALSE(p.text);
  EXPECT_EQ(agentworks::base64_decode(agentworks::base64_encode(p.bytes)), p.bytes);
  EXPECT_EQ(p.bytes.size(), 4U);
}

TEST_F(CallFilesTest, NamesThatLeaveTheFolderAreRefused) {
  EXPECT_EQ(code_of("../secret.txt"), ErrorCode::bad_request);
  EXPECT_EQ(code_of("sub/../../secret.txt"), ErrorCode::bad_request);
  EXPECT_EQ(code_of((root_ / "secret.txt").string()), ErrorCode::bad_request);
  EXPECT_EQ(code_of("link.txt"), ErrorCode::bad_request);
  EXPECT_EQ(code_of("up/secret.txt"), ErrorCode::bad_request);
  EXPECT_EQ(code_of("missing.txt"), ErrorCode::not_found);
  EXPECT_EQ(code_of("sub"), ErrorCode::bad_request);
  EXPECT_EQ(read_call_file(dir_, "./sub/deep.txt", 0, 10).bytes, "deep");
}

TEST_F(CallFilesTest, ARemovedFolderIsExpired) {
  fs::remove_all(dir_);
  EXPECT_EQ(code_of("notes.txt"), ErrorCode::expired);
  EXPECT_EQ(last_change(dir_), 0);
}

TEST(Base64, RoundTripsAndRefusesNonCanonical) {
  EXPECT_EQ(agentworks::base64_encode(""), "");
  EXPECT_EQ(agentworks::base64_encode("f"), "Zg==");
  EXPECT_EQ(agentworks::base64_encode("fo"), "Zm8=");
  EXPECT_EQ(agentworks::base64_encode("foo"), "Zm9v");
  EXPECT_EQ(agentworks::base64_decode("Zm9vYg=="), "foob");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  EXPECT_EQ(agentworks::base64_decode(agentworks::base64_encode(all)), all);
  EXPECT_FALSE(agentworks::base64_decode("Zm9").has_value());
  EXPECT_FALSE(agentworks::base64_decode("Zm=v").has_value());
  EXPECT_FALSE(agentworks::base64_decode("Z!9v").has_value());
}
