// `agentworks-keeper --parent PID -- PROGRAM ARGS...`: the small process between its host (the server, or a
// bridge serving a Crew) and one execution. It sets its parent-death signal to SIGTERM (and exits if PID is no
// longer its parent, so a host that died first is noticed) and runs PROGRAM where the whole tree can be ended:
// - in a PID namespace of its own when the machine allows it (root, or unprivileged user namespaces): the
//   namespace's first process runs PROGRAM and reaps what it leaves; nothing inside can signal it or see the
//   keeper (kill -9 $PPID and kill -STOP $PPID reach nothing), and when it dies the kernel kills everything in
//   the namespace, double forks and setsid included;
// - else in a process group of its own under this keeper, a child subreaper, which reports "group N" first so
//   the host can kill that group itself when the keeper is killed or stopped from inside.
// On SIGTERM (a timeout, or the host's death, even by kill -9) it kills the whole tree. So an execution never
// outlives its host. It reports the program's end on fd 3 as one line: "exit N", "signal N" or
// "spawn_failed REASON", only once every process of the tree is gone.
#pragma once

namespace agentworks::functions::keeper {

int keeper_main(int argc, char** argv);

}  // namespace agentworks::functions::keeper
