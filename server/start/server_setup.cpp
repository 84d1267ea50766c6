#include "start/server_setup.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include "agentworks/error.hpp"
#include "start/data_dir_claim.hpp"
#include "http/listen_policy.hpp"
#include "start/serve.hpp"
#include "http/tls_context.hpp"
#include "store/calls_store.hpp"
#include "store/crew_sessions_store.hpp"
#include "store/checkpointer.hpp"
#include "store/database/postgres_database.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

// The data directory holds the store and the owner's login token: it must be this user's and closed to others.
// A directory others could write to is refused (they may have planted files in it); one others can merely read
// (e.g. made under a loose umask) is tightened to 0700, with a warning.
void prepare_data_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(ErrorCode::usage, "cannot create data directory " + dir.string() + ": " + std::strerror(errno));
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    throw Error(ErrorCode::usage, "--data " + dir.string() + " is not a directory (or is a symlink): " +
                                      std::strerror(errno) + "; give a directory of your own");
  }
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const mode_t mode = st.st_mode & 07777;
  std::string problem;
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
  if (!stat_ok) {
    problem = std::string("cannot stat it: ") + std::strerror(errno);
  } else if (st.st_uid != ::getuid()) {
    problem = "it is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " + std::to_string(::getuid()) +
              "); use a directory of your own";
  } else if ((mode & 022) != 0) {
    problem = std::string("it has mode ") + octal + ", so other users may have written files into it; check its " +
              "contents, then run: chmod 700 " + dir.string();
  } else if ((mode & 077) != 0) {
    if (::fchmod(fd, 0700) != 0) problem = std::string("cannot tighten it to 0700: ") + std::strerror(errno);
    else spdlog::warn("tightened {} from mode {} to 0700: it holds the owner's login token", dir.string(), octal);
  }
  ::close(fd);
  if (!problem.empty()) throw Error(ErrorCode::usage, "refusing --data " + dir.string() + ": " + problem);
}

// A token file loosened by hand (or by a copy tool) is tightened again at every start, as the bridge does with
// its own files.
void tighten_owner_token(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "owner.token";
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077) == 0) return;
  if (::chmod(path.c_str(), 0600) != 0) {
    throw Error(ErrorCode::internal, path.string() + " is readable by others and cannot be tightened: " +
                                         std::strerror(errno) + "; run: chmod 600 " + path.string());
  }
  spdlog::warn("tightened {} to 0600: it is the owner's login token", path.string());
}

void write_owner_token(const std::filesystem::path& dir, const std::string& token) {
  const std::filesystem::path path = dir / "owner.token";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(ErrorCode::internal, "cannot write " + path.string() + ": " + std::strerror(errno));
  ::fchmod(fd, 0600);
  const std::string line = token + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw Error(ErrorCode::internal, "cannot write " + path.string());
}

// Creates the owner account on the first start and writes its login token to DIR/owner.token.
void ensure_owner(Store& store, const std::filesystem::path& dir) {
  tighten_owner_token(dir);
  store.begin_batch();
  try {
    const auto token = store.ensure_owner();
    store.commit_batch();
    if (token) write_owner_token(dir, *token);
  } catch (...) {
    store.rollback_batch();
    throw;
  }
}

// Calls that were running when the previous server process stopped (or died) are interrupted, never restarted.
void interrupt_calls_left_open(Store& store) {
  store.begin_batch();
  try {
    // SQLite has one server process, so every open call was its predecessor's; on a PostgreSQL store this
    // replica's own calls were its predecessor's (same data directory), and the other replicas' calls are left
    // alone until their leases lapse.
    auto ids = interrupt_open_calls(store, store.engine() == db::Engine::sqlite ? OpenCalls::all
                                                                                : OpenCalls::this_replica);
    if (store.engine() == db::Engine::postgresql) {
      const auto lapsed = interrupt_open_calls(store, OpenCalls::lapsed_leases);
      ids.insert(ids.end(), lapsed.begin(), lapsed.end());
    }
    // A Crew agent's conversation turns by the same rule (R-K2): their messages read interrupted.
    const auto turns = interrupt_cut_turns(store, store.engine() == db::Engine::sqlite ? CutTurns::all : CutTurns::at_replica_start);
    store.commit_batch();
    if (!ids.empty()) spdlog::warn("{} function call(s) were running when the server stopped: now interrupted", ids.size());
    if (!turns.empty())
      spdlog::warn("{} Crew conversation turn(s) were running when the server stopped: their messages read "
                   "interrupted", turns.size());
  } catch (...) {
    store.rollback_batch();
    throw;
  }
}

// 1,000 concurrent SSE streams need more descriptors than the usual soft limit of 1,024. Returns the limit.
rlim_t raise_fd_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  if (rl.rlim_cur < rl.rlim_max) {
    const rlim_t before = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &rl) != 0) {
      spdlog::warn("cannot raise the open-file limit: {}", std::strerror(errno));
      rl.rlim_cur = before;
    }
  }
  return rl.rlim_cur;
}

// Descriptors kept free for the store (database, WAL, shm, checkpointer), the log, the listener and the loop.
constexpr rlim_t kFdHeadroom = 64;

