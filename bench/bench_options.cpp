#include "bench_options.hpp"

#include <CLI/CLI.hpp>

#include "bench_run.hpp"

namespace agentworks::bench {

void add_program_options(CLI::App& app, ProgramOptions& options, unsigned programs, const std::string& data_parent_what) {
  if ((programs & kServer) != 0)
    app.add_option("--server", options.server_binary, "agentworks-server binary (default: ../server/ next to this binary)");
  if ((programs & kBridge) != 0)
    app.add_option("--bridge", options.bridge_binary, "agentworks-bridge binary (default: ../daemon/ next to this binary)");
  if ((programs & kCli) != 0)
    app.add_option("--cli", options.cli_binary, "agentworks CLI binary (default: ../cli/ next to this binary)");
  app.add_option("--data-parent", options.data_parent, "where " + data_parent_what + " go (default /tmp)");
}

void add_watchdog_option(CLI::App& app, ProgramOptions& options) {
  app.add_option("--max-seconds", options.max_seconds, "watchdog: the whole run is killed after this long")
      ->check(CLI::Range(10, 3600));
}

void resolve_programs(ProgramOptions& options, unsigned programs) {
  if ((programs & kServer) != 0 && options.server_binary.empty())
    options.server_binary = built_program("server", "agentworks-server");
  if ((programs & kBridge) != 0 && options.bridge_binary.empty())
    options.bridge_binary = built_program("daemon", "agentworks-bridge");
  if ((programs & kCli) != 0 && options.cli_binary.empty()) options.cli_binary = built_program("cli", "agentworks");
}

}  // namespace agentworks::bench
