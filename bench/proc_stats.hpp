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

// The same for one thread of it (/proc/PID/task/TID/stat): a server's event loop runs on its main thread (TID = PID).
std::optional<double> thread_cpu_seconds(pid_t pid, pid_t tid);

// CPU time of a process and its children: its own, what its children that ended left to it (it waited for them),
// and each live child's. A PostgreSQL postmaster's backends are its children.
std::optional<double> process_tree_cpu_seconds(pid_t root);

}  // namespace agentworks::bench
