// SSE parser: WHATWG "interpreting an event stream" rules, incremental feeding and
// bounded memory. The attachment stream (docs/protocol.md, "Attachment stream (SSE)")
// is read with this parser by the bridge and the benchmark.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "agentworks/sse_parser.hpp"

namespace aw = agentworks;

namespace {

// Everything the parser reported, in order, as text so whole runs compare with ==.
struct Recorder {
  std::vector<std::string> log;
  std::vector<aw::SseEvent> events;

  aw::SseParser make(std::size_t max_bytes = aw::SseParser::kDefaultMaxBytes) {
    aw::SseParser parser(
        [this](const aw::SseEvent& e) {
          events.push_back(e);
          log.push_back("event type=" + e.type + " id=" + e.id + (e.has_id ? "(own)" : "") + " data=" + e.data);
        },
        max_bytes);
    parser.set_retry_handler([this](std::uint64_t ms) { log.push_back("retry " + std::to_string(ms)); });
    parser.set_comment_handler([this](std::string_view text) { log.push_back("comment " + std::string(text)); });
    return parser;
  }
};

std::vector<aw::SseEvent> parse_all(std::string_view stream) {
  Recorder rec;
  auto parser = rec.make();
  EXPECT_TRUE(parser.feed(stream));
  parser.finish();
  return rec.events;
}

// A stream shaped like the server's attachment stream, exercising every rule: BOM,
// all three line ends, comments, retry, multi-line data, ids, an event with no data,
// a NUL id, unknown fields and a field without a colon.
constexpr char kSampleBytes[] =
    "\xEF\xBB\xBF"
    "retry: 1000\r\n"
    "event: ready\r\n"
    "data: {\"attachment_id\":\"att_1\",\"cursor\":\"m0\"}\r\n"
    "\r\n"
    ": hb\n"
    "id: m1\n"
    "event: message\n"
    "data: first line\n"
    "data:second line\n"
    "data\n"
    "\n"
    "id: m2\r"
    "data: cr only\r"
    "\r"
    "event: lonely\n"
    "\n"
    "id: bad\0id\n"
    "unknown: x\n"
    "retry: 12a\n"
    "data:  two spaces\n"
    "\n"
    "event: fenced\r\n"
    "data: {\"reason\":\"superseded\"}\r\n"
    "\r\n"
    "data: never finished\n";
// Built with its full length: the sample contains a NUL byte.
const std::string kSample(kSampleBytes, sizeof(kSampleBytes) - 1);

}  // namespace

TEST(SseParser, ParsesTheSampleStream) {
  Recorder rec;
  auto parser = rec.make();
  ASSERT_TRUE(parser.feed(kSample));
  parser.finish();
  const std::vector<std::string> expected = {
      "retry 1000",
      "event type=ready id= data={\"attachment_id\":\"att_1\",\"cursor\":\"m0\"}",
      "comment  hb",
      "event type=message id=m1(own) data=first line\nsecond line\n",
      "event type=message id=m2(own) data=cr only",
      "event type=message id=m2 data= two spaces",
      "event type=fenced id=m2 data={\"reason\":\"superseded\"}",
  };
  EXPECT_EQ(rec.log, expected);
  EXPECT_EQ(parser.last_event_id(), "m2");
  ASSERT_TRUE(parser.retry_ms().has_value());
  EXPECT_EQ(*parser.retry_ms(), 1000u);
}

TEST(SseParser, EverySplitPointGivesTheSameResult) {
  const std::string_view sample(kSample.data(), kSample.size());
  Recorder whole;
  {
    auto parser = whole.make();
    ASSERT_TRUE(parser.feed(sample));
    parser.finish();
  }
  ASSERT_EQ(whole.events.size(), 5u);
  // One split at every offset (including mid-BOM and between CR and LF).
  for (std::size_t cut = 0; cut <= sample.size(); ++cut) {
    Recorder rec;
    auto parser = rec.make();
    ASSERT_TRUE(parser.feed(sample.substr(0, cut)));
    ASSERT_TRUE(parser.feed(sample.substr(cut)));
    parser.finish();
    EXPECT_EQ(rec.log, whole.log) << "split at byte " << cut;
  }
  // Two splits at every pair of offsets.
  for (std::size_t a = 0; a <= sample.size(); ++a) {
    for (std::size_t b = a; b <= sample.size(); b += 7) {
      Recorder rec;
      auto parser = rec.make();
      parser.feed(sample.substr(0, a));
      parser.feed(sample.substr(a, b - a));
      parser.feed(sample.substr(b));
      parser.finish();
      ASSERT_EQ(rec.log, whole.log) << "splits at bytes " << a << " and " << b;
    }
  }
  // One byte at a time.
  Recorder bytewise;
  auto parser = bytewise.make();
  for (char c : sample) ASSERT_TRUE(parser.feed(std::string_view(&c, 1)));
  parser.finish();
  EXPECT_EQ(bytewise.log, whole.log);
}

