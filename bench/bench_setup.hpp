// Registers the benchmark's receiver agents and gives each a current attachment.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "http_client.hpp"

namespace agentworks::bench {

struct BenchAgent {
  std::string name;
  std::string attachment_id;
};

// Registers `count` agents named prefix0, prefix1, … (re-registering is fine) and
// creates one attachment for each. Stops at the first failure with *error set.
bool setup_agents(HttpClient& client, const std::string& prefix, std::size_t count, std::vector<BenchAgent>* agents,
                  std::string* error);

}  // namespace agentworks::bench
