#include "testing/temp_home.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "testing/failure_report.hpp"
#include "testing/foreign_bridge.hpp"

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

fs::path make_temp_dir(const std::string& prefix, const fs::path& parent) {
  const char* tmp = std::getenv("TMPDIR");
  const fs::path base = !parent.empty() ? parent : (tmp != nullptr && tmp[0] == '/') ? fs::path(tmp) : fs::path("/tmp");
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return fs::path(buf.data());
}

TempDir::TempDir(const std::string& prefix, const fs::path& parent) : path_(make_temp_dir(prefix, parent)) {}
TempDir::~TempDir() { remove_tree(path_); }

TempHome::TempHome() : TempHome(fs::path()) {}

TempHome::TempHome(const fs::path& parent, const std::string& prefix) : root_(make_temp_dir(prefix, parent)) {
  for (const auto& dir : {home(), config_home(), state_home(), data_home(), runtime_dir()}) {
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
  }
  foreign_ = std::make_unique<ForeignBridge>(runtime_dir() / "agentworks" / "bridge.sock");
}

TempHome::~TempHome() {
  if (foreign_->connections() > 0) {
    report_failure(std::to_string(foreign_->connections()) + " connection(s) reached the foreign socket at " +
                   foreign_->socket().string() +
                   ": an agentworks program looked for its bridge under XDG_RUNTIME_DIR instead of " +
                   bridge_dir().string());
  }
  foreign_.reset();
  if (!keep_) remove_tree(root_);
}

EnvOverrides home_env(const fs::path& root) {
  return {
      {"HOME", (root / "home").string()},
      {"XDG_CONFIG_HOME", (root / "config").string()},
      {"XDG_STATE_HOME", (root / "state").string()},
      {"XDG_DATA_HOME", (root / "data").string()},
      {"XDG_RUNTIME_DIR", (root / "run").string()},
      {"AGENTWORKS_CONFIG", std::nullopt},
  };
}

EnvOverrides TempHome::env() const { return home_env(root_); }

}  // namespace agentworks::testing
