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

// `agentworks-keeper --launcher --parent PID`, fd 3 a SOCK_SEQPACKET socket to its host: one long-lived process per
// host thread that runs executions, which forks a keeper for each request instead of the host starting the keeper
// program for every call (an exec and the C library's start, about 1 ms, saved per call). A request is one byte
// with five descriptors: the keeper's stdin, stdout, stderr and status (its fds 0-3), and a memfd holding
// "CWD\0COUNT\0" then COUNT program arguments and the environment entries, each NUL-terminated. The reply is
// "pid N" with the keeper's pidfd, or "error TEXT". The forked keeper behaves exactly as one started as a program,
// with this launcher as the parent whose death it watches; the launcher dies with its host (SIGKILL) or exits when
// the host closes its socket, and reaps its keepers.
int launcher_main(int argc, char** argv);

}  // namespace agentworks::functions::keeper
