// A stand-in for a provider process in the native-route integration tests (tests/integration/bridge_native_test.cpp).
// The bridge binds a route to the provider process that runs a session (/proc/PID/exe for Codex, a registration
// file for Claude), so the tests need a real process of their own making:
//   fake-provider serve                     stays alive until killed: the "Codex" process whose exe the bridge runs
//   fake-provider --version                 prints `codex-cli VERSION`: $CODEX_HOME/version, default 0.171.0
//   fake-provider queue --help              the queue usage (absent when the file $CODEX_HOME/no-queue exists)
//   fake-provider queue --thread=ID --message=TEXT [--remote=R]
//                                           appends {"thread","message","remote"} to $CODEX_HOME/queued.jsonl and
//                                           exits 0; $CODEX_HOME/outcome (one word) changes that: `missing`
//                                           (thread not found, exit 1), `hang` (never exits), `crash` (exit 3)
//   fake-provider claude SESSIONS_DIR SESSION_ID SOCKET RECORD VERSION
//                                           a Claude session: writes its registration and key file, listens on
//                                           SOCKET and appends every frame line it receives to RECORD; a file
//                                           RECORD.hang makes it keep connections open without reading
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentworks/process_ancestry.hpp"
#include "agentworks/sha256.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}

fs::path codex_home() { return env_or("CODEX_HOME", env_or("HOME", "/tmp") + "/.codex"); }

std::string read_word(const fs::path& p) {
  std::ifstream in(p);
  std::string w;
  in >> w;
  return w;
}

std::string value_of(const std::string& arg, const std::string& name) {
  const std::string prefix = "--" + name + "=";
  return arg.rfind(prefix, 0) == 0 ? arg.substr(prefix.size()) : std::string();
}

int queue(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[2]) == "--help") {
    if (fs::exists(codex_home() / "no-queue")) {
      std::cerr << "error: unrecognized subcommand 'queue'\n";
      return 2;
    }
    std::cout << "Queue a message for an existing session\n\nUsage: codex queue [OPTIONS] --thread <THREAD> "
                 "--message <MESSAGE>\n";
    return 0;
  }
  json item = {{"thread", ""}, {"message", ""}, {"remote", ""}};
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    for (const char* k : {"thread", "message", "remote"}) {
      if (a.rfind(std::string("--") + k + "=", 0) == 0) item[k] = value_of(a, k);
    }
  }
  const auto outcome = read_word(codex_home() / "outcome");
  if (outcome == "missing") {
    std::cerr << "Error: thread not found: " << item["thread"].get<std::string>() << "\n";
    return 1;
  }
  if (outcome == "hang") {
    for (;;) ::pause();
  }
  if (outcome == "crash") return 3;
  std::ofstream(codex_home() / "queued.jsonl", std::ios::app) << item.dump() << "\n";
  std::cout << "queued\n";
  return 0;
}

int claude(int argc, char** argv) {
  if (argc != 7) return 64;
  const fs::path sessions = argv[2];
  const std::string session_id = argv[3];
  const std::string socket_path = argv[4];
  const fs::path record = argv[5];
  const std::string version = argv[6];
  const auto me = agentworks::process::key_of(::getpid());
  if (!me) return 65;
  fs::create_directories(sessions);
  fs::create_directories(fs::path(socket_path).parent_path());
  ::chmod(fs::path(socket_path).parent_path().c_str(), 0700);

  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket_path.c_str());
  ::unlink(socket_path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 8) != 0) return 66;
  ::chmod(socket_path.c_str(), 0600);

  const std::string token = "fake-peer-token";
  const json reg = {{"pid", ::getpid()},          {"sessionId", session_id}, {"cwd", "/tmp"},
                    {"procStart", me->start},     {"version", version},      {"peerProtocol", 1},
                    {"kind", "interactive"},      {"entrypoint", "cli"},     {"messagingSocketPath", socket_path},
                    {"status", "idle"},           {"updatedAt", 0}};
  const auto base = sessions / std::to_string(::getpid());
  const auto key_file = fs::path(base.string() + "." + agentworks::sha256_hex(socket_path) + ".key");
  std::ofstream(key_file) << json{{"peerToken", token}, {"procStart", me->start}, {"pidDomain", "host"}}.dump();
  ::chmod(key_file.c_str(), 0600);
  std::ofstream(base.string() + ".json") << reg.dump();
  std::cout << "ready" << std::endl;

  for (;;) {
    const int c = ::accept(fd, nullptr, nullptr);
    if (c < 0) continue;
    std::thread([c, record] {
      if (fs::exists(record.string() + ".hang")) {
        for (;;) ::pause();
      }
      std::string data;
      char buf[4096];
      for (;;) {
        const auto n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        data.append(buf, static_cast<std::size_t>(n));
      }
      ::close(c);
      std::ofstream(record, std::ios::app) << json{{"frames", data}}.dump() << "\n";
    }).detach();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "serve") {
    for (;;) ::pause();
  }
  if (mode == "--version") {
    const auto version = read_word(codex_home() / "version");
    std::cout << "codex-cli " << (version.empty() ? std::string("0.171.0") : version) << "\n";
    return 0;
  }
  if (mode == "queue") return queue(argc, argv);
  if (mode == "claude") return claude(argc, argv);
  std::cerr << "usage: fake-provider serve|--version|queue|claude ...\n";
  return 64;
}
