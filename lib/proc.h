/* proc.h — starting children with an exact fd table, and pidfds.
 *
 * Only the fds listed in the map reach the child (everything else is closed
 * by posix_spawn's closefrom), and every descriptor the library keeps is
 * O_CLOEXEC. No signal handlers, no waitpid(-1): children are waited through
 * their pidfd, so a multi-threaded caller's other children are never reaped.
 */
#ifndef OSB_PROC_H
#define OSB_PROC_H

#include "internal.h"
#include <sys/types.h>

/* Start ARGV[0] (an absolute path) with ENVP. FDS[i] becomes fd i in the
 * child for i < NFDS (every slot must be a valid fd); nothing else is
 * inherited. On success *PID and *PIDFD are set. */
int spawn_with_fds(const char *const *argv, const char *const *envp, const int *fds,
                   size_t nfds, pid_t *pid, int *pidfd, osb_error *err);

/* Run ARGV with stdin and stderr on /dev/null and return its stdout (at
 * most MAX bytes). For probes such as `bwrap --help`. */
int spawn_capture(const char *const *argv, size_t max, char **out, osb_error *err);

int pidfd_open_cloexec(pid_t pid);
int pidfd_kill(int pidfd, int sig);
/* Wait for the process behind PIDFD; *STATUS as from waitpid. */
int pidfd_wait(int pidfd, int *status);

/* A memfd (CLOEXEC) holding DATA, rewound to offset 0. */
int memfd_with_data(const char *name, const void *data, size_t len);

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t now_ms(void);

#endif
