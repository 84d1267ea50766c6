// A private temp directory that stands in for the user's home: HOME and every XDG base directory point inside
// it, so programs started with env() read and write nothing of the real user's. Removed on destruction
// (kept when AGENTWORKS_KEEP_TEST_DIRS is set, for debugging).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "testing/process.hpp"

namespace agentworks::testing {

// mkdtemp under `parent` (empty: $TMPDIR, or /tmp); short paths keep Unix socket paths under 108 bytes.
std::filesystem::path make_temp_dir(const std::string& prefix = "aw-it-", const std::filesystem::path& parent = {});

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "aw-it-", const std::filesystem::path& parent = {});
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// HOME and every XDG base directory inside `root` (home, config, state, data, run: the TempHome layout);
// AGENTWORKS_CONFIG removed.
EnvOverrides home_env(const std::filesystem::path& root);

class ForeignBridge;

class TempHome {
 public:
  TempHome();
  // Under `parent` instead of $TMPDIR (the benchmarks' --data-parent, e.g. /dev/shm).
  explicit TempHome(const std::filesystem::path& parent, const std::string& prefix = "aw-it-");
  TempHome(const TempHome&) = delete;
  TempHome& operator=(const TempHome&) = delete;
  ~TempHome();

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path home() const { return root_ / "home"; }
  std::filesystem::path config_home() const { return root_ / "config"; }
  std::filesystem::path state_home() const { return root_ / "state"; }
  std::filesystem::path data_home() const { return root_ / "data"; }
  // XDG_RUNTIME_DIR: set, as on a desktop, with a foreign bridge planted at its agentworks/bridge.sock (see
  // foreign_bridge.hpp); the test fails when any program connects to it.
  std::filesystem::path runtime_dir() const { return root_ / "run"; }
  // Where the bridge's socket and lock live: ~/.local/state/agentworks/run, whatever XDG_* say.
  std::filesystem::path bridge_dir() const { return home() / ".local" / "state" / "agentworks" / "run"; }
  // The documented path, spelled here on purpose: the tests check the product against it (docs/architecture.md).
  std::filesystem::path bridge_socket() const { return bridge_dir() / "bridge.sock"; }
  // A scratch path inside the temp root (logs, extra configs, server data).
  std::filesystem::path path(const std::string& name) const { return root_ / name; }

  // HOME, XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR set; AGENTWORKS_CONFIG removed.
  EnvOverrides env() const;
  // Leaves the directory in place on destruction (a benchmark's --keep-home).
  void keep() { keep_ = true; }

 private:
  std::filesystem::path root_;
  bool keep_ = false;
  std::unique_ptr<ForeignBridge> foreign_;
};

}  // namespace agentworks::testing
