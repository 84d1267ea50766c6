// The SSE parser reads what the server (or anything posing as it) streams. Invariants: no crash or leak;
// feeding the same bytes in any split gives the same events, ids and state as feeding them whole (bytes can
// arrive split anywhere, even between CR and LF); the bounded buffers never let a pending event grow past the
// limit; a failed parser stays failed until finish().
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "agentworks/sse_parser.hpp"
#include "fuzz_check.hpp"

namespace {

constexpr std::size_t kMaxBytes = 4096;  // small, so the over-long paths are reached

struct Run {
  std::vector<agentworks::SseEvent> events;
  std::vector<std::uint64_t> retries;
  std::vector<std::string> comments;
  bool failed = false;
  std::string last_id;
};

Run run(const std::vector<std::string>& chunks) {
  Run r;
  agentworks::SseParser p([&](const agentworks::SseEvent& e) { r.events.push_back(e); }, kMaxBytes);
  p.set_retry_handler([&](std::uint64_t ms) { r.retries.push_back(ms); });
  p.set_comment_handler([&](std::string_view c) { r.comments.emplace_back(c); });
  bool was_failed = false;
  for (const auto& c : chunks) {
    const bool ok = p.feed(c);
    FUZZ_CHECK(ok == !p.failed(), "feed() result matches failed()");
    FUZZ_CHECK(!was_failed || p.failed(), "a failed parser stays failed");
    was_failed = p.failed();
  }
  r.failed = p.failed();
  r.last_id = p.last_event_id();
  for (const auto& e : r.events) {
    FUZZ_CHECK(e.data.size() + e.type.size() + e.id.size() <= kMaxBytes, "an event never exceeds the limit");
    FUZZ_CHECK(e.id.find('\0') == std::string::npos, "an id never holds NUL");
  }
  p.finish();
  FUZZ_CHECK(!p.failed(), "finish() clears the error");
  return r;
}

bool same(const agentworks::SseEvent& a, const agentworks::SseEvent& b) {
  return a.type == b.type && a.data == b.data && a.id == b.id && a.has_id == b.has_id;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // The first bytes choose the split points; the rest is the stream.
  std::vector<std::size_t> cuts;
  const std::size_t ncuts = in.ConsumeIntegralInRange<std::size_t>(0, 16);
  for (std::size_t i = 0; i < ncuts; ++i) cuts.push_back(in.ConsumeIntegralInRange<std::size_t>(0, 64));
  const std::string stream = in.ConsumeRemainingBytesAsString();

  std::vector<std::string> split;
  std::size_t at = 0;
  for (const std::size_t len : cuts) {
    if (at >= stream.size()) break;
    split.push_back(stream.substr(at, len));
    at += len;
  }
  if (at < stream.size()) split.push_back(stream.substr(at));

  const Run whole = run({stream});
  const Run parts = run(split);
  FUZZ_CHECK(whole.failed == parts.failed, "the split does not change failure");
  if (whole.failed) return 0;  // where an error stops reading may depend on the split
  FUZZ_CHECK(whole.events.size() == parts.events.size(), "the split does not change the event count");
  for (std::size_t i = 0; i < whole.events.size(); ++i)
    FUZZ_CHECK(same(whole.events[i], parts.events[i]), "the split does not change an event");
  FUZZ_CHECK(whole.retries == parts.retries, "the split does not change retry fields");
  FUZZ_CHECK(whole.comments == parts.comments, "the split does not change comments");
  FUZZ_CHECK(whole.last_id == parts.last_id, "the split does not change the last event id");
  return 0;
}
