// agentworks-hook PROVIDER EVENT: run by Claude Code, Codex and Cursor for their hook events (docs/hooks.md).
// Reads the event JSON on stdin, makes at most one round trip to the bridge, prints the provider's output format
// (or nothing) and always exits 0: a hook must never break the person's chat.
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <exception>
#include <string>

#include "agentworks/environment.hpp"
#include "events.hpp"
#include "hook_env.hpp"
#include "hook_input.hpp"
#include "provider.hpp"

namespace {

void write_all(int fd, const std::string& bytes) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

int run(int argc, char** argv) {
  using namespace agentworks::hook;
  if (argc != 3) {
    write_all(2, "usage: agentworks-hook claude|codex|cursor|pi EVENT  (run by the agent CLI's hooks; docs/hooks.md)\n");
    return 0;
  }
  const auto provider = parse_provider(argv[1]);
  if (!provider) return 0;
  const auto event = parse_event(*provider, argv[2]);
  if (!event) return 0;
  const auto text = read_all_bounded(STDIN_FILENO);
  if (!text) return 0;
  auto input = parse_hook_input(*text, *provider);
  if (!input) return 0;

  HookContext ctx;
  ctx.provider = *provider;
  ctx.input = std::move(*input);
  ctx.max_continuations = max_continuations_from(agentworks::env::get(agentworks::env::Var::max_continuations));
  ctx.config = config_from(agentworks::env::get(agentworks::env::Var::config));
  ctx.process = [] { return agentworks::process::provider_ancestor(); };
  if (const char* var = agentworks::provider_info(*provider).home_variable) {
    ctx.provider_home = provider_home_from(std::getenv(var));
  }
  ctx.call = socket_bridge_call();
  write_all(STDOUT_FILENO, handle_event(*event, ctx));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // the provider may close our stdout early; never die of it
  try {
    return run(argc, argv);
  } catch (...) {
    return 0;
  }
}
