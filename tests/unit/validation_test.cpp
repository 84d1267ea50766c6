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

// R-M10: all-blank text is refused; white space around or inside real text is kept.
TEST(Messages, R_M10_RejectsBlankText) {
  for (const std::string blank : {" ", "   ", "\t\n\r\v\f", "\xC2\xA0", "\xC2\x85", "\xE1\x9A\x80",
                                  "\xE2\x80\x80\xE2\x80\x8A", "\xE2\x80\xA8\xE2\x80\xA9\xE2\x80\xAF",
                                  "\xE2\x81\x9F", "\xE3\x80\x80", " \n\xE3\x80\x80 "}) {
    EXPECT_TRUE(aw::blank_text(blank)) << blank;
    EXPECT_FALSE(aw::valid_message_text(blank)) << blank;
  }
  for (const std::string text : {"x", " x ", "\n\nok\n", ".", "\xE2\x80\x8B", "\xE2\x80\x90", "\xC2\xA1"}) {
    EXPECT_FALSE(aw::blank_text(text)) << text;
    EXPECT_TRUE(aw::valid_message_text(text)) << text;
  }
}

TEST(Messages, RejectsInvalidUtf8) {
  EXPECT_FALSE(aw::utf8_length("\xc3").has_value());          // truncated
  EXPECT_FALSE(aw::utf8_length("\xc0\xaf").has_value());      // overlong
  EXPECT_FALSE(aw::utf8_length("\xed\xa0\x80").has_value());  // surrogate
  EXPECT_FALSE(aw::utf8_length("\xf4\x90\x80\x80").has_value());  // > U+10FFFF
  EXPECT_FALSE(aw::utf8_length("\xff").has_value());
  EXPECT_FALSE(aw::utf8_length("a\xe2\x82").has_value());
}

// What a person typed is shown back safely: hidden characters escaped, invalid bytes shown, long text cut.
TEST(EchoTyped, EscapesHiddenCharactersAndTruncates) {
  EXPECT_EQ(aw::echo_typed("my agent"), "my agent");
  EXPECT_EQ(aw::echo_typed("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(aw::echo_typed("a\nb\x1b[2J"), "a\\u{A}b\\u{1B}[2J");
  EXPECT_EQ(aw::echo_typed("x\xE2\x80\xAEy"), "x\\u{202E}y");  // right-to-left override
  EXPECT_EQ(aw::echo_typed("\xFFz"), "\\xFFz");
  EXPECT_EQ(aw::echo_typed(std::string(70, 'n')), std::string(64, 'n').append("..."));
  EXPECT_EQ(aw::echo_typed("\xF0\x9F\x98\x80\xF0\x9F\x98\x80", 1), "\xF0\x9F\x98\x80...");
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
