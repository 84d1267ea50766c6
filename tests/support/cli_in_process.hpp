// Runs the agentworks CLI in this process (its one dispatch point, run_cli) with stdout and stderr captured.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "command.hpp"

namespace agentworks::unit {

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

inline CliRun run_cli_captured(std::vector<std::string> args) {
  args.insert(args.begin(), "agentworks");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code = cli::run_cli(static_cast<int>(args.size()), argv.data());
  std::fflush(nullptr);
  return CliRun{code, ::testing::internal::GetCapturedStdout(), ::testing::internal::GetCapturedStderr()};
}

}  // namespace agentworks::unit
