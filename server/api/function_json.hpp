// JSON of Crews, functions and calls (docs/protocol.md, "Crews and functions").
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>

#include "store/function_records.hpp"

namespace agentworks::functions {
struct FunctionDecl;
}
namespace agentworks::server {
class Store;
}

namespace agentworks::server::api {

struct CallView {
  std::int64_t after = -1;        // messages after this seq
  int message_limit = 100;
  std::int64_t after_event = -1;  // events after this seq
  int event_limit = 50;
};

nlohmann::json function_json(const agentworks::functions::FunctionDecl& f);
nlohmann::json crew_json(Store& store, const Crew& crew, int max_running);
nlohmann::json call_json(Store& store, const CallRow& call, const CallView& view);
// One entry of the recent-calls list: the Call's own field names, plus who called.
nlohmann::json call_summary_json(const CallSummary& call);

}  // namespace agentworks::server::api
