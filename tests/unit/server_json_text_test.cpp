// The message JSON the server writes directly (server/api/json_text.hpp, message_text): the same text dump()
// gives the same object, valid JSON for any stored bytes, and the exact string back for valid UTF-8.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "api/json_out.hpp"
#include "api/json_text.hpp"
#include "api/page.hpp"

namespace agentworks::server {
namespace {

std::string as_json(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

// What dump() makes of a string: the rendering the direct writer must match.
std::string dumped(const std::string& s) { return dump(nlohmann::json(s)); }

TEST(JsonTextTest, EscapesLikeDumpForEveryKindOfCharacter) {
  for (const std::string& s : {std::string(""), std::string("plain"), std::string("quote \" and \\ backslash"),
                              std::string("controls \b\f\n\r\t \x01\x1f end"), std::string("nul \0 inside", 13),
                              std::string("DEL \x7f"), std::string("utf-8: é ☃ 😀"), std::string("/ slash")}) {
    EXPECT_EQ(as_json(s), dumped(s)) << s;
  }
}

TEST(JsonTextTest, InvalidUtf8BecomesReplacementCharactersAndStaysValidJson) {
  const std::string bad[] = {"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "x\x80y"};
  for (const auto& s : bad) {
    const std::string text = as_json(s);
    ASSERT_TRUE(nlohmann::json::accept(text)) << text;
    EXPECT_NE(text.find("\xEF\xBF\xBD"), std::string::npos) << text;
  }
  EXPECT_EQ(nlohmann::json::parse(as_json("x\x80y")).get<std::string>(), "x\xEF\xBF\xBDy");
}

TEST(JsonTextTest, RandomValidTextComesBackExactly) {
  std::mt19937 rng(18);
  const char32_t points[] = {U'a', U'"', U'\\', U'\n', 0x01, 0x7f, 0xe9, 0x7ff, 0x800, 0x2603, 0xfffd, 0x10000, 0x1f600,
                             0x10ffff};
  for (int round = 0; round < 2000; ++round) {
    std::u32string text;
    const int n = static_cast<int>(rng() % 20);
    for (int i = 0; i < n; ++i) text += points[rng() % std::size(points)];
    std::string utf8;
    for (const char32_t c : text) {
      if (c < 0x80) {
        utf8 += static_cast<char>(c);
      } else if (c < 0x800) {
        utf8 += static_cast<char>(0xC0 | (c >> 6));
        utf8 += static_cast<char>(0x80 | (c & 0x3F));
      } else if (c < 0x10000) {
        utf8 += static_cast<char>(0xE0 | (c >> 12));
        utf8 += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        utf8 += static_cast<char>(0x80 | (c & 0x3F));
      } else {
        utf8 += static_cast<char>(0xF0 | (c >> 18));
        utf8 += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        utf8 += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        utf8 += static_cast<char>(0x80 | (c & 0x3F));
      }
    }
    const std::string q = as_json(utf8);
    ASSERT_EQ(nlohmann::json::parse(q).get<std::string>(), utf8);
    ASSERT_EQ(q, dumped(utf8));
  }
}

Message sample(bool with_options) {
  Message m;
  m.seq = 42;
  m.inbox_seq = 7;
  m.message_id = "msg_1";
  m.conversation_id = "conv_1";
  m.inbox_id = "inbox_1";
  m.direction = "to_agent";
  m.sender_conn = "conn_\"x\"";
  m.body = "line one\nline two ☃";
  m.created_at = 1700000000123;
  m.state = MessageState::processed;
  if (with_options) {
    m.sender_agent_name = "alice";
    m.recipient_agent_name = "bob";
    m.admitted_at = 1700000000200;
    m.processed_at = 1700000000300;
    m.via = "hook";
  }
  return m;
}

TEST(MessageTextTest, IsTheProtocolObjectInDumpsOrder_RM7) {
  for (const bool with_options : {false, true}) {
    const Message m = sample(with_options);
    for (const bool mailbox : {true, false}) {
      const std::string text = message_text(m, mailbox);
      const auto parsed = nlohmann::json::parse(text);
      EXPECT_EQ(dump(parsed), text) << "keys in sorted order, no spaces";
      EXPECT_EQ(parsed.at("cursor"), mailbox ? "m42" : "i7");
      EXPECT_EQ(parsed.at("message"), m.body);
      EXPECT_EQ(parsed.at("reply_address"), "inbox_1");
      EXPECT_EQ(parsed.at("sender").at("connection_id"), "conn_\"x\"");
      EXPECT_EQ(parsed.at("sender").at("agent_name"), with_options ? nlohmann::json("alice") : nlohmann::json());
      EXPECT_EQ(parsed.at("recipient").at("agent_name"), with_options ? nlohmann::json("bob") : nlohmann::json());
      EXPECT_EQ(parsed.at("delivery").at("state"), "processed");
      EXPECT_EQ(parsed.at("delivery").at("via"), with_options ? nlohmann::json("hook") : nlohmann::json());
      EXPECT_EQ(parsed.at("delivery").at("processed_at"),
                with_options ? nlohmann::json(1700000000300) : nlohmann::json());
      EXPECT_EQ(parsed.at("kind"), "message");
      EXPECT_EQ(parsed.size(), 12U);
    }
  }
}

// R-D2: a notice about a call carries its kind, call id and status beside the text, in the same key order.
TEST(MessageTextTest, ACallNoticeCarriesItsKindCallAndStatus_R_D2) {
  Message m = sample(true);
  m.kind = "call_outcome";
  m.call_id = "call_1";
  m.call_status = "completed";
  const std::string text = message_text(m, true);
  const auto parsed = nlohmann::json::parse(text);
  EXPECT_EQ(dump(parsed), text) << "keys in sorted order, no spaces";
  EXPECT_EQ(parsed.at("kind"), "call_outcome");
  EXPECT_EQ(parsed.at("call_id"), "call_1");
  EXPECT_EQ(parsed.at("status"), "completed");
  EXPECT_EQ(parsed.size(), 14U);
}

TEST(MessageTextTest, APageListsItsMessagesAndTheNextCursor_RM3) {
  const auto empty = nlohmann::json::parse(page_text({}, true, "m9"));
  EXPECT_TRUE(empty.at("messages").empty());
  EXPECT_EQ(empty.at("next_cursor"), "m9") << "nothing new: the read's own cursor again";
  const auto page = nlohmann::json::parse(page_text({sample(false), sample(true)}, false, "i0"));
  ASSERT_EQ(page.at("messages").size(), 2U);
  EXPECT_EQ(page.at("next_cursor"), "i7");
}

}  // namespace
}  // namespace agentworks::server
