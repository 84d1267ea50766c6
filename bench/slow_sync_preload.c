/* LD_PRELOAD shim for the slow-disk regime of the benchmarks: every fsync and fdatasync of the process (and of
 * the children that inherit LD_PRELOAD) first sleeps AGENTWORKS_BENCH_SYNC_DELAY_US microseconds (default 4000),
 * then syncs for real. It stands for a loaded or remote disk where each flush costs milliseconds, which this
 * machine's disk cannot be made to be without root (dm-delay). docs/benchmarks.md says how it is used. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static long delay_us(void) {
  static long cached = -1;
  if (cached < 0) {
    const char* text = getenv("AGENTWORKS_BENCH_SYNC_DELAY_US");
    cached = text != NULL && *text != '\0' ? strtol(text, NULL, 10) : 4000;
    if (cached < 0) cached = 0;
  }
  return cached;
}

static void pause_for_disk(void) {
  const long us = delay_us();
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int fdatasync(int fd) {
  static int (*real)(int) = NULL;
  if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  pause_for_disk();
  return real(fd);
}

int fsync(int fd) {
  static int (*real)(int) = NULL;
  if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  pause_for_disk();
  return real(fd);
}
