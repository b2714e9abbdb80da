/* init-proto.h — the contract between the launch plan and osb-isolate-init.
 *
 * bwrap execs the init as the sandbox's first untrusted-facing program:
 *   osb-isolate-init [OPTIONS] -- CMD [ARG...]
 * Options (all fds are numbers in the init's own fd table):
 *   --error-fd N       report channel (a pipe). The init marks it CLOEXEC,
 *                      writes INIT_MSG_EXEC ("X") just before execve and, if
 *                      any step or the execve fails, one line
 *                      "E<stage>\t<errno>\t<message>\n", then exits 125.
 *                      EOF without "X" means the init never got to exec.
 *   --stderr-fd N      the command's stderr: dup2'd onto 2, then closed.
 *   --seccomp-fd N     a BPF program (struct sock_filter[]), loaded last.
 *   --rlimit NAME=V    NAME is cpu|as|nofile|fsize|nproc|core; soft = hard
 *                      = V ("unlimited" allowed).
 *   --expect-uid U / --expect-gid G  refuse unless real, effective and
 *                      saved ids equal these (user-namespace mode).
 *   --switch-ids U:G   root mode: drop the bounding set, setgroups(0),
 *                      setresgid, setresuid to U:G (both non-zero), verify.
 * Options take "--opt VALUE" or "--opt=VALUE"; a repeated option is refused.
 * Every other fd (>= 3) is closed on exec; no_new_privs is set; capabilities
 * must be empty (verified with libcap). Stages, in order: "init:args",
 * "init:identity", "init:caps", "init:rlimits", "init:fds", "init:seccomp",
 * "exec".
 */
#ifndef OSB_INIT_PROTO_H
#define OSB_INIT_PROTO_H

#define INIT_MSG_EXEC 'X'
#define INIT_MSG_ERROR 'E'
#define INIT_EXIT_FAILURE 125

#endif
