// agentworks-bridge: the per-user bridge daemon. `--foreground` for systemd/launchd and tests; without it the
// process daemonizes and returns once the bridge answers on its socket (or says why it cannot).
#include <cstdio>
#include <cstring>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "start/run.hpp"

int main(int argc, char** argv) {
  agentworks::paths::use_account_database();
  bool foreground = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--foreground") == 0) {
      foreground = true;
    } else if (std::strcmp(argv[i], "--version") == 0) {
      std::puts("agentworks-bridge 0.1.0");
      return 0;
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::puts("usage: agentworks-bridge [--foreground]\n"
                "  Holds the attached chats' server streams, the offer journal and the outbox.\n"
                "  --foreground  stay in the foreground (systemd/launchd, tests); logs also go to stderr.\n"
                "  Without it the bridge daemonizes and returns once it answers on its socket.");
      return 0;
    } else {
      std::fprintf(stderr, "agentworks-bridge: unknown argument '%s' (try --help)\n", argv[i]);
      return agentworks::exit_usage;
    }
  }
  if (foreground) {
    agentworks::bridge::RunOptions options;
    options.foreground = true;
    return agentworks::bridge::run_bridge(options);
  }
  return agentworks::bridge::daemonize_and_run();
}
