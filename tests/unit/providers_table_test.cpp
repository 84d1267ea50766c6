// The one table of providers (agentworks/providers.hpp): names round-trip, every enumerator has its row, and the
// names the CLI (`agentworks attach PROVIDER`) and the hook (`agentworks-hook PROVIDER EVENT`) accept are exactly
// the table's.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "agentworks/error.hpp"
#include "agentworks/providers.hpp"
#include "hook_env.hpp"
#include "install/installer.hpp"

namespace aw = agentworks;

TEST(ProvidersTable, NamesRoundTrip) {
  std::set<std::string_view> names;
  int index = 0;
  for (const auto& row : aw::kProviders) {
    EXPECT_EQ(static_cast<int>(row.provider), index++) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " twice";
    EXPECT_EQ(&aw::provider_info(row.provider), &row);
    EXPECT_EQ(aw::provider_name(row.provider), row.name);
    ASSERT_TRUE(aw::provider_from_name(row.name).has_value()) << row.name;
    EXPECT_EQ(*aw::provider_from_name(row.name), row.provider);
    EXPECT_TRUE(aw::is_provider(row.name, row.provider));
    EXPECT_EQ(aw::command_word_for(row.name), row.command_word);
    EXPECT_EQ(aw::native_route_of(row.name), row.native_route);
    EXPECT_FALSE(row.display_name.empty()) << row.name;
    EXPECT_FALSE(row.short_name.empty()) << row.name;
  }
  EXPECT_EQ(names, (std::set<std::string_view>{"claude", "codex", "cursor", "pi"}));
}

TEST(ProvidersTable, OnlyExactNamesResolve) {
  for (const std::string_view other : {"", "Claude", "CODEX", " cursor", "claude ", "gemini", "claude-code"}) {
    EXPECT_FALSE(aw::provider_from_name(other).has_value()) << "'" << other << "'";
    EXPECT_EQ(aw::command_word_for(other), aw::kDefaultCommandWord) << "'" << other << "'";
    EXPECT_EQ(aw::native_route_of(other), aw::NativeRoute::none) << "'" << other << "'";
  }
}

TEST(ProvidersTable, RowsHoldWhatTheProgramsSpelledOutPerProvider) {
  const auto& claude = aw::provider_info(aw::Provider::claude);
  const auto& codex = aw::provider_info(aw::Provider::codex);
  const auto& cursor = aw::provider_info(aw::Provider::cursor);
  EXPECT_STREQ(claude.home_variable, "CLAUDE_CONFIG_DIR");
  EXPECT_STREQ(codex.home_variable, "CODEX_HOME");
  EXPECT_EQ(cursor.home_variable, nullptr);
  EXPECT_EQ(claude.command_word, "/agentworks");
  EXPECT_EQ(codex.command_word, "agentworks");
  EXPECT_EQ(cursor.command_word, "/agentworks");
  EXPECT_EQ(aw::route_name(claude.native_route), "claude-inbox");
  EXPECT_EQ(aw::route_name(codex.native_route), "codex-queue");
  EXPECT_EQ(aw::route_name(cursor.native_route), "stop-hook");
}

TEST(ProvidersTable, EveryNameTheCliAcceptsResolves) {
  aw::cli::install::InstallOptions options;
  options.project = "/nonexistent/project";
  for (const auto& row : aw::kProviders) {
    const auto installer = aw::cli::install::make_installer(std::string(row.name), options);
    ASSERT_NE(installer, nullptr) << row.name;
    EXPECT_EQ(installer->display_name(), row.display_name);
  }
  for (const std::string other : {"", "Claude", "gemini"}) {
    try {
      (void)aw::cli::install::make_installer(other, options);
      ADD_FAILURE() << "'" << other << "' was accepted";
    } catch (const aw::Error& e) {
      EXPECT_EQ(e.code(), aw::ErrorCode::usage);
    }
  }
}

TEST(ProvidersTable, EveryNameTheHookAcceptsHasItsHomeVariable) {
  for (const auto& row : aw::kProviders) {
    const char* var = aw::hook::provider_home_variable(row.name);
    if (row.home_variable == nullptr) {
      EXPECT_EQ(var, nullptr) << row.name;
    } else {
      EXPECT_STREQ(var, row.home_variable) << row.name;
    }
  }
  EXPECT_EQ(aw::hook::provider_home_variable("gemini"), nullptr);
}
