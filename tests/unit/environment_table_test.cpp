// The one table of AGENTWORKS_* variables: in enum order, every name once, each documented in
// docs/operations.md ("Environment") with its default, and no program reads one by a literal name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "agentworks/environment.hpp"

namespace aw = agentworks;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

TEST(EnvironmentTable, RowsAreInEnumOrderAndNamesAreUnique) {
  std::set<std::string_view> names;
  int index = 0;
  for (const auto& row : aw::env::table()) {
    EXPECT_EQ(static_cast<int>(row.var), index++) << row.name;
    EXPECT_TRUE(row.name.starts_with("AGENTWORKS_")) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " twice";
    EXPECT_FALSE(row.purpose.empty()) << row.name;
    EXPECT_EQ(&aw::env::info(row.var), &row);
  }
}

TEST(EnvironmentTable, OperationsDocListsEveryVariableWithItsDefault) {
  const std::string doc = read_file(AGENTWORKS_SOURCE_DIR "/docs/operations.md");
  ASSERT_FALSE(doc.empty()) << "cannot read docs/operations.md";
  std::set<std::string> documented;
  const std::regex row(R"(\n\| `(AGENTWORKS_[A-Z_]+)` \| ([^|]+) \|)");
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it) documented.insert((*it)[1].str());
  for (const auto& var : aw::env::table()) {
    EXPECT_TRUE(documented.erase(std::string(var.name)) == 1) << var.name << " is not in docs/operations.md";
  }
  for (const auto& extra : documented) ADD_FAILURE() << "docs/operations.md lists " << extra << ", which no program reads";
}

TEST(EnvironmentTable, NoProgramReadsAnAgentworksVariableByALiteralName) {
  const std::regex literal_read(R"(getenv\(\s*"AGENTWORKS_)");
  for (const char* folder : {"common", "cli", "daemon", "server", "hooks"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(AGENTWORKS_SOURCE_DIR) / folder)) {
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".hpp") continue;
      EXPECT_FALSE(std::regex_search(read_file(entry.path()), literal_read))
          << entry.path() << " reads an AGENTWORKS_* variable with std::getenv; add it to common/src/environment.cpp";
    }
  }
}

TEST(EnvironmentTable, EmptyValueCountsAsUnset) {
  ::setenv("AGENTWORKS_NOTIFY_AFTER_MS", "", 1);
  EXPECT_EQ(aw::env::get(aw::env::Var::notify_after_ms), nullptr);
  ::setenv("AGENTWORKS_NOTIFY_AFTER_MS", "5", 1);
  ASSERT_NE(aw::env::get(aw::env::Var::notify_after_ms), nullptr);
  EXPECT_STREQ(aw::env::get(aw::env::Var::notify_after_ms), "5");
  ::unsetenv("AGENTWORKS_NOTIFY_AFTER_MS");
  EXPECT_EQ(aw::env::get(aw::env::Var::notify_after_ms), nullptr);
}
