// The options the benchmarks share, declared once: which agentworks programs a run starts (built beside the
// benchmark unless given), where their data goes, and the watchdog. A main's Options derives from ProgramOptions
// and declares only its own options.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace agentworks::bench {

struct ProgramOptions {
  std::string server_binary;
  std::string bridge_binary;
  std::string cli_binary;
  std::string data_parent = "/tmp";
  unsigned max_seconds = 600;
};

// Which programs a benchmark starts (a bit set).
enum Programs : unsigned { kServer = 1, kBridge = 2, kCli = 4 };

// --server, --bridge, --cli (those in `programs`) and --data-parent ("where `data_parent_what` go").
void add_program_options(CLI::App& app, ProgramOptions& options, unsigned programs, const std::string& data_parent_what);
// --max-seconds: the watchdog (bench_run.hpp), 10 to 3600 seconds.
void add_watchdog_option(CLI::App& app, ProgramOptions& options);
// Fills in the programs not given with those built beside this benchmark.
void resolve_programs(ProgramOptions& options, unsigned programs);

}  // namespace agentworks::bench
