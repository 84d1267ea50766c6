// R-M4, R-M10: name and message rules.
#include <gtest/gtest.h>

#include <string>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"

namespace aw = agentworks;

TEST(Names, R_M4_AcceptsLettersDigitsDotUnderscoreHyphen) {
  EXPECT_TRUE(aw::valid_agent_name("reviewer"));
  EXPECT_TRUE(aw::valid_agent_name("Re.view_er-2"));
  EXPECT_TRUE(aw::valid_agent_name("9lives"));
  EXPECT_TRUE(aw::valid_agent_name(std::string(64, 'a')));
}

TEST(Names, R_M4_RejectsBadNames) {
  EXPECT_FALSE(aw::valid_agent_name(""));
  EXPECT_FALSE(aw::valid_agent_name(std::string(65, 'a')));
  EXPECT_FALSE(aw::valid_agent_name(".hidden"));
  EXPECT_FALSE(aw::valid_agent_name("-dash"));
  EXPECT_FALSE(aw::valid_agent_name("_under"));
  EXPECT_FALSE(aw::valid_agent_name("has space"));
  EXPECT_FALSE(aw::valid_agent_name("slash/name"));
  EXPECT_FALSE(aw::valid_agent_name("caf\xc3\xa9"));
}

TEST(Names, R_M4_FoldIsCaseInsensitive) { EXPECT_EQ(aw::fold_name("ReViewer"), "reviewer"); }

TEST(Messages, R_M10_CountsCodePointsNotBytes) {
  EXPECT_EQ(aw::utf8_length("abc"), 3u);
  EXPECT_EQ(aw::utf8_length("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), 3u);  // é € 😀
  std::string emoji;
  for (int i = 0; i < 20000; ++i) emoji += "\xf0\x9f\x98\x80";
  EXPECT_TRUE(aw::valid_message_text(emoji));  // 80,000 bytes but 20,000 characters
  EXPECT_FALSE(aw::valid_message_text(emoji + "x"));
  EXPECT_FALSE(aw::valid_message_text(""));
}

TEST(Messages, RejectsInvalidUtf8) {
  EXPECT_FALSE(aw::utf8_length("\xc3").has_value());          // truncated
  EXPECT_FALSE(aw::utf8_length("\xc0\xaf").has_value());      // overlong
  EXPECT_FALSE(aw::utf8_length("\xed\xa0\x80").has_value());  // surrogate
  EXPECT_FALSE(aw::utf8_length("\xf4\x90\x80\x80").has_value());  // > U+10FFFF
  EXPECT_FALSE(aw::utf8_length("\xff").has_value());
  EXPECT_FALSE(aw::utf8_length("a\xe2\x82").has_value());
}

TEST(ClientIds, PrintableAsciiUpTo200) {
  EXPECT_TRUE(aw::valid_client_id("sub-1"));
  EXPECT_FALSE(aw::valid_client_id(""));
  EXPECT_FALSE(aw::valid_client_id("has space"));
  EXPECT_FALSE(aw::valid_client_id(std::string(201, 'x')));
}

TEST(ErrorCodes, EveryCodeRoundTripsAndMapsToAnExitCode) {
  for (int i = 0; i <= static_cast<int>(aw::ErrorCode::usage); ++i) {
    const auto code = static_cast<aw::ErrorCode>(i);
    const auto name = aw::code_name(code);
    ASSERT_FALSE(name.empty());
    EXPECT_EQ(aw::parse_code(name), code) << name;
    EXPECT_GE(aw::http_status(code), 400);
    EXPECT_GT(aw::exit_code(code), 0);
  }
  EXPECT_FALSE(aw::parse_code("nope").has_value());
}
