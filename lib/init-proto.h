/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-proto.h — the contract between the launch plan and osb-isolate-init.
 *
 * bwrap execs the init as the sandbox's first untrusted-facing program:
 *   osb-isolate-init [OPTIONS] -- CMD [ARG...]
 * The launcher and the init are installed apart (the init under libexec, the
 * library wherever it is linked), so the first thing they agree on is this
 * contract's version, INIT_PROTO_VERSION:
 *   --proto N          before any other option but --error-fd (the launcher
 *                      passes "--error-fd FD --proto N" first). N must equal
 *                      the init's INIT_PROTO_VERSION; anything else, or no
 *                      --proto at all (a launcher older than the handshake,
 *                      protocol 0), fails stage "init:args" with errno EPROTO
 *                      and "init protocol mismatch: the launcher speaks
 *                      protocol N, this init implements protocol M; ...".
 *                      Bump INIT_PROTO_VERSION on any change a launcher or an
 *                      init of the other version would misread: an option
 *                      added, removed or given a new meaning, a report or
 *                      session message changed, an fd slot moved. A change
 *                      both sides already understand (a new message text)
 *                      keeps it.
 * Options (all fds are numbers in the init's own fd table):
 *   --error-fd N       report channel. The init marks it CLOEXEC, writes
 *                      INIT_MSG_EXEC ("X", followed by the CLOCK_MONOTONIC
 *                      nanoseconds at which the init's main() began, in
 *                      decimal: a timing the launcher reports and trusts
 *                      for nothing else; a launcher that reads only the
 *                      letter is not misled) just before execve and, if any
 *                      step or the execve fails, one line
 *                      "E<stage>\t<errno>\t<message>\n", then exits 125.
 *                      EOF without "X" means the init never got to exec.
 *                      The launcher passes one end of a SOCK_SEQPACKET
 *                      socketpair with SO_PASSCRED on its end: the kernel
 *                      stamps each message with the init's pid, uid and gid
 *                      as the host sees them. After "X" the init waits for
 *                      INIT_MSG_GO ("G"), which the launcher sends only when
 *                      those ids (and /proc/PID/status) are the planned host
 *                      ids, never 0; anything else: exit 125 without exec.
 *                      On a pipe (tests running the init by hand) there is
 *                      no answer to wait for. As pid 1 of a command the init
 *                      keeps the channel while the command runs and takes
 *                      the launcher's end closing (the launcher's process
 *                      ended, however) as the order to SIGKILL every other
 *                      process of the sandbox: bwrap's --die-with-parent
 *                      cannot end a root-mode sandbox, whose host ids
 *                      bwrap's capability-less monitor may not signal.
 *   --env-fd N         the command's environment: a memfd of NUL-terminated
 *                      NAME=VALUE entries (at most ENV_MAX_BYTES), read
 *                      first, applied only by the final execve (and its PATH
 *                      search). The init itself keeps the fixed environment
 *                      bwrap was started with.
 *   --chdir DIR        enter DIR once the identity is final (bwrap, its
 *                      capabilities dropped, could not enter a 0700
 *                      directory of the sandbox's user).
 *   --proc-ro PATH     repeatable: PATH must be on a read-only mount and not
 *                      writable (stage "init:proc").
 *   --proc-masked PATH repeatable: PATH must be a read-only /dev/null (char
 *                      1:3) or an empty read-only tmpfs directory.
 *   --masked PATH      repeatable: the same, for a host identity file of the
 *                      view (/etc/shadow, ...).
 *   --synthesized PATH repeatable: PATH must be a regular file on a
 *                      read-only tmpfs (bwrap's copy of the plan's data).
 *   --make-cover       (no value; protocol 8) the init makes what
 *                      --proc-ro, --proc-masked and --masked name, in that
 *                      order, before the first audit: each --proc-ro PATH
 *                      bound onto itself and made read-only (its locked
 *                      mount flags kept), /dev/null bound read-only over
 *                      each other file, an empty read-only tmpfs (mode
 *                      0555) over each directory. Each target is opened
 *                      O_PATH|O_NOFOLLOW (a symlink is refused: the plan
 *                      names the files themselves) and mounted on through
 *                      /proc/self/fd. Stage "init:mounts"
 *                      (helper/init-cover.c), the first of the mount
 *                      stages (a cover is a mount): the init makes a mount
 *                      namespace of its own first (with --overlay too, one
 *                      for both), which needs CAP_SYS_ADMIN; the launcher
 *                      grants CAP_SYS_ADMIN and CAP_SETPCAP for it, which
 *                      in user namespace mode are cleared once the mount
 *                      steps are done, in root mode with the id switch, and
 *                      the capability check below finds every set empty,
 *                      the bounding set included. The proc audit verifies
 *                      the result as without --make-cover.
 *   --reprotect MAJ:MIN:INO:PATH  (protocol 9) repeatable: a read-only rule
 *                      inside a writable bind (a workspace's .git/hooks),
 *                      which bwrap is not given. PATH lies beneath a
 *                      --writable PATH that has an --expect-bind (the
 *                      deepest such is its bind); needs --audit-mounts. Right
 *                      after --make-cover's mounts, shallowest PATH first,
 *                      the init resolves PATH beneath that bind one component
 *                      at a time with openat2(RESOLVE_BENEATH|
 *                      RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS), creating
 *                      nothing; makes every directory on the way that is not
 *                      yet a mount root a mount point of itself (open_tree
 *                      OPEN_TREE_CLONE|AT_RECURSIVE, move_mount onto the open
 *                      directory), so that rename(2) and rmdir(2) of it fail
 *                      with EBUSY; requires the leaf to be inode INO of device
 *                      MAJ:MIN and binds it read-only onto itself
 *                      (mount_setattr MOUNT_ATTR_RDONLY; the other flags are
 *                      the bind's). Then it resolves every PATH again and
 *                      requires a read-only mount root holding that inode. A
 *                      symlink, a missing component, another inode: "policy
 *                      error: cannot re-protect PATH read-only: ..." (stage
 *                      "init:mounts", EPERM, ELOOP, ENOENT, ...). The mount
 *                      audit then expects the directories made mount points
 *                      as writable mounts. It needs the mount namespace and
 *                      the capabilities of --make-cover (granted alike).
 *   --stderr-fd N      the command's stderr: dup2'd onto 2, then closed.
 *   --seccomp-fd N     a BPF program (struct sock_filter[]), loaded last.
 *   --rlimit NAME=V    NAME is cpu|as|nofile|fsize|nproc|core; soft = hard
 *                      = V ("unlimited" allowed).
 *   --expect-uid U / --expect-gid G  refuse unless real, effective and
 *                      saved ids equal these (user-namespace mode).
 *   --switch-ids U:G   root mode: drop the bounding set, setgroups(0),
 *                      setresgid, setresuid to U:G (both non-zero), verify.
 *   --session-fd N     session mode (no command follows): see below.
 *   --deadline-ms MS   command mode only (protocol 2): as pid 1, once MS
 *                      milliseconds have passed since the command started,
 *                      send INIT_MSG_DEADLINE ("T") on the report channel,
 *                      which pid 1 keeps open for this, and SIGKILL every
 *                      other process of the sandbox: the wall limit holds
 *                      even while the launcher is stopped or starved.
 *   --watch-full PATH  repeatable (at most INIT_MAX_WATCH): a size-bounded
 *                      tmpfs. Command mode (protocol 3): when the command
 *                      has ended, pid 1 sends INIT_MSG_FULL ("F" followed
 *                      by PATH, one message each) on the report channel
 *                      for every PATH with no block or no inode left
 *                      (statvfs), before it exits: the result can say the
 *                      command ran out of room rather than leave a bare
 *                      ENOSPC to guess from. Session mode (protocol 4):
 *                      each session_exited.tmpfs_full has bit K set when
 *                      the K-th PATH given was full as that command ended.
 *   --idle-ms MS       session mode only: exit INIT_EXIT_IDLE after MS
 *                      milliseconds without a running command or a request.
 *   --audit-mounts     (no value) audit /proc/self/mountinfo, see below.
 *   --writable PATH    repeatable: a writable mount the plan expects at PATH
 *                      (workspace and write destinations, each tmpfs, each
 *                      proc mount). Needs --audit-mounts.
 *   --dev-mount PATH   repeatable: a bwrap --dev mount at PATH; expected
 *                      writable, and so are the mounts bwrap makes directly
 *                      beneath it. Needs --audit-mounts.
 *   --overlay SIZE:XATTR:DEST  (protocol 3) the workspace bind at DEST,
 *                      verified by --expect-bind, becomes the read-only lower
 *                      layer of an overlay mounted at DEST; the upper and work
 *                      directories lie on a tmpfs of SIZE bytes that is never
 *                      attached to a path; XATTR is "user" (userxattr, user
 *                      namespace mode) or "trusted" (root mode). Stage
 *                      "init:overlay" (helper/init-overlay.c), right after
 *                      "init:mounts": the init makes a mount namespace of its
 *                      own, mounts, and audits the table again, the overlay at
 *                      DEST (type overlay) being the one writable mount added.
 *                      The launcher grants the init CAP_SYS_ADMIN, CAP_CHOWN,
 *                      CAP_DAC_OVERRIDE, CAP_FOWNER and CAP_FSETID for it; in
 *                      user namespace mode they are cleared at once, in root
 *                      mode with the id switch, and the capability check
 *                      below still finds every set empty.
 *   --overlay-layer PATH  (protocol 6) with --overlay: the upper and work
 *                      directories lie in the directory bound at PATH (a
 *                      persisted layer, lib/layer.h; "upper" and "work" are
 *                      made there when missing) instead of a tmpfs. PATH is
 *                      verified by --expect-bind and expected writable by the
 *                      first audit only: once the overlay is mounted the init
 *                      unmounts it (root mode), or, where the mount is locked
 *                      (user namespace mode: the init's mount namespace is
 *                      owned by a user namespace below bwrap's), covers it
 *                      with an empty read-only tmpfs; the second audit then
 *                      finds no writable mount there.
 *   --landlock MODE    auto|required|off (absent: off), see below.
 *   --landlock-rw PATH repeatable: writes are allowed beneath PATH. Needs
 *                      --landlock.
 * PATH values are canonical absolute paths inside the sandbox, spelled as
 * mountinfo spells targets (no trailing slash, no ".", ".." or empty
 * component); a PATH given twice to the same option is refused.
 * Options take "--opt VALUE" or "--opt=VALUE"; a repeated option is refused.
 * A terminal on stdin (a pseudo-terminal made for the command, `--tty`)
 * becomes the command's controlling terminal, in a session of its own.
 * Every other fd (>= 3) is closed on exec; no_new_privs is set; capabilities
 * must be empty (verified with capget(2) and prctl(2): effective,
 * permitted, inheritable and ambient, and with --switch-ids the bounding set;
 * the refusal names them in libcap's text form, see cap_to_text(3)). The
 * init is a static executable (no library of the sandbox's view is needed to
 * run it) and links neither libcap nor libmount. Stages, in order: "init:args",
 * "init:env", "init:mounts", "init:overlay", "init:identity", "init:caps", "init:proc",
 * "init:chdir", "init:landlock", "init:rlimits", "init:fds", "init:seccomp",
 * "init:fork", "exec".
 *
 * As the sandbox's pid 1 (bwrap --as-pid-1, always used by the launcher),
 * the init forks the command after every step above and reaps orphans; it
 * exits with the command's status (128+N when killed by signal N), which
 * ends the pid namespace. Run as any other pid it execs the command itself.
 *
 * init:mounts (helper/init-guard.c), with --audit-mounts: every mount in
 * /proc/self/mountinfo (lib/mountinfo.c, a strict parser of proc(5)'s
 * format: a line it cannot parse, or one whose per-mount or superblock
 * options do not start with "ro" or "rw", fails the audit) that is writable
 * — neither its per-mount nor its superblock options start with "ro" — and
 * visible — statx(STATX_MNT_ID) of its target names
 * it; an entry covered by a later mount is ignored — must have a target that
 * is a --writable or --dev-mount PATH, or be directly beneath a --dev-mount
 * and be what bwrap's --dev makes there: a character device bind named null,
 * zero, full, random, urandom, tty or console, or a devpts at "pts" (bwrap
 * 0.8.0 mounts nothing at "shm" or "mqueue"; the submounts it makes beneath
 * a proc mount are read-only). Anything else fails with errno EPERM and a
 * message that starts "policy error: writable mount at TARGET (type T,
 * source S, root R)". The sandbox root must not be writable: with no
 * read-only root bind, bwrap's root tmpfs needs "--remount-ro /".
 *
 * init:landlock (helper/init-guard.c), after the capability check (the init
 * sets no_new_privs first thing, as Landlock requires): the ABI is probed
 * with landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION).
 * ENOSYS or EOPNOTSUPP (no Landlock): auto skips, required fails (errno
 * EOPNOTSUPP). Otherwise one ruleset handles every write-type access the ABI
 * knows (WRITE_FILE, REMOVE_DIR, REMOVE_FILE, MAKE_CHAR/DIR/REG/SOCK/FIFO/
 * BLOCK/SYM; REFER from ABI 2; TRUNCATE from ABI 3) and grants them all
 * beneath each --landlock-rw PATH (opened O_PATH|O_NOFOLLOW; a symlink is
 * refused; on a non-directory only WRITE_FILE and TRUNCATE). Reads,
 * execution and ioctls are not handled, so they stay allowed everywhere;
 * fds already open (the stdio pipes) are not affected. From ABI 6 the domain
 * is also scoped (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
 * LANDLOCK_SCOPE_SIGNAL): the command cannot connect to abstract unix
 * sockets created outside the sandbox (X11, D-Bus, ... when it shares the
 * host's network namespace) nor signal a process outside it (bwrap's reaper
 * included). Network access (ABI 4) is not handled: that is the network
 * namespace's job. The domain covers everything the init execs or, in
 * session mode, the broker and every command it starts.
 *
 * --net-relay FD:PORT (protocol 6, "network allow"): FD is one end of a
 * SOCK_SEQPACKET socketpair whose other end the filtering proxy outside
 * holds. Once the seccomp filter is loaded (so with the command's identity,
 * capabilities, Landlock domain and filter), stage "init:net" listens on
 * 127.0.0.1:PORT in the sandbox's network namespace and forks a relay that
 * sends each accepted connection's socket over FD (SCM_RIGHTS, one byte of
 * data); the init then closes both. A failure fails the launch (exit 125,
 * stage "init:net"): the command never runs without its way out.
 *
 * Session mode: osb-isolate-init [OPTIONS] --session-fd N [--idle-ms MS]
 * The init runs every check above and loads the seccomp program, exactly as
 * before a command, so the broker runs under the same filter and identity as
 * any command it starts. Instead of "X" it writes INIT_MSG_READY on the error
 * fd and closes it, then serves requests on fd N, one end of a SOCK_SEQPACKET
 * socketpair (helper/broker.c). bwrap runs it with --as-pid-1, so no process
 * of the sandbox can kill or stop it, and its exit ends the pid namespace.
 * Protocol (all integers native-endian; one message per packet):
 *   session socket, library -> broker: struct session_exec_req, then cwd
 *     (empty: the session's), argv[0..argc) and envp[0..envc), each
 *     NUL-terminated; the whole packet is at most SESSION_MSG_MAX bytes.
 *     SCM_RIGHTS carries exactly four fds: the exec's channel (one end of a
 *     new SOCK_SEQPACKET socketpair), then the command's stdin, stdout and
 *     stderr, which the command gets as fds 0, 1, 2 (output never passes
 *     through the broker). EOF on the session socket: kill every command,
 *     exit 0.
 *   exec channel, broker -> library: struct session_started (after a
 *     successful execve) or struct session_failed (nothing runs), then for a
 *     started command struct session_exited once its leader has exited.
 *   exec channel, library -> broker: struct session_kill (signal the
 *     command's process group); EOF (the library dropped the handle): kill
 *     the group with SIGKILL.
 *   session socket, library -> broker (protocol 5), an overlay session's
 *     upper layer: struct session_layer_req; SCM_RIGHTS carries exactly one
 *     fd, the reply channel (one end of a new SOCK_SEQPACKET socketpair).
 *     The broker answers there with one struct session_layer_reply and
 *     closes it; unless err is set, SCM_RIGHTS brings the upper directory
 *     (an O_RDONLY fd the init opened right after mounting the overlay,
 *     helper/init-overlay.c). LAYER_GET only answers. LAYER_HOLD is
 *     refused with EBUSY (and the count in running) while a command runs;
 *     otherwise every other process of the sandbox gets SIGKILL and is
 *     reaped before the answer, and until LAYER_RELEASE (or EOF) every exec
 *     request is refused with stage "session" and EBUSY, and the idle timeout
 *     does not run: nothing of the sandbox writes the upper layer while the
 *     library reads it for a commit (helper/broker-overlay.c). Without an
 *     overlay the answer is ENOENT.
 * Each command leads its own process group, which gets SIGKILL when the
 * leader exits or its timeout expires (session_exited.timed_out is then 1).
 * There are no in-band markers: the command's bytes never share a channel
 * with status.
 */
#ifndef OSB_INIT_PROTO_H
#define OSB_INIT_PROTO_H

#include <stdint.h>

/* The version of this contract; see --proto above for when to bump it. */
#define INIT_PROTO_VERSION 9

#define INIT_MSG_EXEC 'X'
#define INIT_MSG_ERROR 'E'
#define INIT_MSG_READY 'R'
#define INIT_MSG_GO 'G'
#define INIT_MSG_DEADLINE 'T'
#define INIT_MSG_FULL 'F'
#define INIT_MAX_WATCH 16
#define ENV_MAX_BYTES (16u * 1024u * 1024u)
#define INIT_EXIT_FAILURE 125
#define INIT_EXIT_IDLE 124

/* ---- session protocol ---------------------------------------------------- */

#define SESSION_MSG_MAX (128u * 1024u)
#define SESSION_MAX_STRINGS 16384u       /* argc + envc */
#define SESSION_NFDS 4

enum session_msg_type {
	SESSION_EXEC = 0x45584543u,       /* "EXEC" */
	SESSION_KILL = 0x4b494c4cu,       /* "KILL" */
	SESSION_STARTED = 0x53545254u,    /* "STRT" */
	SESSION_FAILED = 0x4641494cu,     /* "FAIL" */
	SESSION_EXITED = 0x45584954u,     /* "EXIT" */
	SESSION_STATE = 0x53544154u,      /* "STAT" */
	SESSION_SERVICES = 0x53455256u,   /* "SERV" */
	SESSION_SERVICE_LIST = 0x53525653u, /* "SRVS" */
	SESSION_LAYER = 0x4c415952u,      /* "LAYR" (protocol 5) */
	SESSION_LAYER_REPLY = 0x4c415950u, /* "LAYP" */
};

/* session_exec_req.flags. SESSION_F_STATE (shell-state sessions,
 * lib/shell-state.h): the command gets the write end of a pipe as fd
 * SESSION_STATE_FD, and whatever it wrote there by the time its leader
 * exited (at most SESSION_MSG_MAX bytes) is sent back as one
 * struct session_state and its bytes, just before session_exited; nothing
 * is sent when it wrote nothing or too much. A flag the broker does not
 * know is refused (stage "request"). */
#define SESSION_F_STATE 1u
/* SESSION_F_KEEP (services): when the leader exits its process group is
 * not killed; the exit is reported at once, and the group, while anything
 * of it runs, is listed by SESSION_SERVICES until the session ends. */
#define SESSION_F_KEEP 2u
/* SESSION_F_SCRIPT (large scripts): SCM_RIGHTS carries a fifth fd, a
 * memfd with the script, which the command gets as SESSION_SCRIPT_FD. */
#define SESSION_F_SCRIPT 4u
#define SESSION_F_KNOWN (SESSION_F_STATE | SESSION_F_KEEP | SESSION_F_SCRIPT)
#define SESSION_STATE_FD 9
#define SESSION_SCRIPT_FD 8

/* SESSION_SERVICES: struct session_services_req with one fd, a reply
 * channel, which gets one struct session_service_list and COUNT
 * struct session_service, then is closed. */
#define SESSION_MAX_SERVICES 256
struct session_services_req {
	uint32_t type;          /* SESSION_SERVICES */
	uint32_t reserved;      /* 0 */
};

struct session_service {
	int32_t pgid;           /* the command's pid, its group's id */
	uint32_t reserved;
	int64_t started_unix_ms;
	char command[240];      /* its argv, blank-separated, clipped */
};

struct session_service_list {
	uint32_t type;          /* SESSION_SERVICE_LIST */
	uint32_t count;
};

struct session_exec_req {
	uint32_t type;          /* SESSION_EXEC */
	uint32_t argc;          /* >= 1 */
	uint32_t envc;
	uint32_t flags;         /* SESSION_F_* */
	uint64_t timeout_ms;    /* wall limit of this command; 0: none */
};

struct session_kill {
	uint32_t type;          /* SESSION_KILL */
	int32_t sig;            /* 1..64 */
};

struct session_started {
	uint32_t type;          /* SESSION_STARTED */
	int32_t pid;            /* in the sandbox's pid namespace */
};

struct session_failed {
	uint32_t type;          /* SESSION_FAILED */
	int32_t err;            /* errno */
	char stage[32];         /* "exec" (execve failed), "cwd", "request", "fork" */
	char message[512];      /* NUL-terminated */
};

struct session_state {
	uint32_t type;          /* SESSION_STATE */
	uint32_t len;           /* bytes that follow in the same packet */
};

struct session_exited {
	uint32_t type;          /* SESSION_EXITED */
	int32_t exit_code;      /* -1 when killed by a signal */
	int32_t sig;            /* 0 when it exited */
	uint32_t timed_out;     /* 1: killed because its timeout expired */
	uint64_t user_us, sys_us;   /* rusage of the leader and the children it waited for */
	uint64_t max_rss_kib;
	uint32_t tmpfs_full;    /* bit K: the K-th --watch-full mount was full at the exit */
	uint32_t reserved;
};

/* ---- an overlay session's upper layer (protocol 5) ------------------------ */

enum session_layer_op {
	LAYER_GET = 1,          /* the upper directory */
	LAYER_HOLD = 2,         /* the same, once nothing else of the sandbox runs */
	LAYER_RELEASE = 3,      /* end a hold */
};

struct session_layer_req {
	uint32_t type;          /* SESSION_LAYER */
	uint32_t op;            /* enum session_layer_op */
};

struct session_layer_reply {
	uint32_t type;          /* SESSION_LAYER_REPLY */
	int32_t err;            /* 0, or errno: EBUSY (a command runs), ENOENT (no overlay) */
	uint32_t running;       /* commands running (EBUSY) */
	uint32_t reserved;
};

#endif
