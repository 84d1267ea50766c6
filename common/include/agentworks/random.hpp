// Unpredictable ids and tokens from the kernel's CSPRNG (getrandom).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agentworks {

// `bytes` random bytes as lower-case hex.
std::string random_hex(std::size_t bytes);
// prefix + "_" + 24 hex characters, e.g. "msg_3f9a…". Used for every server and bridge id.
std::string new_id(std::string_view prefix);
// The same shape, time first: 12 hex characters of the milliseconds since the epoch, then 12 random ones (48 bits).
// For ids of rows inserted without end (messages): a B-tree keyed by them grows at its right edge, so an insert
// touches the same few pages however many rows the table holds, where a random id lands on a cold page once the
// index outgrows the cache (docs/benchmarks.md, "Cost per send against history").
std::string new_time_ordered_id(std::string_view prefix);

}  // namespace agentworks
