// One line of the bridge's socket protocol, as the socket server reads it: JSON, then typed fields. Invariants:
// malformed input only ever raises Error(bad_request) (never another exception, a crash or UB); whatever is
// accepted obeys the documented rules (session key, process key, bounded UTF-8 strings, ranged integers).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "fuzz_check.hpp"
#include "request/request_fields.hpp"

namespace {

using agentworks::Error;
using agentworks::ErrorCode;
using nlohmann::json;

template <typename F>
void accepts_or_rejects(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    FUZZ_CHECK(e.code() == ErrorCode::bad_request, "a bad field is bad_request");
    FUZZ_CHECK(std::string(e.what()).find("field '") != std::string::npos, "the message names the field");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const json req = json::parse(data, data + size, nullptr, false);
  if (!req.is_object()) return 0;  // the socket server answers bad_request before any field is read
  namespace b = agentworks::bridge;
  accepts_or_rejects([&] {
    const auto key = b::session_key(req);
    FUZZ_CHECK(!key.provider.empty() && key.provider.size() <= 32, "provider is 1-32 bytes");
    for (const char c : key.provider)
      FUZZ_CHECK((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-', "provider charset");
    FUZZ_CHECK(agentworks::valid_client_id(key.session_id), "session_id is 1-200 printable ASCII");
  });
  accepts_or_rejects([&] {
    const auto s = b::required_string(req, "agent_name", 64);
    FUZZ_CHECK(!s.empty() && s.size() <= 64 && agentworks::utf8_length(s), "required string bounded UTF-8");
  });
  accepts_or_rejects([&] {
    const auto s = b::optional_string(req, "message", 80'000);
    FUZZ_CHECK(!s || (s->size() <= 80'000 && agentworks::utf8_length(*s)), "optional string bounded UTF-8");
  });
  accepts_or_rejects([&] {
    const auto v = b::optional_int(req, "limit", 7, 1, 100);
    FUZZ_CHECK(v == 7 || (v >= 1 && v <= 100), "integer in range or the fallback");
  });
  accepts_or_rejects([&] { (void)b::optional_bool(req, "confirm", false); });
  accepts_or_rejects([&] {
    const auto p = b::optional_process(req);
    if (p) {
      FUZZ_CHECK(p->pid > 0 && p->pid <= 0x7fffffff, "pid in range");
      FUZZ_CHECK(!p->start.empty() && p->start.size() <= 32, "start is 1-32 digits");
      for (const char c : p->start) FUZZ_CHECK(c >= '0' && c <= '9', "start is digits");
    }
  });
  return 0;
}
