// Route: the recent calls a connection may see, newest first, paged by an opaque cursor (GET /v1/calls).
#include <charconv>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "api/function_json.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "api/query_params.hpp"
#include "store/call_list_store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

constexpr int kDefaultCallListLimit = 20;
constexpr int kMaxCallListLimit = 100;

// "c<N>": the list key of the last call of the previous page.
std::int64_t parse_call_cursor(const std::string& text) {
  std::int64_t n = 0;
  const char* begin = text.data() + (text.empty() ? 0 : 1);
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, n);
  if (text.empty() || text[0] != 'c' || begin == end || ec != std::errc() || ptr != end || n < 1)
    throw Error(ErrorCode::bad_request, "before must be a cursor like c42, the next_cursor of an earlier page; got '" +
                                            echo_typed(text) + "'");
  return n;
}

bool crew_id_like(const std::string& s) { return s.rfind("crw_", 0) == 0 && valid_client_id(s); }

}  // namespace

Response list_calls(Ctx& c) {
  CallListQuery q;
  q.limit = static_cast<int>(int_query(c, "limit", 1, kMaxCallListLimit, kDefaultCallListLimit));
  if (const auto before = query_text(c, "before")) q.before = parse_call_cursor(*before);
  if (const auto crew = query_text(c, "crew")) {
    if (!valid_agent_name(*crew) && !crew_id_like(*crew))
      throw Error(ErrorCode::bad_request, "crew must be a Crew name (1-64 letters, digits, '.', '_', '-') or a "
                                          "crew_id (crw_…); got '" + echo_typed(*crew) + "'");
    q.crew = *crew;
  }
  const CallListPage page = server::list_calls(c.store, c.caller, q);
  json calls = json::array();
  for (const auto& s : page.calls) calls.push_back(call_summary_json(s));
  const json next = page.next_before ? json("c" + std::to_string(*page.next_before)) : json(nullptr);
  return json_reply(200, json{{"calls", calls}, {"next_cursor", next}});
}

}  // namespace agentworks::server::api
