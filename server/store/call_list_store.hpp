// The recent-calls list (GET /v1/calls): one page of the calls a connection may see, newest first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/function_records.hpp"
#include "store/records.hpp"

namespace agentworks::server {

class Store;

struct CallListQuery {
  std::optional<std::int64_t> before;  // only calls older than this list key (a page's next_cursor)
  std::string crew;                    // "" for every Crew; else a Crew name (folded) or a crew_id
  int limit = 20;
};

struct CallListPage {
  std::vector<CallSummary> calls;
  std::optional<std::int64_t> next_before;  // set when older calls remain
};

// A login connection sees the calls its account made and the calls of Crews its account owns; a child connection
// only the calls it made itself.
CallListPage list_calls(Store& store, const Connection& caller, const CallListQuery& query);

}  // namespace agentworks::server