TEST(SseParser, AllLineEndingsAreEquivalent) {
  for (std::string_view eol : {"\n", "\r", "\r\n"}) {
    std::string stream;
    for (std::string_view line : {"event: a", "data: x", "data: y", "", "data: z", ""}) {
      stream.append(line).append(eol);
    }
    const auto events = parse_all(stream);
    ASSERT_EQ(events.size(), 2u) << "eol size " << eol.size();
    EXPECT_EQ(events[0].type, "a");
    EXPECT_EQ(events[0].data, "x\ny");
    EXPECT_EQ(events[1].type, "message");
    EXPECT_EQ(events[1].data, "z");
  }
}

TEST(SseParser, CrThenLfInNextChunkIsOneLineEnd) {
  Recorder rec;
  auto parser = rec.make();
  parser.feed("data: a\r");
  parser.feed("\n\r");  // LF completes the CRLF; the following CR is the blank line
  parser.feed("\ndata: b\r\n\r\n");
  parser.finish();
  ASSERT_EQ(rec.events.size(), 2u);
  EXPECT_EQ(rec.events[0].data, "a");
  EXPECT_EQ(rec.events[1].data, "b");
}

TEST(SseParser, LfCrIsTwoLineEnds) {
  const auto events = parse_all("data: a\n\rdata: b\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, "a");
  EXPECT_EQ(events[1].data, "b");
}

TEST(SseParser, CommentsAreReportedAndNeverDispatched) {
  Recorder rec;
  auto parser = rec.make();
  parser.feed(": hb\n:\n:: x\n\n");
  parser.finish();
  EXPECT_TRUE(rec.events.empty());
  const std::vector<std::string> expected = {"comment  hb", "comment ", "comment : x"};
  EXPECT_EQ(rec.log, expected);
  EXPECT_EQ(parser.bytes_received(), 13u);  // liveness counts every byte
}

TEST(SseParser, CommentsWithoutHandlerAreIgnored) {
  std::vector<aw::SseEvent> events;
  aw::SseParser parser([&](const aw::SseEvent& e) { events.push_back(e); });
  EXPECT_TRUE(parser.feed(": hb\nretry: 5\ndata: x\n\n"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "x");
  EXPECT_EQ(parser.retry_ms(), 5u);
}

TEST(SseParser, RetryAcceptsOnlyAsciiDigits) {
  Recorder rec;
  auto parser = rec.make();
  parser.feed("retry: 2500\n");
  EXPECT_EQ(parser.retry_ms(), 2500u);
  for (std::string_view bad : {"retry: -1\n", "retry: 1.5\n", "retry: 12a\n", "retry:\n", "retry\n",
                               "retry:  7\n", "retry: 7 \n", "retry: \xd9\xa3\n"}) {
    parser.feed(bad);
    EXPECT_EQ(parser.retry_ms(), 2500u) << bad;
  }
  parser.feed("retry:0\n");
  EXPECT_EQ(parser.retry_ms(), 0u);
  parser.feed("retry: 99999999999999999999999999\n");  // saturates, no overflow
  EXPECT_EQ(parser.retry_ms(), UINT64_MAX);
  const std::vector<std::string> expected = {"retry 2500", "retry 0", "retry 18446744073709551615"};
  EXPECT_EQ(rec.log, expected);
  EXPECT_TRUE(rec.events.empty());  // retry alone dispatches nothing
}

TEST(SseParser, IdWithNulIsIgnored) {
  constexpr char bytes[] = "id: m1\ndata: a\n\nid: m\0002\ndata: b\n\n";
  const std::string stream(bytes, sizeof(bytes) - 1);
  const auto events = parse_all(stream);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].id, "m1");
  EXPECT_TRUE(events[0].has_id);
  EXPECT_EQ(events[1].id, "m1");
  EXPECT_FALSE(events[1].has_id);
}

