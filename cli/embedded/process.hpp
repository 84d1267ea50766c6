// Process and port helpers for managing the embedded server from short-lived CLI processes.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>

namespace agentworks::cli {

// True while `pid` exists and is not a zombie.
bool process_alive(pid_t pid);

// True when `pid` runs an agentworks-server binary (guards against a recycled pid).
bool is_agentworks_server(pid_t pid);

// SIGTERM, wait up to `grace`, then SIGKILL. Returns true when SIGKILL was needed.
bool stop_process(pid_t pid, std::chrono::milliseconds grace);

// True when nothing listens on 127.0.0.1:port (port 0 is always free).
bool loopback_port_free(int port);
// A port on 127.0.0.1 free right now (the kernel's pick), 0 when none could be bound.
int free_loopback_port();

// An exclusive flock on a file, held for the object's life (serialises concurrent `up`/`down`).
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace agentworks::cli
