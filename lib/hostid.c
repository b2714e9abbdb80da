/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* hostid.c — which host uid/gid a sandbox runs as (see hostid.h).
 *
 * The plan asks for the ids before anything is launched and keeps them (and
 * the lock) until the sandbox is gone; a session keeps them until it is
 * destroyed. Allocation is a walk of the range from a random start: an id
 * is taken when no passwd or group entry uses it and its byte of the lock
 * file can be locked. Open-file-description locks belong to the open file,
 * not the process, so two sandboxes of one process (two threads of execd)
 * exclude each other too, and a dead caller's locks vanish with it (its
 * sandboxes die with it: bwrap --die-with-parent).
 */
#include "hostid.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>

const char *hostid_kind_name(enum hostid_kind k)
{
	switch (k) {
	case HOSTID_CALLER: return "caller";
	case HOSTID_PINNED: return "pinned";
	case HOSTID_ALLOCATED: return "allocated";
	}
	return "?";
}

bool hostid_uid_is_account(uint32_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int r = getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res);

	return r != 0 || res != NULL;
}

bool hostid_gid_is_group(uint32_t gid)
{
	struct group gr, *res = NULL;
	char buf[16384];
	int r = getgrgid_r((gid_t)gid, &gr, buf, sizeof(buf), &res);

	return r != 0 || res != NULL;
}

/* Does MAP (/proc/self/uid_map or gid_map) map [FIRST, FIRST+COUNT) of
 * this user namespace? Outside the initial namespace (a container) the
 * range may not exist at all. */
static bool range_mapped(const char *map, uint32_t first, uint32_t count)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	char *line, *save = NULL;

	if (read_file_bounded(map, 65536, &text, &len) < 0)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long inside, outside, n;

		if (sscanf(line, "%llu %llu %llu", &inside, &outside, &n) == 3 &&
		    first >= inside && (unsigned long long)first + count <= inside + n)
			return true;
	}
	return false;
}

/* The lock file, opened anew (a description of our own), after checking
 * that only root can have put it there. */
static int open_lock_file(osb_error *err)
{
	_cleanup_close_ int dfd = -1;
	struct stat st;
	int fd;

	/* 0700: the directory is also root's session directory when
	 * XDG_RUNTIME_DIR is unset (helper/session-wire.c), which must be
	 * private; one an older version made 0755 is narrowed below. */
	if (mkdir(HOSTID_LOCK_DIR, 0700) < 0 && errno != EEXIST)
		return osb_err_set(err, OSB_E_HOST, errno, "identity",
		                   "cannot create %s for the host-id locks: %s", HOSTID_LOCK_DIR,
		                   strerror(errno));
	dfd = open(HOSTID_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0)
		return osb_err_set(err, OSB_E_HOST, errno, "identity", "%s: %s", HOSTID_LOCK_DIR,
		                   strerror(errno));
	if (st.st_uid != 0 || (st.st_mode & 022))
		return osb_err_set(err, OSB_E_HOST, EPERM, "identity",
		                   "%s is owned by uid %u with mode %04o; it must be root's and not "
		                   "writable by others (remove it; osb-isolate recreates it)",
		                   HOSTID_LOCK_DIR, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	if ((st.st_mode & 07777) != 0700 && fchmod(dfd, 0700) < 0)
		return osb_err_set(err, OSB_E_HOST, errno, "identity", "%s: chmod 0700: %s",
		                   HOSTID_LOCK_DIR, strerror(errno));
	fd = openat(dfd, "hostids.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return osb_err_set(err, OSB_E_HOST, errno, "identity", "%s: %s", HOSTID_LOCK_FILE,
		                   strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_nlink != 1) {
		close(fd);
		return osb_err_set(err, OSB_E_HOST, EPERM, "identity",
		                   "%s is not a regular root-owned file with one link; remove it",
		                   HOSTID_LOCK_FILE);
	}
	return fd;
}

/* Does this process have one thread? Unknown counts as more. */
static bool single_threaded(void)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	const char *t;

	if (read_file_bounded("/proc/self/status", 16384, &text, &len) < 0)
		return false;
	t = strstr(text, "\nThreads:\t");
	return t && strncmp(t + 10, "1\n", 2) == 0;
}

/* Start the account lookups of ID in a child of this process: the read end
 * of the pipe its answer comes through (*PID the child), or -1 when none
 * could be made (the caller then asks itself, which gives the same answer).
 * The child holds none of the starter's descriptors (its sockets, its id
 * locks) but stdio and the answer's: the modules may take long, and a peer
 * waiting for an end must not wait for them. */