// The connection cap: below the open-file limit, so accept never runs out of descriptors; lower with the flag.
int connection_cap(rlim_t fd_limit, int flag) {
  const rlim_t by_limit = fd_limit > 2 * kFdHeadroom ? fd_limit - kFdHeadroom : std::max<rlim_t>(1, fd_limit / 2);
  const rlim_t capped = std::min<rlim_t>(by_limit, 1'000'000);
  int cap = static_cast<int>(capped);
  if (flag > 0 && flag < cap) cap = flag;
  return cap;
}

void check_store_url(const std::string& url) {
  if (!url.empty() && !db::is_postgresql_url(url))
    throw Error(ErrorCode::usage, "--store takes a postgresql:// URL (e.g. postgresql://agentworks@db.example/agentworks); "
                                  "leave it out for the embedded SQLite store in --data");
}

// "Cannot reach the database" is the retryable unavailable error; anything else is internal.
[[noreturn]] void throw_store_error(const db::DatabaseError& e) {
  throw Error(e.kind() == db::Failure::unavailable ? ErrorCode::unavailable : ErrorCode::internal,
              std::string(e.what()) + "; check --store and that the database is running");
}

// Opens the store (SQLite in dir, or PostgreSQL at url).
std::unique_ptr<Store> open_store(const std::filesystem::path& dir, const std::string& url, const Limits& limits,
                                  const std::string& replica_id = "") {
  check_store_url(url);
  try {
    return std::make_unique<Store>(StoreLocation{dir, url, replica_id}, limits);
  } catch (const db::DatabaseError& e) {
    throw_store_error(e);
  }
}

// Under load every request frees the top of the heap again. By default glibc hands it back to the kernel (a brk
// shrink, with a TLB shootdown across the server's threads) and faults it in again on the next request, which
// took 5-8 % of the server's CPU. Freed heap up to kKeptHeap stays with the process instead; blocks up to
// kKeptHeap / 16 come from the heap, not from a mapping of their own each time.
void keep_freed_heap() {
  constexpr int kKeptHeap = 64 << 20;
  mallopt(M_TRIM_THRESHOLD, kKeptHeap);
  mallopt(M_MMAP_THRESHOLD, kKeptHeap / 16);
}

}  // namespace

int serve(const ServeOptions& options) {
  ::umask(077);  // the store, its WAL and everything else the server creates stay private
  keep_freed_heap();
  ServeOptions opt = options;
  const auto tls = prepare_listen_security({opt.listen, opt.tls_cert, opt.tls_key, opt.behind_proxy});
  const rlim_t fd_limit = raise_fd_limit();
  opt.limits.max_connections = connection_cap(fd_limit, opt.max_connections);
  if (opt.max_connections > opt.limits.max_connections)
    spdlog::warn("--max-connections {} is over what the open-file limit ({}) allows; using {}", opt.max_connections,
                 fd_limit, opt.limits.max_connections);
  const std::filesystem::path dir(opt.data_dir);
  prepare_data_dir(dir);
  const DataDirClaim claim(dir);
  const auto opened = open_store(dir, opt.store_url, opt.limits, claim.replica_id());
  Store& store = *opened;
  ensure_owner(store, dir);
  interrupt_calls_left_open(store);
  store.disable_autocheckpoint();
  std::optional<Checkpointer> checkpointer;
  if (store.engine() == db::Engine::sqlite) checkpointer.emplace(store.db_path());

  const ListenAddress address = parse_listen_address(opt.listen);
  HttpServer http(store, opt.limits, address, tls.get(), opt.tls_cert);
  std::printf("listening on %s://%s:%d\n", tls ? "https" : "http", address.url_host().c_str(), http.port());
  std::fflush(stdout);
  spdlog::info("store {}, logs in {}; at most {} open connections (open-file limit {})", store.describe(),
               dir.string(), opt.limits.max_connections, fd_limit);
  http.run();
  return exit_ok;
}

std::string add_account(const std::string& data_dir, const std::string& store_url, const std::string& name) {
  const std::filesystem::path dir(data_dir);
  if (store_url.empty()) prepare_data_dir(dir);
  const auto opened = open_store(dir, store_url, Limits{});
  Store& store = *opened;
  if (store_url.empty()) ensure_owner(store, dir);
  store.begin_batch();
  try {
    std::string token = store.add_account(name);
    store.commit_batch();
    return token;
  } catch (...) {
    store.rollback_batch();
    throw;
  }
}

std::string migrate(const std::string& data_dir, const std::string& store_url) {
  check_store_url(store_url);
  if (store_url.empty()) {
    // SQLite is upgraded in place whenever it is opened; migrate only makes that explicit.
    const std::filesystem::path dir(data_dir);
    prepare_data_dir(dir);
    const auto opened = open_store(dir, store_url, Limits{});
    return "the SQLite store in " + dir.string() + " is at the current schema";
  }
  try {
    const auto database = db::open_postgresql(store_url);
    const int before = migrate_postgresql_schema(*database);
    const std::string now = std::to_string(kPostgresSchemaVersion);
    if (before == kPostgresSchemaVersion) return database->describe() + " is at schema version " + now + " already";
    return database->describe() + ": schema version " + std::to_string(before) + " -> " + now;
  } catch (const db::DatabaseError& e) {
    throw_store_error(e);
  }
}

}  // namespace agentworks::server
