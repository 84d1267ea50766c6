#include "store/wal_sync_faults.hpp"

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string_view>
#include <thread>

#include "agentworks/environment.hpp"

namespace agentworks::server {

std::unique_ptr<WalSyncer> make_wal_syncer(const std::filesystem::path& wal_path) {
#ifdef AGENTWORKS_FAILPOINTS
  const char* wanted = env::get(env::Var::failpoint);
  const std::string_view value = wanted != nullptr ? wanted : "";
  constexpr std::string_view fails = "server.wal_sync_fails_while:";
  constexpr std::string_view waits = "server.wal_sync_waits_while:";
  const bool fail = value.starts_with(fails);
  if (fail || value.starts_with(waits)) {
    const std::filesystem::path gate(value.substr(fail ? fails.size() : waits.size()));
    return std::make_unique<WalSyncer>([gate, fail, flush = file_flush(wal_path)]() -> int {
      std::error_code ec;
      if (fail && std::filesystem::exists(gate, ec)) return EIO;
      if (!fail && std::filesystem::exists(gate, ec)) std::ofstream(gate.string() + ".entered").put('1');
      // A test knob: the test removes the gate when it has seen what it waits for.
      while (!fail && std::filesystem::exists(gate, ec)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return flush();
    });
  }
#endif
  return std::make_unique<WalSyncer>(wal_path);
}

}  // namespace agentworks::server