static int lookup_start(uint32_t id, pid_t *pid)
{
	int fds[2];
	char c;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	*pid = fork();
	if (*pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (*pid == 0) {
		if (dup2(fds[1], 3) < 0 || close_range(4, ~0U, 0) < 0)
			_exit(1);
		c = (char)('0' + (hostid_uid_is_account(id) ? 1 : 0) + (hostid_gid_is_group(id) ? 2 : 0));
		_exit(write(3, &c, 1) == 1 ? 0 : 1);
	}
	close(fds[1]);
	return fds[0];
}

/* The answer of lookup_start's child PID through FD (closed, the child
 * reaped): 1 used, 0 free, or -OSB_E_HOST when it ended without one (its
 * lookups would have ended this process the same way). */
static int lookup_collect(uint32_t id, pid_t pid, int fd, osb_error *err)
{
	int st = 0;
	char c = 0, how[48];
	ssize_t n;

	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n == 1 && c >= '0' && c <= '3')
		return c != '0';
	return osb_err_set(err, OSB_E_HOST, EPROTO, "identity",
	                   "the account lookup of host id %u (getpwuid_r and getgrgid_r, in a child "
	                   "process) %s without an answer; check the host's name service (the "
	                   "passwd and group lines of /etc/nsswitch.conf)", id,
	                   wait_status_text(st, how, sizeof(how)));
}

/* Is ID used by an account or a group (lookup errors count as used)? With
 * APART, the lookups run in a child of this process (lookup_start): the name
 * service's modules (libnss_systemd and the libraries it needs, 636 KiB
 * resident on Debian 12) are loaded there and never into this process, which
 * may start a session and live as long as it. Only a single-threaded process
 * forks for it (a fork of a multithreaded one may run nothing but
 * async-signal-safe code). 1 used, 0 free, or -OSB_E_HOST. */
static int id_in_use(uint32_t id, bool apart, osb_error *err)
{
	pid_t pid;
	int fd = apart ? lookup_start(id, &pid) : -1;

	if (fd < 0)
		return hostid_uid_is_account(id) || hostid_gid_is_group(id);
	return lookup_collect(id, pid, fd, err);
}

/* TYPE F_WRLCK: 1 locked, 0 someone else holds it, -errno cannot lock at
 * all. F_UNLCK: gives the byte back. */
static int lock_byte(int fd, uint32_t off, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)off,
	                    .l_len = 1 };

	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return 1;
	return errno == EAGAIN || errno == EACCES ? 0 : -errno;
}

/* Where a walk of the range starts. */
static uint32_t walk_start(void)
{
	uint32_t start = 0;

	if (getrandom(&start, sizeof(start), GRND_NONBLOCK) != (ssize_t)sizeof(start))
		start = (uint32_t)getpid() * 2654435761u;
	return start;
}

int hostid_allocate_from(int fd, bool session, hostid *out, osb_error *err)
{
	bool apart = session && single_threaded();
	uint32_t start = walk_start();
	int r;

	for (uint32_t i = 0; i < HOSTID_RANGE_SIZE; i++) {
		uint32_t off = (start + i) % HOSTID_RANGE_SIZE, id = HOSTID_RANGE_BASE + off;

		/* The lock first: it is cheap, an account lookup is not. */
		r = lock_byte(fd, off, F_WRLCK);
		if (r < 0)
			return osb_err_set(err, OSB_E_HOST, -r, "identity", "cannot lock %s: %s",
			                   HOSTID_LOCK_FILE, strerror(-r));
		if (r == 0)
			continue;
		if ((r = id_in_use(id, apart, err)) != 0) {
			lock_byte(fd, off, F_UNLCK);
			if (r < 0)
				return r;
			continue;
		}
		*out = (hostid){ HOSTID_ALLOCATED, id, id, fd };
		return 0;
	}
	return osb_err_set(err, OSB_E_HOST, EAGAIN, "identity",
	                   "all %u host ids of the range %u-%u are in use by live sandboxes or "
	                   "accounts; wait for sandboxes to end", HOSTID_RANGE_SIZE,
	                   HOSTID_RANGE_BASE, HOSTID_RANGE_BASE + HOSTID_RANGE_SIZE - 1);
}

static int allocate(bool session, hostid *out, osb_error *err)
{
	int fd, r;

	if (!range_mapped("/proc/self/uid_map", HOSTID_RANGE_BASE, HOSTID_RANGE_SIZE) ||
	    !range_mapped("/proc/self/gid_map", HOSTID_RANGE_BASE, HOSTID_RANGE_SIZE))
		return osb_err_set(err, OSB_E_HOST, EINVAL, "identity",
		                   "the host-id range %u-%u is not mapped in this user namespace, so "
		                   "no sandbox identity can be allocated here; pin ids this namespace "
		                   "maps (\"host-ids UID GID\" in the policy, osb_policy_set_host_ids)",
		                   HOSTID_RANGE_BASE, HOSTID_RANGE_BASE + HOSTID_RANGE_SIZE - 1);
	if ((fd = open_lock_file(err)) < 0)
		return fd;
	r = hostid_allocate_from(fd, session, out, err);
	if (r < 0)
		close(fd);
	return r;
}

