// The scripts a person runs from the README: install-deps.sh installs for building alone unless the tests are
// asked for, and uninstall.sh removes exactly what install.sh recorded under its PREFIX.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "testing/process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {
namespace {

const std::string kSource = AGENTWORKS_SOURCE_DIR;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(PackagingScripts, InstallDepsInstallsTheTestToolchainOnlyForTheTests) {
  const ProcessResult build = run_process({kSource + "/packaging/install-deps.sh", "--list"});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  const auto build_list = lines_of(build.out);
  for (const char* needed : {"cmake", "ninja-build", "libuv1-dev", "libpq-dev", "libvalijson-dev"})
    EXPECT_TRUE(has(build_list, needed)) << needed << " is needed to build:\n" << build.out;
  for (const char* test_only : {"chromium", "postgresql-15", "libgtest-dev", "tmux", "clang", "lintian", "npm"})
    EXPECT_FALSE(has(build_list, test_only)) << test_only << " is only for the tests:\n" << build.out;

  const ProcessResult all = run_process({kSource + "/packaging/install-deps.sh", "--list", "--tests"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto all_list = lines_of(all.out);
  for (const auto& p : build_list) EXPECT_TRUE(has(all_list, p)) << p;
  for (const char* test_only : {"chromium", "postgresql-15", "libgtest-dev", "tmux", "npm"})
    EXPECT_TRUE(has(all_list, test_only)) << test_only << "\n" << all.out;

  const ProcessResult bad = run_process({kSource + "/packaging/install-deps.sh", "--everything"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown argument --everything"), std::string::npos) << bad.err;
}

TEST(PackagingScripts, UninstallRemovesWhatTheInstallRecordedUnderItsPrefixOnly) {
  TempHome home;
  const auto prefix = home.path("prefix");
  std::filesystem::create_directories(prefix / "bin");
  std::filesystem::create_directories(prefix / "share");
  RunOptions options;
  options.env = home.env();
  options.env["PREFIX"] = prefix.string();

  const ProcessResult nothing = run_process({kSource + "/packaging/uninstall.sh"}, options);
  EXPECT_EQ(nothing.exit_code, 4) << nothing.out << nothing.err;
  EXPECT_NE(nothing.err.find("nothing was installed into " + prefix.string()), std::string::npos) << nothing.err;

  const auto installed = prefix / "bin" / "agentworks-bridge";
  const auto other = prefix / "bin" / "someone-elses-tool";
  const auto outside = home.path("outside.txt");
  for (const auto& f : {installed, other, outside}) std::ofstream(f) << "x";
  std::ofstream(prefix / "share" / "agentworks-install-manifest.txt")
      << installed.string() << "\n" << outside.string() << "\n" << (prefix / "bin" / "gone-already").string() << "\n";
  const ProcessResult r = run_process({kSource + "/packaging/uninstall.sh"}, options);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("removed 1 files of agentworks from " + prefix.string()), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(installed));
  EXPECT_TRUE(std::filesystem::exists(other)) << "not in the list";
  EXPECT_TRUE(std::filesystem::exists(outside)) << "listed, but not under PREFIX";
  EXPECT_FALSE(std::filesystem::exists(prefix / "share" / "agentworks-install-manifest.txt"));
}

}  // namespace
}  // namespace agentworks::testing
