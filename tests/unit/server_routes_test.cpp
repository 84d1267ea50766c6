// The server's one route table (checks happen once, at dispatch): no duplicates, help everywhere, matching works.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "http/route_table.hpp"

using agentworks::server::Auth;
using agentworks::server::match_route;
using agentworks::server::routes;

TEST(ServerRoutes, NoDuplicateMethodAndPattern) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : routes()) {
    EXPECT_TRUE(seen.emplace(r.method, r.pattern).second) << "duplicate route " << r.method << " " << r.pattern;
  }
}

TEST(ServerRoutes, EveryRouteHasHelpAndHandler) {
  for (const auto& r : routes()) {
    ASSERT_NE(r.help, nullptr) << r.pattern;
    EXPECT_GT(std::string(r.help).size(), 5U) << r.method << " " << r.pattern;
    EXPECT_NE(r.handler, nullptr) << r.pattern;
  }
}

TEST(ServerRoutes, OnlyHealthIsAnonymous) {
  for (const auto& r : routes()) {
    EXPECT_EQ(r.auth == Auth::none, std::string(r.pattern) == "/v1/health") << r.pattern;
  }
}

// Only an execution's own questions use its per-call secret (R-F1: answering grants no other authority).
// The per-call secret reaches only its execution's own routes: questions (R-F3) and the calls it makes (R-D4).
TEST(ServerRoutes, OnlyAnExecutionsOwnRoutesTakeTheCallSecret) {
  for (const auto& r : routes()) {
    const std::string pattern = r.pattern;
    const bool own = pattern.rfind("/v1/calls/{id}/questions", 0) == 0 || pattern == "/v1/calls/{id}/messages" ||
                     pattern == "/v1/calls/{id}/no-reply" ||
                     pattern.rfind("/v1/calls/{id}/crews/{crew}/", 0) == 0 ||
                     pattern.rfind("/v1/calls/{id}/calls/{call}", 0) == 0;
    EXPECT_EQ(r.auth == Auth::call, own) << pattern;
  }
}

// R-R2: a runner's connection reaches exactly the runner routes, and those take no other connection.
TEST(ServerRoutes, OnlyTheRunnerRoutesTakeARunnersConnection_RR2) {
  for (const auto& r : routes()) {
    const std::string pattern = r.pattern;
    EXPECT_EQ(r.auth == Auth::runner, pattern.rfind("/v1/runners/{crew}/", 0) == 0) << pattern;
  }
}

TEST(ServerRoutes, MatchesPatternsAndExtractsParams) {
  std::vector<std::string> params;
  const auto* r = match_route("GET", "/v1/attachments/att_1/stream", params);
  ASSERT_NE(r, nullptr);
  EXPECT_STREQ(r->pattern, "/v1/attachments/{id}/stream");
  ASSERT_EQ(params.size(), 1U);
  EXPECT_EQ(params[0], "att_1");

  r = match_route("DELETE", "/v1/agents/reviewer", params);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(params.at(0), "reviewer");

  EXPECT_EQ(match_route("PUT", "/v1/agents", params), nullptr);
  EXPECT_EQ(match_route("GET", "/v1/agents/", params), nullptr);
  EXPECT_EQ(match_route("GET", "/v1/nope", params), nullptr);
  EXPECT_EQ(match_route("GET", "", params), nullptr);
}
