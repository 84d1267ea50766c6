// The one spelling of a moment (agentworks/utc_time.hpp): RFC 3339 in UTC out, RFC 3339 with a zone in; anything
// else is refused rather than guessed (a wakeup's `at`, R-W1).
#include <gtest/gtest.h>

#include "agentworks/utc_time.hpp"

namespace agentworks {
namespace {

TEST(UtcTime, WritesUtcAndReadsItBack_RW1) {
  EXPECT_EQ(utc_text(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(utc_text(1796533331), "2026-12-06T05:02:11Z");
  for (const std::int64_t t : {0LL, 951782400LL, 1796533331LL, 4102444799LL})
    EXPECT_EQ(parse_utc_text(utc_text(t)), t) << t;
}

TEST(UtcTime, ReadsZonesFractionsAndTheAcceptedSeparators_RW1) {
  EXPECT_EQ(parse_utc_text("2026-12-06T06:02:11+01:00"), 1796533331);
  EXPECT_EQ(parse_utc_text("2026-12-06T00:02:11-05:00"), 1796533331);
  EXPECT_EQ(parse_utc_text("2026-12-06T05:02:11.987Z"), 1796533331) << "fractions are dropped";
  EXPECT_EQ(parse_utc_text("2026-12-06t05:02:11z"), 1796533331);
  EXPECT_EQ(parse_utc_text("2026-12-06 05:02:11Z"), 1796533331);
  EXPECT_EQ(parse_utc_text("2024-02-29T00:00:00Z"), 1709164800) << "a leap day";
}

TEST(UtcTime, RefusesWhatNamesNoMoment_RW1) {
  for (const char* bad : {"", "tomorrow", "2026-12-06", "2026-12-06T05:02:11", "2026-12-06T05:02Z",
                          "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-12-32T00:00:00Z",
                          "2026-12-06T24:00:00Z", "2026-12-06T05:60:00Z", "2026-12-06T05:02:11.Z",
                          "2026-12-06T05:02:11+0100", "2026-12-06T05:02:11+24:00", "2026-12-06T05:02:11Zjunk",
                          " 2026-12-06T05:02:11Z", "2026-12-06T05:02:11 Z", "２026-12-06T05:02:11Z"})
    EXPECT_FALSE(parse_utc_text(bad).has_value()) << bad;
}

}  // namespace
}  // namespace agentworks
