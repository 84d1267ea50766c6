// {"pid","start"} of this test process: the provider ancestor of the CLI commands a test runs directly, so a test
// can attach a session for them (`start` is field 22 of /proc/self/stat, as the bridge stores it).
#pragma once

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "testing/process.hpp"

namespace agentworks::testing {

inline nlohmann::json own_process_key() {
  const std::string stat = read_file("/proc/self/stat");
  std::string rest = stat.substr(stat.rfind(')') + 2);
  int field = 3;
  std::size_t pos = 0;
  while (field < 22) {
    pos = rest.find(' ', pos) + 1;
    ++field;
  }
  return {{"pid", static_cast<long>(::getpid())}, {"start", rest.substr(pos, rest.find(' ', pos) - pos)}};
}

}  // namespace agentworks::testing
