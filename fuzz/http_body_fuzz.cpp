// An HTTP request body as the server's dispatcher and handlers read it: bounded size, JSON object, strict
// fields (server/api/body.*), then the shared input rules (common validation). Invariants: malformed input
// only raises Error(bad_request) (no other exception, crash or UB); utf8_length agrees with an independent
// decoder written from the Unicode well-formed byte table (Table 3-7), so every accepted message is valid
// UTF-8 of 1-20,000 code points; accepted names and ids obey their rules.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "fuzz_check.hpp"

namespace {

using agentworks::Error;
using agentworks::ErrorCode;
using nlohmann::json;

// Code points of well-formed UTF-8 (Unicode Table 3-7), nullopt otherwise.
std::optional<std::size_t> reference_utf8_length(std::string_view s) {
  std::size_t n = 0;
  std::size_t i = 0;
  const auto in = [&](std::size_t k, unsigned lo, unsigned hi) {
    if (i + k >= s.size()) return false;
    const auto b = static_cast<unsigned char>(s[i + k]);
    return b >= lo && b <= hi;
  };
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    if (b <= 0x7F) len = 1;
    else if (b >= 0xC2 && b <= 0xDF && in(1, 0x80, 0xBF)) len = 2;
    else if (b == 0xE0 && in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF)) len = 3;
    else if (((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) && in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF)) len = 3;
    else if (b == 0xED && in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF)) len = 3;
    else if (b == 0xF0 && in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF)) len = 4;
    else if (b >= 0xF1 && b <= 0xF3 && in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF)) len = 4;
    else if (b == 0xF4 && in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF)) len = 4;
    else return std::nullopt;
    i += len;
    ++n;
  }
  return n;
}

void check_text(const std::string& s) {
  FUZZ_CHECK(agentworks::utf8_length(s) == reference_utf8_length(s), "utf8_length matches the reference decoder");
  if (agentworks::valid_message_text(s)) {
    const auto n = reference_utf8_length(s);
    FUZZ_CHECK(n && *n >= 1 && *n <= agentworks::kMaxMessageChars, "an accepted message is 1-20,000 code points");
  }
  if (agentworks::valid_agent_name(s)) {
    FUZZ_CHECK(!s.empty() && s.size() <= agentworks::kMaxAgentNameLength, "an accepted name is 1-64 characters");
    FUZZ_CHECK(agentworks::fold_name(s).size() == s.size(), "folding keeps the length");
    FUZZ_CHECK(agentworks::valid_agent_name(agentworks::fold_name(s)), "a folded name is still valid");
  }
  if (agentworks::valid_client_id(s)) FUZZ_CHECK(s.size() <= agentworks::kMaxSubmissionIdLength, "id bound");
}

template <typename F>
void accepts_or_rejects(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    FUZZ_CHECK(e.code() == ErrorCode::bad_request, "a bad body is bad_request");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > agentworks::kMaxRequestBodyBytes) return 0;  // the dispatcher answers payload_too_large first
  check_text(std::string(reinterpret_cast<const char*>(data), size));
  const json body = json::parse(data, data + size, nullptr, false);
  if (!body.is_object()) return 0;  // bad_request before any handler runs
  using agentworks::server::Body;
  // The field sets of the real routes (server/api/*_api.cpp).
  accepts_or_rejects([&] {
    const Body b(body, {"target", "inbox_id", "message", "agent_name", "submission_id"});
    const std::string message = b.string("message");
    check_text(message);
    for (const char* k : {"target", "inbox_id", "agent_name", "submission_id"})
      if (const auto v = b.opt_string(k)) check_text(*v);
  });
  accepts_or_rejects([&] {
    const Body b(body, {"agent_name", "purpose", "provider", "allowed_connection_ids"});
    if (const auto ids = b.opt_string_array("allowed_connection_ids", 100)) {
      FUZZ_CHECK(ids->size() <= 100, "array bound");
      for (const auto& id : *ids) check_text(id);
    }
  });
  accepts_or_rejects([&] {
    const Body b(body, {"kind", "agent_name", "label", "supersede_siblings"});
    (void)b.opt_bool("supersede_siblings");
    (void)b.opt_string("kind");
  });
  accepts_or_rejects([&] {
    const Body b(body, {"message_ids"});
    (void)b.opt_string_array("message_ids", 100);
  });
  accepts_or_rejects([&] {
    const Body b(body, {"delivery", "via"});
    (void)b.string("delivery");
  });
  return 0;
}
