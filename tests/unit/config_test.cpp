// CLI config: round trip, private permissions, clear errors for a broken file (docs/architecture.md "Paths").
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "agentworks/config.hpp"
#include "agentworks/error.hpp"
#include "agentworks/random.hpp"

namespace aw = agentworks;
namespace fs = std::filesystem;

namespace {

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aw-config-test-" + aw::random_hex(6));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

  static aw::Config sample() {
    aw::Config c;
    c.server_url = "http://127.0.0.1:7787";
    c.token = "secret-token";
    c.connection_id = "conn_1";
    c.account_id = "acc_1";
    c.account_name = "owner";
    c.kind = "login";
    c.embedded = true;
    return c;
  }

  static mode_t mode_of(const fs::path& p) {
    struct stat st{};
    EXPECT_EQ(::stat(p.c_str(), &st), 0);
    return st.st_mode & 07777;
  }

  fs::path dir_;
};

TEST_F(ConfigTest, RoundTripKeepsEveryField) {
  const fs::path path = dir_ / "config.json";
  aw::save_config(path, sample());
  auto loaded = aw::load_config(path);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->server_url, "http://127.0.0.1:7787");
  EXPECT_EQ(loaded->token, "secret-token");
  EXPECT_EQ(loaded->connection_id, "conn_1");
  EXPECT_EQ(loaded->account_id, "acc_1");
  EXPECT_EQ(loaded->account_name, "owner");
  EXPECT_EQ(loaded->kind, "login");
  EXPECT_EQ(loaded->agent_name, "");
  EXPECT_TRUE(loaded->embedded);
  EXPECT_TRUE(loaded->logged_in());
}

TEST_F(ConfigTest, SavedFileIsPrivateAndNewParentIs0700) {
  const fs::path path = dir_ / "new" / "agentworks" / "config.json";
  ::umask(022);
  aw::save_config(path, sample());
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(mode_of(path.parent_path()), 0700u);
  EXPECT_EQ(mode_of(path.parent_path().parent_path()), 0700u);
}

TEST_F(ConfigTest, OverwriteReplacesAtomicallyAndStaysPrivate) {
  const fs::path path = dir_ / "config.json";
  write(path, "{}");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                            fs::perms::others_read);
  aw::save_config(path, sample());
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(aw::load_config(path)->token, "secret-token");
  // No temp files left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(ConfigTest, MissingFileIsNotAnError) { EXPECT_FALSE(aw::load_config(dir_ / "absent.json").has_value()); }

TEST_F(ConfigTest, InvalidJsonGivesClearError) {
  const fs::path path = dir_ / "config.json";
  write(path, "{not json");
  try {
    aw::load_config(path);
    FAIL() << "expected an Error";
  } catch (const aw::Error& e) {
    EXPECT_EQ(e.code(), aw::ErrorCode::bad_request);
    std::string what = e.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_NE(what.find("not valid JSON"), std::string::npos) << what;
    EXPECT_NE(what.find("agentworks login"), std::string::npos) << what;
  }
}

TEST_F(ConfigTest, WrongFieldTypeGivesClearError) {
  const fs::path path = dir_ / "config.json";
  write(path, R"({"server_url": 5, "token": "t"})");
  try {
    aw::load_config(path);
    FAIL() << "expected an Error";
  } catch (const aw::Error& e) {
    EXPECT_EQ(e.code(), aw::ErrorCode::bad_request);
    EXPECT_NE(std::string(e.what()).find("server_url"), std::string::npos) << e.what();
  }
  write(path, R"(["array"])");
  EXPECT_THROW(aw::load_config(path), aw::Error);
  write(path, R"({"embedded": "yes"})");
  EXPECT_THROW(aw::load_config(path), aw::Error);
}

TEST_F(ConfigTest, UnreadableFileGivesError) {
  // A directory where the file should be cannot be read (works as root too, unlike chmod 000).
  const fs::path path = dir_ / "config.json";
  fs::create_directories(path);
  try {
    aw::load_config(path);
    FAIL() << "expected an Error";
  } catch (const aw::Error& e) {
    EXPECT_EQ(e.code(), aw::ErrorCode::bad_request);
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST_F(ConfigTest, RemoveReportsWhetherThereWasALogin) {
  const fs::path path = dir_ / "config.json";
  aw::save_config(path, sample());
  EXPECT_TRUE(aw::remove_config(path));
  EXPECT_FALSE(aw::remove_config(path));
  EXPECT_FALSE(aw::load_config(path).has_value());
}

TEST_F(ConfigTest, JsonNeverNeedsUnknownFields) {
  // Older or newer writers may add fields; they are ignored, not fatal.
  const fs::path path = dir_ / "config.json";
  write(path, R"({"server_url":"http://x:1","token":"t","future_field":{"a":1}})");
  auto c = aw::load_config(path);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->server_url, "http://x:1");
  EXPECT_FALSE(c->embedded);
}

}  // namespace
