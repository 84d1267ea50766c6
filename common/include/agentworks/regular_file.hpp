// Reading a file at a path a user controls (a Crew's declaration, a call's result or output file) from a program
// whose event loop must not block: the open never waits (O_NONBLOCK: a FIFO or a device is refused before anything
// reads from it) and never follows a final symbolic link, only a regular file is read, and never more than a bound.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace agentworks {

struct RegularFileRead {
  enum class Outcome { ok, missing, not_regular, too_large, unreadable };
  Outcome outcome = Outcome::unreadable;
  std::string text;    // the whole file when ok
  std::string reason;  // what went wrong, for a message ("is a FIFO, not a regular file", strerror)
  bool ok() const { return outcome == Outcome::ok; }
};

// Reads at most `max_bytes`; a larger file is too_large and nothing of it is returned. `max_links` bounds hard
// links: a file with more names than that may be a name for a file elsewhere (0: any number).
RegularFileRead read_regular_file(const std::filesystem::path& path, std::size_t max_bytes, unsigned max_links = 0);

}  // namespace agentworks
