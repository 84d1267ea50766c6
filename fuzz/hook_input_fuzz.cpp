// The hook's stdin, written by a provider CLI (or anything that runs the hook): read with a size bound, parsed
// for each provider, and a submitted prompt checked for a typed command, as main.cpp does. Invariants: no crash;
// the bounded read returns the bytes exactly or nothing when over the bound; a kept session id obeys the
// bridge's rule (1-200 printable ASCII), otherwise it is empty.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_check.hpp"
#include "hook_input.hpp"
#include "prompt_command.hpp"

namespace {

using namespace agentworks::hook;

std::optional<std::string> through_pipe(const std::uint8_t* data, std::size_t size, std::size_t max) {
  int fds[2];
  FUZZ_CHECK(::pipe2(fds, O_CLOEXEC) == 0, "pipe");
  // Inputs are at most a few KiB (-max_len), well under a pipe's buffer, so one write never blocks.
  const ssize_t w = size > 0 ? ::write(fds[1], data, size) : 0;
  FUZZ_CHECK(w == static_cast<ssize_t>(size), "the whole input fits the pipe");
  ::close(fds[1]);
  auto got = read_all_bounded(fds[0], max, std::chrono::seconds(5));
  ::close(fds[0]);
  return got;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 60000) return 0;
  const std::size_t max = size > 0 ? data[0] * std::size_t{64} : 0;  // bounds below, at and above the input
  const auto text = through_pipe(data, size, max);
  if (size > max) {
    FUZZ_CHECK(!text, "input over the bound is refused");
  } else {
    FUZZ_CHECK(text && text->size() == size && (size == 0 || std::memcmp(text->data(), data, size) == 0),
               "exact bytes");
  }
  const std::string_view whole(reinterpret_cast<const char*>(data), size);
  for (const Provider p : {Provider::claude, Provider::codex, Provider::cursor, Provider::pi}) {
    const auto in = parse_hook_input(whole, p);
    if (!in) continue;
    FUZZ_CHECK(in->session_id.empty() || valid_session_id(in->session_id), "session id obeys the rule");
    if (in->prompt) {
      const PromptParse parsed = parse_prompt(*in->prompt, p);
      if (std::holds_alternative<PromptUsage>(parsed)) (void)usage_text(p, std::get<PromptUsage>(parsed).problem);
    }
  }
  return 0;
}
