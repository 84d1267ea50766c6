#include "harness/temp_home.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "harness/foreign_bridge.hpp"

namespace agentworks::testing {
namespace fs = std::filesystem;

namespace {
bool keep_dirs() {
  const char* keep = std::getenv("AGENTWORKS_KEEP_TEST_DIRS");
  return keep != nullptr && keep[0] != '\0';
}
void remove_tree(const fs::path& path) {
  if (path.empty() || keep_dirs()) return;
  std::error_code ec;
  fs::remove_all(path, ec);
}
}  // namespace

fs::path make_temp_dir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  const fs::path base = (tmp != nullptr && tmp[0] == '/') ? fs::path(tmp) : fs::path("/tmp");
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return fs::path(buf.data());
}

TempDir::TempDir(const std::string& prefix) : path_(make_temp_dir(prefix)) {}
TempDir::~TempDir() { remove_tree(path_); }

TempHome::TempHome() : root_(make_temp_dir()) {
  for (const auto& dir : {home(), config_home(), state_home(), data_home(), runtime_dir()}) {
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
  }
  foreign_ = std::make_unique<ForeignBridge>(runtime_dir() / "agentworks" / "bridge.sock");
}

TempHome::~TempHome() {
  if (foreign_->connections() > 0) {
    ADD_FAILURE() << foreign_->connections() << " connection(s) reached the foreign socket at "
                  << foreign_->socket().string()
                  << ": an agentworks program looked for its bridge under XDG_RUNTIME_DIR instead of "
                  << bridge_dir().string();
  }
  foreign_.reset();
  remove_tree(root_);
}

EnvOverrides TempHome::env() const {
  return {
      {"HOME", home().string()},
      {"XDG_CONFIG_HOME", config_home().string()},
      {"XDG_STATE_HOME", state_home().string()},
      {"XDG_DATA_HOME", data_home().string()},
      {"XDG_RUNTIME_DIR", runtime_dir().string()},
      {"AGENTWORKS_CONFIG", std::nullopt},
  };
}

}  // namespace agentworks::testing
