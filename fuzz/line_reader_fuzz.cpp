// The bridge's private socket protocol: bytes from any local process of the user, split into lines. Invariants:
// any split gives the same lines as a plain reference split (one CR of a CRLF line end removed); no line holds
// '\n', is empty or is over the limit; an over-long line is reported and skipped, never cut into pieces; the
// buffer stays bounded.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "platform/line_reader.hpp"

namespace {

// "L:" line or "O" oversize, in order: what a reader of lines sees.
std::vector<std::string> reference(const std::string& s, std::size_t max) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto nl = s.find('\n', start);
    std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (nl == std::string::npos) {
      if (line.size() > max) out.emplace_back("O");
      break;
    }
    if (line.size() > max) {
      out.emplace_back("O");
    } else {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) out.push_back("L:" + line);
    }
    start = nl + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::size_t max = in.ConsumeIntegralInRange<std::size_t>(1, 64);
  std::vector<std::size_t> cuts;
  const std::size_t ncuts = in.ConsumeIntegralInRange<std::size_t>(0, 16);
  for (std::size_t i = 0; i < ncuts; ++i) cuts.push_back(in.ConsumeIntegralInRange<std::size_t>(0, 48));
  const std::string stream = in.ConsumeRemainingBytesAsString();

  agentworks::bridge::LineReader reader(max);
  std::vector<std::string> got;
  const auto on_line = [&](std::string_view line) {
    FUZZ_CHECK(!line.empty(), "no empty line");
    FUZZ_CHECK(line.find('\n') == std::string_view::npos, "no newline inside a line");
    FUZZ_CHECK(line.size() <= max, "no line over the limit");
    got.push_back("L:" + std::string(line));
  };
  const auto on_oversize = [&] { got.emplace_back("O"); };
  std::size_t at = 0;
  for (const std::size_t len : cuts) {
    if (at >= stream.size()) break;
    reader.feed(std::string_view(stream).substr(at, len), on_line, on_oversize);
    FUZZ_CHECK(reader.buffered() <= max, "the buffer stays bounded");
    at += len;
  }
  if (at < stream.size()) reader.feed(std::string_view(stream).substr(at), on_line, on_oversize);
  FUZZ_CHECK(reader.buffered() <= max, "the buffer stays bounded");

  // The reference reports an unfinished over-long tail at once; so does the reader (when the limit is passed).
  const auto want = reference(stream, max);
  FUZZ_CHECK(got == want, "lines match the reference split");
  return 0;
}
