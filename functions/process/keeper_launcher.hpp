// The host's side of the keeper launcher (keeper/keeper.hpp, launcher_main): one launcher process per host thread
// that runs executions, started on first use and again when it is found gone, asked to fork one keeper per call.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace agentworks::functions {

struct LaunchedKeeper {
  pid_t pid = -1;
  int pidfd = -1;  // owned by the caller; readable when the keeper has exited (the launcher reaps it)
};

// A memfd named `name` holding `bytes`, at offset 0 (close-on-exec); throws Error(internal) when it cannot.
int memfd_holding(const char* name, const std::string& bytes);

// Forks a keeper for `command` with fds 0-3 = in, out, err, status (the caller keeps and closes its own copies).
// Throws Error(internal) when no launcher answers: a launcher that died is started again once for this call.
LaunchedKeeper launch_keeper(const std::string& keeper, int in, int out, int err, int status, const std::string& cwd,
                             const std::vector<std::string>& command, const std::vector<std::string>& env);

}  // namespace agentworks::functions
