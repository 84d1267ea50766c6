// `agentworks-keeper --parent PID -- PROGRAM ARGS...`: the small process between the server and one execution.
// It sets its parent-death signal to SIGTERM (and exits if PID is no longer its parent, so a server that died
// first is noticed), runs PROGRAM in a process group of its own, reaps everything that group leaves behind (it is
// a child subreaper), and on SIGTERM (a timeout, or the server's death, even by kill -9) kills the whole tree.
// So an execution never outlives its server. It reports the program's end on fd 3 as one line: "exit N",
// "signal N" or "spawn_failed REASON".
#pragma once

namespace agentworks::server::keeper {

int keeper_main(int argc, char** argv);

}  // namespace agentworks::server::keeper