/* ---- asked ahead ------------------------------------------------------------ */

/* May this process run on more than one CPU? An ask needs one beside the
 * launch: on one, its child only takes turns with it. */
static bool cpus_beside(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) < 0 || CPU_COUNT(&set) > 1;
}

int hostid_ask_start_from(int fd, hostid_ask *a)
{
	uint32_t start = walk_start();

	*a = (hostid_ask)HOSTID_ASK_INIT;
	if (!single_threaded() || !cpus_beside())
		return -1;
	for (uint32_t i = 0; i < HOSTID_RANGE_SIZE; i++) {
		uint32_t off = (start + i) % HOSTID_RANGE_SIZE, id = HOSTID_RANGE_BASE + off;
		int r = lock_byte(fd, off, F_WRLCK);

		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		a->answer_fd = lookup_start(id, &a->pid);
		if (a->answer_fd < 0) {
			lock_byte(fd, off, F_UNLCK);
			return -1;
		}
		a->asked = true;
		a->ids = (hostid){ HOSTID_ALLOCATED, id, id, fd };
		return 0;
	}
	return -1;
}

void hostid_ask_start(const osb_policy *p, uid_t euid, hostid_ask *a)
{
	int fd;

	*a = (hostid_ask)HOSTID_ASK_INIT;
	/* hostid_ask_start_from checks for one thread. */
	if (euid != 0 || p->host_ids_set.set ||
	    !range_mapped("/proc/self/uid_map", HOSTID_RANGE_BASE, HOSTID_RANGE_SIZE) ||
	    !range_mapped("/proc/self/gid_map", HOSTID_RANGE_BASE, HOSTID_RANGE_SIZE) ||
	    (fd = open_lock_file(NULL)) < 0)
		return;
	if (hostid_ask_start_from(fd, a) < 0)
		close(fd);
}

int hostid_ask_answer(hostid_ask *a, osb_error *err)
{
	int r = 0;

	if (a->answer_fd >= 0)
		r = lookup_collect(a->ids.uid, a->pid, a->answer_fd, err);
	a->answer_fd = -1;
	a->pid = -1;
	hostid_release(&a->ids);
	return r;
}

void hostid_ask_end(hostid_ask *a)
{
	if (a->answer_fd >= 0) {
		kill(a->pid, SIGKILL);
		close(a->answer_fd);
		while (waitpid(a->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	a->answer_fd = -1;
	a->pid = -1;
	hostid_release(&a->ids);
}

/* ---- acquiring ------------------------------------------------------------------ */

int hostid_acquire(const osb_policy *p, uid_t euid, gid_t egid, bool session, hostid *out,
                   osb_error *err)
{
	return hostid_acquire_asked(p, euid, egid, session, NULL, out, err);
}

int hostid_acquire_asked(const osb_policy *p, uid_t euid, gid_t egid, bool session,
                         hostid_ask *ask, hostid *out, osb_error *err)
{
	const pol_set *pin = &p->host_ids_set;

	*out = (hostid)HOSTID_INIT;
	if (ask && ask->answer_fd >= 0 && ask->ids.lock_fd >= 0) {
		/* Ids asked about ahead serve an allocation only (hostid_ask_start
		 * asks for nothing else). */
		if (euid == 0 && !pin->set) {
			*out = ask->ids;
			ask->ids.lock_fd = -1;
			return 0;
		}
		hostid_ask_end(ask);
	}
	/* After an ask, a walk looks up apart too, as the ask did: the
	 * modules stay out of this process. */
	if (ask && ask->asked)
		session = true;
	if (euid != 0) {
		if (pin->set)
			return osb_err_set(err, OSB_E_POLICY, EPERM, "identity",
			                   "%s:%u: host-ids %u %u: only root can choose the host ids of a "
			                   "sandbox; an unprivileged caller's sandbox is the caller itself",
			                   pin->o.file, pin->o.line, p->host_uid, p->host_gid);
		*out = (hostid){ HOSTID_CALLER, (uint32_t)euid, (uint32_t)egid, -1 };
		return 0;
	}
	if (pin->set) {
		if (p->host_uid == 0 || p->host_gid == 0)
			return osb_err_set(err, OSB_E_POLICY, EINVAL, "identity",
			                   "%s:%u: host-ids %u %u: a sandbox never runs as host uid 0 "
			                   "or gid 0", pin->o.file, pin->o.line, p->host_uid, p->host_gid);
		*out = (hostid){ HOSTID_PINNED, p->host_uid, p->host_gid, -1 };
		return 0;
	}
	return allocate(session, out, err);
}

void hostid_release(hostid *h)
{
	if (h->lock_fd >= 0)
		close(h->lock_fd);
	h->lock_fd = -1;
}
