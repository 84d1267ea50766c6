// `agentworks-server keep-call -- PROGRAM ARGS...`: the small process that stands between the server and one
// execution. The server starts it with the parent-death signal set to SIGTERM; it runs PROGRAM in a process
// group of its own, reaps everything that group leaves behind (it is a child subreaper), and on SIGTERM (a
// timeout, or the server's death, even by kill -9) kills the whole tree. So an execution never outlives its server.
// It reports the program's end on fd 3 as one line: "exit N", "signal N" or "spawn_failed REASON".
#pragma once

namespace agentworks::server::functions {

int keep_call_main(int argc, char** argv);

}  // namespace agentworks::server::functions
