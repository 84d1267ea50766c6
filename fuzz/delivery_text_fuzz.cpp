// The delivery formatter (daemon/lib/delivery_text.*) puts other agents' message bodies into a chat. Invariants,
// for any bodies and sender fields a sender controls: the text never exceeds the budget (UTF-16 units, raised to
// the minimum); it is exactly the header, then for each included message its open fence, its body (or the body's
// start and the truncation note) and its close fence, then the footer; each fence line occurs once, so a body can
// neither close its fence early nor forge another message's header. Message ids are the server's: a sender cannot
// know them before sending, so here they are derived from a hash of the whole input, which the fuzzer cannot put
// into a body. Bodies are valid UTF-8 and agent names obey R-M4 (the server refuses anything else); everything
// else a sender controls is arbitrary.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "agentworks/sha256.hpp"
#include "delivery/delivery_text.hpp"
#include "fuzz_check.hpp"

namespace {

using namespace agentworks::bridge;

// Valid UTF-8 from arbitrary bytes: each byte that does not start a well-formed sequence becomes '?'.
std::string valid_utf8(const std::string& raw) {
  std::string out;
  std::size_t i = 0;
  while (i < raw.size()) {
    const auto b = static_cast<unsigned char>(raw[i]);
    std::size_t len = b < 0x80 ? 1 : (b >= 0xC2 && b <= 0xDF) ? 2 : (b >= 0xE0 && b <= 0xEF) ? 3
                                                               : (b >= 0xF0 && b <= 0xF4) ? 4 : 0;
    bool ok = len > 0 && i + len <= raw.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(raw[i + k]) & 0xC0) == 0x80;
    if (ok && len == 3) {
      const auto c1 = static_cast<unsigned char>(raw[i + 1]);
      ok = !(b == 0xE0 && c1 < 0xA0) && !(b == 0xED && c1 > 0x9F);
    }
    if (ok && len == 4) {
      const auto c1 = static_cast<unsigned char>(raw[i + 1]);
      ok = !(b == 0xF0 && c1 < 0x90) && !(b == 0xF4 && c1 > 0x8F);
    }
    if (ok) {
      out.append(raw, i, len);
      i += len;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  return out;
}

// An agent name as the server accepts it (R-M4: [A-Za-z0-9._-], starting with a letter or digit), or empty.
std::string agent_name(FuzzedDataProvider& in) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
  std::string name = in.ConsumeRandomLengthString(64);
  for (std::size_t i = 0; i < name.size(); ++i)
    name[i] = kChars[static_cast<unsigned char>(name[i]) % (i == 0 ? 62 : sizeof kChars - 1)];
  return name;
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string secret = agentworks::sha256_hex(std::string(reinterpret_cast<const char*>(data), size));
  FuzzedDataProvider in(data, size);
  DeliveryContext ctx;
  ctx.agent_name = agent_name(in);
  if (ctx.agent_name.empty()) ctx.agent_name = "reviewer";
  ctx.attachment_id = "att_" + secret.substr(0, 8);
  ctx.provider = in.PickValueInArray({"claude", "codex", "cursor", "pi"});
  ctx.guidance = in.ConsumeBool();
  ctx.max_units = in.ConsumeIntegralInRange<std::size_t>(0, 12000);
  ctx.waiting_after = in.ConsumeIntegralInRange<std::size_t>(0, 2000);
  std::vector<DeliveryMessage> messages;
  const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 6);
  for (std::size_t i = 0; i < n; ++i) {
    DeliveryMessage m;
    m.message_id = "msg_" + secret.substr(0, 24) + "_" + std::to_string(i);
    m.conversation_id = "conv_" + secret.substr(24, 8);
    m.inbox_id = "inbox_" + secret.substr(32, 8);
    m.sender_agent = agent_name(in);
    m.sender_connection = in.ConsumeBool() ? "conn_" + secret.substr(40, 8) : std::string();
    m.text = valid_utf8(in.ConsumeRandomLengthString(30000));
    messages.push_back(std::move(m));
  }

  const DeliveryText out = format_delivery(messages, ctx);
  if (messages.empty()) {
    FUZZ_CHECK(out.text.empty() && out.included == 0, "no messages, no text");
    return 0;
  }
  const std::size_t budget = std::max(ctx.max_units, kMinDeliveryBudget);
  FUZZ_CHECK(utf16_units(out.text) <= budget, "the text stays within the budget");
  FUZZ_CHECK(out.included >= 1 && out.included <= messages.size(), "at least the oldest message is included");
  FUZZ_CHECK(!out.truncated || out.included == 1, "only a lone message is truncated");
  FUZZ_CHECK(out.text.rfind("[agentworks] ", 0) == 0, "the text starts with the label");

  // Walk the text: each included message's open fence, then its body, then its close fence, in order.
  std::size_t at = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const auto& m = messages[i];
    const std::string sender = !m.sender_agent.empty() ? "agent:" + m.sender_agent
                               : "an unnamed connection" + (m.sender_connection.empty() ? "" : " " + m.sender_connection);
    const std::string open = "\n--- message " + m.message_id + " from " + sender + " (conversation " +
                             m.conversation_id + ", inbox " + m.inbox_id + ") ---\n";
    const std::string close = "\n--- end of message " + m.message_id + " ---\n";
    if (i >= out.included) {
      FUZZ_CHECK(count(out.text, open) == 0 && count(out.text, close) == 0, "a left-out message is absent");
      continue;
    }
    FUZZ_CHECK(count(out.text, open) == 1, "one open fence per message");
    FUZZ_CHECK(count(out.text, close) == 1, "one close fence per message");
    const std::size_t o = out.text.find(open, at);
    FUZZ_CHECK(o != std::string::npos, "open fences in order");
    const std::size_t body = o + open.size();
    const std::size_t c = out.text.find(close, body);
    FUZZ_CHECK(c != std::string::npos, "the close fence follows its body");
    const std::string inside = out.text.substr(body, c - body);
    if (out.truncated) {
      const auto note = inside.rfind("\n[agentworks: message truncated: showed the first ");
      FUZZ_CHECK(note != std::string::npos, "a truncated body ends with the note");
      FUZZ_CHECK(m.text.compare(0, note, inside, 0, note) == 0, "a truncated body is the body's start");
    } else {
      FUZZ_CHECK(inside == m.text, "the fenced text is exactly the body");
    }
    at = c + close.size() - 1;
  }
  return 0;
}