TEST(SseParser, LastEventIdPersistsAndEmptyIdClearsIt) {
  Recorder rec;
  auto parser = rec.make();
  parser.feed("id: m7\ndata: a\n\ndata: b\n\n");
  ASSERT_EQ(rec.events.size(), 2u);
  EXPECT_EQ(rec.events[1].id, "m7");
  EXPECT_FALSE(rec.events[1].has_id);
  EXPECT_EQ(parser.last_event_id(), "m7");
  parser.feed("id\ndata: c\n\n");  // "id" with no value resets the id
  ASSERT_EQ(rec.events.size(), 3u);
  EXPECT_EQ(rec.events[2].id, "");
  EXPECT_TRUE(rec.events[2].has_id);
  EXPECT_EQ(parser.last_event_id(), "");
}

TEST(SseParser, IdWithoutDataUpdatesLastEventIdButDispatchesNothing) {
  Recorder rec;
  auto parser = rec.make();
  parser.feed("id: m9\n\n");
  EXPECT_TRUE(rec.events.empty());
  EXPECT_EQ(parser.last_event_id(), "m9");
}

TEST(SseParser, MultiLineDataJoinsWithNewlinesAndStripsOneTrailing) {
  const auto events = parse_all("data: a\ndata:\ndata: b\ndata\ndata: \n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a\n\nb\n\n");
}

