// Process statistics the benchmarks report, read from /proc.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace agentworks::bench {

// Resident set size of a process in KiB (VmRSS in /proc/PID/status), if readable.
std::optional<std::uint64_t> rss_kib(pid_t pid);

// User + system CPU time a process has used so far, in seconds (/proc/PID/stat).
std::optional<double> cpu_seconds(pid_t pid);

}  // namespace agentworks::bench
