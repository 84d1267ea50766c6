// what the server and the bridge keep on disk stays private whatever the umask and whatever a person
// or a tool did to the files: a --data directory others may write to is refused, one others may read is
// tightened, a loosened owner.token is tightened at the next start, and the bridge's log is born 0600 even
// under umask 000 (R-B9: the cache is private).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/wait.hpp"
#include "testing/binaries.hpp"
#include "testing/process.hpp"
#include "testing/server_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/test_store.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// Restores the test process's umask when the test ends; children inherit the one set here.
class UmaskScope {
 public:
  explicit UmaskScope(mode_t mask) : old_(::umask(mask)) {}
  UmaskScope(const UmaskScope&) = delete;
  UmaskScope& operator=(const UmaskScope&) = delete;
  ~UmaskScope() { ::umask(old_); }

 private:
  mode_t old_;
};

TEST(PrivateFiles, DataDirWritableByOthersIsRefused) {
  const TempDir root;
  const fs::path data = root.path() / "data";
  fs::create_directory(data);
  ASSERT_EQ(::chmod(data.c_str(), 0777), 0);
  RunOptions o;
  o.timeout = std::chrono::seconds(20);
  const auto r = run_process({server_binary(), "--data", data.string(), "--listen", "127.0.0.1:0"}, o);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("refusing --data"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("chmod 700"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(data / "server.db")) << "nothing is created in a refused directory";
  EXPECT_FALSE(fs::exists(data / "owner.token"));
}

TEST(PrivateFiles, ReadableDataDirAndLoosenedOwnerTokenAreTightened) {
  const TempDir root;
  const fs::path data = root.path() / "data";
  fs::create_directory(data);
  ASSERT_EQ(::chmod(data.c_str(), 0755), 0);
  ServerOptions options;
  options.data_dir = data;
  ServerProcess server(options);
  EXPECT_EQ(mode_of(data), 0700u);
  ASSERT_FALSE(server.owner_token().empty());
  EXPECT_EQ(mode_of(data / "owner.token"), 0600u);
  if (store_is_postgresql()) {
    // pg.* run: the store is a PostgreSQL database, and a SQLite file beside it would be a silent second store.
    EXPECT_FALSE(fs::exists(data / "server.db")) << "--store postgresql://... creates no server.db";
  } else {
    EXPECT_EQ(mode_of(data / "server.db"), 0600u);
  }
  server.kill();
  ASSERT_EQ(::chmod((data / "owner.token").c_str(), 0644), 0);
  server.start();
  EXPECT_EQ(mode_of(data / "owner.token"), 0600u) << server.log();
  EXPECT_NE(server.log().find("tightened"), std::string::npos) << server.log();
}

TEST(PrivateFiles, BridgeFilesArePrivateUnderUmask000_RB9) {
  const UmaskScope loose(0);
  TempHome home;
  BridgeProcess bridge(home);
  bridge.start();
  const fs::path state = home.state_home() / "agentworks";
  EXPECT_EQ(mode_of(state / "bridge.log"), 0600u);
  EXPECT_EQ(mode_of(state / "journal.db"), 0600u);
  EXPECT_EQ(mode_of(home.bridge_socket()), 0600u);
  EXPECT_EQ(bridge.stop(), 0);
}

}  // namespace
}  // namespace agentworks::testing