TEST(SseParser, OnlyOneLeadingSpaceIsRemoved) {
  const auto events = parse_all("data:   x  \nevent:  spaced\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "  x  ");
  EXPECT_EQ(events[0].type, " spaced");
}

TEST(SseParser, ValueMayContainColons) {
  const auto events = parse_all("data: {\"a\":\"b:c\"}\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "{\"a\":\"b:c\"}");
}

TEST(SseParser, EventWithoutDataIsNotDispatchedAndTypeResets) {
  const auto events = parse_all("event: ping\n\ndata: x\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "message");  // the type of the empty block did not leak
  EXPECT_EQ(events[0].data, "x");
}

TEST(SseParser, EmptyEventFieldMeansMessage) {
  const auto events = parse_all("event:\ndata: x\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "message");
}

TEST(SseParser, FieldNamesAreCaseSensitiveAndUnknownOnesIgnored) {
  const auto events = parse_all("Data: no\nEVENT: no\nfoo: bar\ndata: yes\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "message");
  EXPECT_EQ(events[0].data, "yes");
}

TEST(SseParser, UnfinishedEventAtEofIsDiscarded) {
  Recorder rec;
  auto parser = rec.make();
  parser.feed("data: done\n\nid: m5\ndata: half\n");
  parser.finish();
  ASSERT_EQ(rec.events.size(), 1u);
  EXPECT_EQ(rec.events[0].data, "done");
  EXPECT_EQ(parser.last_event_id(), "");  // the half block's id never became the stream's id
  parser.feed("data: half line without end");
  parser.finish();
  EXPECT_EQ(rec.events.size(), 1u);
}

TEST(SseParser, FinishStartsANewStreamKeepingLastEventId) {
  Recorder rec;
  auto parser = rec.make();
  parser.feed("retry: 300\nid: m3\ndata: a\n\ndata: partial");
  parser.finish();
  // Next connection: the partial data must not leak, a BOM is accepted again, and an
  // event without id keeps the resume point.
  parser.feed("\xEF\xBB\xBF" "event: ready\ndata: r\n\n");
  ASSERT_EQ(rec.events.size(), 2u);
  EXPECT_EQ(rec.events[1].type, "ready");
  EXPECT_EQ(rec.events[1].data, "r");
  EXPECT_EQ(rec.events[1].id, "m3");
  EXPECT_EQ(parser.last_event_id(), "m3");
  EXPECT_EQ(parser.retry_ms(), 300u);
}

TEST(SseParser, LeadingBomIsIgnoredOnce) {
  const auto events = parse_all("\xEF\xBB\xBF" "data: a\n\n\xEF\xBB\xBF" "data: b\n\n");
  ASSERT_EQ(events.size(), 1u);  // the second BOM is part of the field name "\uFEFFdata"
  EXPECT_EQ(events[0].data, "a");
  const auto twice = parse_all("\xEF\xBB\xBF\xEF\xBB\xBF" "data: a\n\n");
  EXPECT_TRUE(twice.empty());
}

TEST(SseParser, BomLookalikePrefixIsKept) {
  // A stream starting with part of a BOM then other bytes: the bytes are content.
  Recorder rec;
  auto parser = rec.make();
  parser.feed("\xEF");
  parser.feed("\xBB");
  parser.feed("X: 1\ndata: a\n\n");
  parser.finish();
  ASSERT_EQ(rec.events.size(), 1u);
  const auto events = parse_all("\xEF" "data: b\n\n");
  EXPECT_TRUE(events.empty());  // field name "\xEF" "data" is unknown
}

TEST(SseParser, OversizeLineFailsAndStopsConsuming) {
  Recorder rec;
  auto parser = rec.make(64);
  EXPECT_TRUE(parser.feed("data: ok\n\n"));
  EXPECT_FALSE(parser.feed(std::string(100, 'x')));  // no line end: would buffer forever
  EXPECT_TRUE(parser.failed());
  EXPECT_NE(parser.error().find("64"), std::string::npos);
  EXPECT_FALSE(parser.feed("data: later\n\n"));
  ASSERT_EQ(rec.events.size(), 1u);
  parser.finish();  // a new stream clears the error
  EXPECT_FALSE(parser.failed());
  EXPECT_TRUE(parser.feed("data: again\n\n"));
  EXPECT_EQ(rec.events.size(), 2u);
}

TEST(SseParser, OversizeLineAcrossManyChunksFails) {
  Recorder rec;
  auto parser = rec.make(64);
  bool ok = true;
  for (int i = 0; i < 100 && ok; ++i) ok = parser.feed("xxxxxxxx");
  EXPECT_FALSE(ok);
  EXPECT_TRUE(parser.failed());
}

TEST(SseParser, OversizeCompleteLineInOneChunkFails) {
  Recorder rec;
  auto parser = rec.make(64);
  EXPECT_FALSE(parser.feed("data: " + std::string(100, 'y') + "\n\n"));
  EXPECT_TRUE(rec.events.empty());
}

TEST(SseParser, OversizeEventFromManySmallLinesFails) {
  Recorder rec;
  auto parser = rec.make(64);
  bool ok = true;
  for (int i = 0; i < 20 && ok; ++i) ok = parser.feed("data: 0123456789\n");
  EXPECT_FALSE(ok);
  EXPECT_TRUE(rec.events.empty());
}

TEST(SseParser, EventJustUnderTheLimitPasses) {
  Recorder rec;
  auto parser = rec.make(64);
  // A 64-byte line ("data: " + 58 bytes) is exactly at the limit.
  EXPECT_TRUE(parser.feed("data: " + std::string(58, 'z') + "\n\n"));
  ASSERT_EQ(rec.events.size(), 1u);
  EXPECT_EQ(rec.events[0].data.size(), 58u);
}

TEST(SseParser, DefaultLimitIsOneMebibyte) {
  std::vector<aw::SseEvent> events;
  aw::SseParser parser([&](const aw::SseEvent& e) { events.push_back(e); });
  EXPECT_TRUE(parser.feed("data: " + std::string(1000 * 1000, 'a') + "\n\n"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_FALSE(parser.feed("data: " + std::string(1100 * 1000, 'a') + "\n\n"));
}

TEST(SseParser, RandomGarbageNeverCrashes) {
  std::uint32_t state = 12345;
  std::string garbage;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    const char alphabet[] = {'\r', '\n', ':', ' ', 'd', 'a', 't', 'i', 'e', 'v', 'n', '\0', '\xEF', '9'};
    garbage.push_back(alphabet[(state >> 16) % sizeof(alphabet)]);
  }
  std::size_t count = 0;
  aw::SseParser parser([&](const aw::SseEvent&) { ++count; }, 4096);
  std::size_t pos = 0;
  while (pos < garbage.size()) {
    const std::size_t n = std::min<std::size_t>(garbage.size() - pos, 1 + pos % 37);
    parser.feed(std::string_view(garbage).substr(pos, n));
    pos += n;
  }
  parser.finish();
  SUCCEED();
}
