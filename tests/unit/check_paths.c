/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_paths.c — unit tests for lib/paths.c, the path verifier.
 *
 * Every case builds its own tree under a fresh mkdtemp directory and is
 * chosen so that a realpath-plus-prefix check would get it wrong: sibling
 * directories sharing a name prefix, "..", symlinks in every position,
 * magic links, bind mounts, hard links, FIFOs and devices, and a race that
 * swaps a directory with a symlink while resolutions run. The symlink, ".."
 * and mount cases run twice: once through openat2 and once through the
 * component walk that replaces it on kernels without openat2 (loop index 1
 * sets PATHS_TEST_FORCE_WALK). Mounts are made in a forked child inside a
 * private mount namespace (a user namespace too when not root), so the host
 * and the test process never see them.
 */
#include "paths.h"
#include "hostpath.h"
#include "mountinfo.h"
#include "probe.h"
#include "viewscan.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/magic.h>

#define SUFFIX_ESC "(write paths may not contain symlinks)"

static char TOP[64];            /* this run's directory; main removes it */
static char T[96];              /* this test's private tree, inside TOP */

/* fstatfs fails with FSTATFS_FAIL (an errno) while it is set: linked with
 * -Wl,--wrap=fstatfs (Makefile.am), for a file system the kernel cannot
 * describe (EIO, EOVERFLOW, a filter's ENOSYS). */
int __real_fstatfs(int fd, struct statfs *buf);
int __wrap_fstatfs(int fd, struct statfs *buf);
static int fstatfs_fail;

int __wrap_fstatfs(int fd, struct statfs *buf)
{
	if (fstatfs_fail) {
		errno = fstatfs_fail;
		return -1;
	}
	return __real_fstatfs(fd, buf);
}

/* While STATX_NO_MNT_ID is set, statx gives no mount id (as before Linux
 * 5.8): -Wl,--wrap=statx (Makefile.am). */
int __real_statx(int dfd, const char *path, int flags, unsigned mask, struct statx *stx);
int __wrap_statx(int dfd, const char *path, int flags, unsigned mask, struct statx *stx);
static bool statx_no_mnt_id;

int __wrap_statx(int dfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
	int r = __real_statx(dfd, path, flags, mask, stx);

	if (r == 0 && statx_no_mnt_id)
		stx->stx_mask &= ~(unsigned)STATX_MNT_ID;
	return r;
}

/* ---- fixture and helpers ---------------------------------------------- */

/* Paths under T, from a ring of buffers so several fit in one call. */
__attribute__((format(printf, 1, 2)))
static const char *P(const char *fmt, ...)
{
	static char ring[8][PATH_MAX];
	static unsigned next;
	char *buf = ring[next++ % 8];
	char rel[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	ck_assert_int_lt(n, (int)sizeof(rel));
	n = snprintf(buf, PATH_MAX, "%s/%s", T, rel);
	ck_assert_int_lt(n, PATH_MAX);
	return buf;
}

static void mk_dir(const char *rel)
{
	ck_assert_msg(mkdir(P("%s", rel), 0755) == 0, "mkdir %s: %m", rel);
}

static void mk_file(const char *rel, const char *content)
{
	int fd = open(P("%s", rel), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	ck_assert_msg(fd >= 0, "create %s: %m", rel);
	ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

static void mk_link(const char *target, const char *rel)
{
	ck_assert_msg(symlink(target, P("%s", rel)) == 0, "symlink %s: %m", rel);
}

static int open_dir(const char *rel)
{
	int fd = open(P("%s", rel), O_PATH | O_DIRECTORY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "open %s: %m", rel);
	return fd;
}

static struct stat stat_of(const char *path)
{
	struct stat st;

	ck_assert_msg(lstat(path, &st) == 0, "stat %s: %m", path);
	return st;
}

static void assert_same_inode(int fd, const char *path)
{
	struct stat a, b = stat_of(path);

	ck_assert_int_eq(fstat(fd, &a), 0);
	ck_assert_uint_eq(a.st_dev, b.st_dev);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
}

static char *slurp(const char *path)
{
	char *buf = NULL;

	ck_assert_int_eq(read_file_bounded(path, 1 << 20, &buf, NULL), 0);
	return buf;
}

static uint64_t mount_id(int fd)
{
	struct statx stx;

	ck_assert_int_eq(statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx), 0);
	return stx.stx_mnt_id;
}

/* Remove a tree, never descending into another mount: a bind mount on
 * the same filesystem has the same st_dev, so only the mount id tells. */
static void rm_tree_at(int dfd, const char *name, uint64_t mnt)
{
	struct stat st;
	struct statx stx;
	struct dirent *de;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dfd, name, 0);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 || stx.stx_mnt_id != mnt) {
		close(fd);
		return;
	}
	fchmod(fd, 0700);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rm_tree_at(dirfd(d), de->d_name, mnt);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static void setup(void)
{
	snprintf(T, sizeof(T), "%s/t.XXXXXX", TOP);
	ck_assert_ptr_nonnull(mkdtemp(T));
	paths_set_test_flags(0);
}

static void teardown(void)
{
	int fd = open(T, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (T[0] && fd >= 0)
		rm_tree_at(AT_FDCWD, T, mount_id(fd));
	if (fd >= 0)
		close(fd);
	T[0] = '\0';
}

/* Loop index 0: openat2; 1: the component walk. */
static void use_mode(int i)
{
	paths_set_test_flags(i ? PATHS_TEST_FORCE_WALK : 0);
}

/* Resolve REL beneath T/data and expect a refusal with ERRNO and MESSAGE. */
static void expect_refused(const char *rel, int sys_errno, const char *message)
{
	osb_error err = { 0 };
	int root = open_dir("data"), fd = -1;

	ck_assert_int_eq(path_resolve_beneath(root, P("data"), rel, &fd, &err), -OSB_E_PATH);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(err.code, OSB_E_PATH);
	ck_assert_str_eq(err.stage, "paths");
	ck_assert_int_eq(err.sys_errno, sys_errno);
	ck_assert_str_eq(err.message, message);
	close(root);
}

/* The public API reads the root's name back from the kernel. */
static void expect_api_refused(int r, const osb_error *err, int sys_errno, const char *message)
{
	ck_assert_int_ge(err->code, OSB_E_USAGE);
	ck_assert_int_eq(r, -err->code);
	ck_assert_int_eq(err->sys_errno, sys_errno);
	ck_assert_str_eq(err->message, message);
}

/* A file API call failed as every call fails (-OSB_E_*), with SYS_ERRNO in
 * the error. */
static void expect_file_errno(int r, const osb_error *err, int sys_errno)
{
	ck_assert_int_ge(err->code, OSB_E_USAGE);
	ck_assert_int_eq(r, -err->code);
	ck_assert_int_eq(err->sys_errno, sys_errno);
}

/* ---- lexical rule ------------------------------------------------------ */

START_TEST(test_dotdot_into_sibling_sharing_prefix_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_dir("database");
	mk_file("database/x", "secret");
	/* realpath gives T/database/x, which starts with the string T/data. */
	expect_refused("../database/x", EINVAL,
	               P("data/../database/x: component \"..\" refused (paths may not leave their root)"));
}
END_TEST

START_TEST(test_dotdot_to_etc_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_dir("data/a");
	expect_refused("../etc", EINVAL,
	               P("data/../etc: component \"..\" refused (paths may not leave their root)"));
	/* Even a ".." that stays inside is refused: the rule is lexical. */
	expect_refused("a/../a", EINVAL,
	               P("data/a/../a: component \"..\" refused (paths may not leave their root)"));
}
END_TEST

START_TEST(test_dot_component_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_file("data/x", "");
	expect_refused("./x", EINVAL,
	               P("data/./x: component \".\" refused (write the path without \".\" components)"));
}
END_TEST

START_TEST(test_doubled_slash_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_dir("data/x");
	mk_file("data/x/y", "");
	expect_refused("x//y", EINVAL,
	               P("data/x//y: empty component refused (remove the doubled or trailing \"/\")"));
}
END_TEST

START_TEST(test_trailing_slash_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_dir("data/x");
	expect_refused("x/", EINVAL,
	               P("data/x/: empty component refused (remove the doubled or trailing \"/\")"));
}
END_TEST

START_TEST(test_empty_path_refused)
{
	use_mode(_i);
	mk_dir("data");
	expect_refused("", EINVAL,
	               P("data: empty path refused (name a file or directory beneath the root)"));
}
END_TEST

START_TEST(test_absolute_path_refused)
{
	use_mode(_i);
	mk_dir("data");
	expect_refused("/etc/passwd", EINVAL,
	               P("data: absolute path \"/etc/passwd\" refused (name it relative to the root)"));
}
END_TEST

START_TEST(test_path_longer_than_path_max_refused)
{
	char rel[PATH_MAX + 200];
	size_t n = 0;

	use_mode(_i);
	mk_dir("data");
	for (int k = 0; k < 2098; k++) {
		rel[n++] = 'a';
		rel[n++] = '/';
	}
	rel[n++] = 'a';
	rel[n] = '\0';
	ck_assert_uint_eq(n, 4197);
	expect_refused(rel, ENAMETOOLONG,
	               P("data: path of 4197 bytes refused: longer than PATH_MAX - 1 (4095)"));
}
END_TEST

START_TEST(test_component_longer_than_name_max_refused)
{
	char rel[NAME_MAX + 3];

	use_mode(_i);
	mk_dir("data");
	memset(rel, 'b', NAME_MAX + 1);
	rel[NAME_MAX + 1] = '\0';
	expect_refused(rel, ENAMETOOLONG,
	               P("data: a component of 256 bytes is longer than NAME_MAX (255)"));
}
END_TEST

/* ---- symlinks and magic links ----------------------------------------- */

START_TEST(test_final_symlink_to_etc_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_link("/etc", "data/x");
	expect_refused("x", ELOOP, P("data/x: symlink component \"x\" refused " SUFFIX_ESC));
}
END_TEST

START_TEST(test_intermediate_symlink_refused_naming_component)
{
	use_mode(_i);
	mk_dir("data");
	mk_dir("data/a");
	mk_dir("outside");
	mk_dir("outside/b");
	mk_link(P("outside"), "data/a/link");
	expect_refused("a/link/b", ELOOP,
	               P("data/a/link: symlink component \"link\" refused " SUFFIX_ESC));
}
END_TEST

START_TEST(test_relative_symlink_to_outside_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_dir("outside");
	mk_file("outside/secret", "s");
	mk_link("../outside", "data/up");
	expect_refused("up/secret", ELOOP,
	               P("data/up: symlink component \"up\" refused " SUFFIX_ESC));
}
END_TEST

START_TEST(test_symlink_to_sibling_sharing_prefix_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_dir("database");
	mk_file("database/x", "s");
	mk_link("../database", "data/l");
	expect_refused("l/x", ELOOP, P("data/l: symlink component \"l\" refused " SUFFIX_ESC));
}
END_TEST

START_TEST(test_in_tree_symlink_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_dir("data/sub");
	mk_file("data/sub/f", "");
	mk_link("sub", "data/alias");
	expect_refused("alias/f", ELOOP,
	               P("data/alias: symlink component \"alias\" refused " SUFFIX_ESC));
	mk_link("sub/f", "data/flink");
	expect_refused("flink", ELOOP,
	               P("data/flink: symlink component \"flink\" refused " SUFFIX_ESC));
}
END_TEST

START_TEST(test_symlink_through_proc_self_root_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_link("/proc/self/root/etc", "data/pr");
	expect_refused("pr/passwd", ELOOP,
	               P("data/pr: symlink component \"pr\" refused " SUFFIX_ESC));
	expect_refused("pr", ELOOP, P("data/pr: symlink component \"pr\" refused " SUFFIX_ESC));
}
END_TEST

START_TEST(test_component_that_is_a_file_refused)
{
	use_mode(_i);
	mk_dir("data");
	mk_file("data/f", "");
	expect_refused("f/g", ENOTDIR, P("data/f: component \"f\" is not a directory"));
}
END_TEST

START_TEST(test_missing_component_named)
{
	use_mode(_i);
	mk_dir("data");
	expect_refused("nope/x", ENOENT, P("data/nope: No such file or directory"));
}
END_TEST

/* ---- positive resolution ------------------------------------------------ */

START_TEST(test_resolve_returns_the_inner_inode)
{
	osb_error err = { 0 };
	int root, fd = -1, fl;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/a");
	mk_file("data/a/f", "x");
	root = open_dir("data");
	ck_assert_int_eq(path_resolve_beneath(root, P("data"), "a/f", &fd, &err), 0);
	assert_same_inode(fd, P("data/a/f"));
	fl = fcntl(fd, F_GETFD);
	ck_assert_int_eq(fl & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
	close(fd);
	ck_assert_int_eq(path_resolve_beneath(root, P("data"), "a", &fd, &err), 0);
	assert_same_inode(fd, P("data/a"));
	close(fd);
	ck_assert_int_eq(path_resolve_beneath(root, P("data"), ".", &fd, &err), 0);
	assert_same_inode(fd, P("data"));
	close(fd);
	close(root);
}
END_TEST

/* ---- types and links --------------------------------------------------- */

START_TEST(test_hard_link_to_outside_file_refused)
{
	osb_error err = { 0 };
	int root, fd;
	char *content;

	use_mode(_i);
	mk_dir("data");
	mk_dir("outside");
	mk_file("outside/secret", "keep me");
	ck_assert_int_eq(link(P("outside/secret"), P("data/hl")), 0);
	expect_refused("hl", EMLINK,
	               P("data/hl: regular file has 2 hard links; refused (another link may be a "
	                 "file outside the root)"));
	root = open_dir("data");
	/* Writing with O_TRUNC: a naive open-then-check would already have cut it. */
	fd = osb_open_beneath(root, "hl", O_WRONLY | O_TRUNC, 0, &err);
	expect_api_refused(fd, &err, EMLINK,
	                   P("data/hl: regular file has 2 hard links; refused (another link may "
	                     "be a file outside the root)"));
	ck_assert_int_eq(err.code, OSB_E_PATH);
	content = slurp(P("outside/secret"));
	ck_assert_str_eq(content, "keep me");
	free(content);
	expect_file_errno(osb_fchmod_beneath(root, "hl", 0600, &err), &err, EMLINK);
	ck_assert_uint_eq(stat_of(P("outside/secret")).st_mode & 07777, 0644);
	/* Reading a hard-linked file is allowed (package stores use them). */
	fd = osb_open_beneath(root, "hl", O_RDONLY, 0, &err);
	ck_assert_int_ge(fd, 0);
	assert_same_inode(fd, P("outside/secret"));
	close(fd);
	close(root);
}
END_TEST

static void on_alarm(int sig)
{
	(void)sig;
	_exit(99);
}

START_TEST(test_fifo_refused_without_blocking)
{
	osb_error err = { 0 };
	const char *msg;
	int root, fd;

	use_mode(_i);
	signal(SIGALRM, on_alarm);
	alarm(5);
	mk_dir("data");
	ck_assert_int_eq(mkfifo(P("data/fifo"), 0644), 0);
	msg = P("data/fifo: is a FIFO; refused (only regular files and directories are allowed)");
	expect_refused("fifo", ENXIO, msg);
	root = open_dir("data");
	fd = osb_open_beneath(root, "fifo", O_RDONLY, 0, &err);
	expect_api_refused(fd, &err, ENXIO, msg);
	fd = osb_open_beneath(root, "fifo", O_WRONLY, 0, &err);
	expect_api_refused(fd, &err, ENXIO, msg);
	fd = osb_open_beneath(root, "fifo", O_RDWR | O_CREAT, 0644, &err);
	expect_api_refused(fd, &err, ENXIO, msg);
	alarm(0);
	close(root);
}
END_TEST

START_TEST(test_char_device_refused)
{
	osb_error err = { 0 };
	int root = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC), fd = -1;
	const char *msg = "/dev/null: is a character device; refused (only regular files and "
	                  "directories are allowed)";

	use_mode(_i);
	ck_assert_int_ge(root, 0);
	ck_assert_int_eq(path_resolve_beneath(root, "/dev", "null", &fd, &err), -OSB_E_PATH);
	ck_assert_int_eq(err.sys_errno, ENXIO);
	ck_assert_str_eq(err.message, msg);
	fd = osb_open_beneath(root, "null", O_WRONLY, 0, &err);
	expect_api_refused(fd, &err, ENXIO, msg);
	close(root);
}
END_TEST

START_TEST(test_socket_refused)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	osb_error err = { 0 };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), root, fd;
	const char *msg;

	use_mode(_i);
	mk_dir("data");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", P("data/sock"));
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	msg = P("data/sock: is a socket; refused (only regular files and directories are allowed)");
	expect_refused("sock", ENXIO, msg);
	root = open_dir("data");
	fd = osb_open_beneath(root, "sock", O_RDONLY, 0, &err);
	expect_api_refused(fd, &err, ENXIO, msg);
	close(root);
	close(s);
}
END_TEST

/* ---- mounts ------------------------------------------------------------ */

typedef struct outcome {
	int r;
	int sys_errno;
	char message[1024];
} outcome;

/* Run FN in a forked child inside a private mount namespace (and a user
 * namespace when not root, so the test needs no privilege), with the bind
 * of SRC on T/DEST in place; FN records outcomes in shared memory. */
static void in_mount_ns(const char *src, const char *dest, void (*fn)(outcome *, int),
                        outcome *out, int mode)
{
	pid_t pid;
	int status;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int flags = CLONE_NEWNS | (geteuid() == 0 ? 0 : CLONE_NEWUSER);

		if (unshare(flags) < 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount(src, P("%s", dest), "none", MS_BIND, NULL) < 0)
			_exit(3);
		use_mode(mode);
		fn(out, mode);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	              "mount namespace child failed (status 0x%x)", status);
}

static outcome *shared_outcomes(size_t n)
{
	outcome *o = mmap(NULL, n * sizeof(*o), PROT_READ | PROT_WRITE,
	                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(o, MAP_FAILED);
	memset(o, 0, n * sizeof(*o));
	return o;
}

static void record(outcome *o, int r, const osb_error *err)
{
	o->r = r;
	o->sys_errno = err->sys_errno;
	snprintf(o->message, sizeof(o->message), "%s", err->message);
}

static void mount_cases(outcome *o, int mode)
{
	osb_error err = { 0 };
	int root = open(P("data"), O_PATH | O_DIRECTORY | O_CLOEXEC), fd = -1, r;

	(void)mode;
	r = path_resolve_beneath(root, P("data"), "m", &fd, &err);
	record(&o[0], r, &err);
	memset(&err, 0, sizeof(err));
	r = path_resolve_beneath(root, P("data"), "m/passwd", &fd, &err);
	record(&o[1], r, &err);
	memset(&err, 0, sizeof(err));
	r = path_check_no_mounts_beneath(root, &err);
	record(&o[2], r, &err);
	memset(&err, 0, sizeof(err));
	r = osb_open_beneath(root, "m/passwd", O_RDONLY, 0, &err);
	record(&o[3], r, &err);
	memset(&err, 0, sizeof(err));
	r = osb_write_file_beneath(root, "m/planted", "x", 1, 0644, &err);
	record(&o[4], r, &err);
	close(root);
	/* The mount point itself is not beneath itself. */
	root = open(P("data/m"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	memset(&err, 0, sizeof(err));
	r = path_check_no_mounts_beneath(root, &err);
	record(&o[5], r, &err);
	close(root);
}

START_TEST(test_mount_beneath_refused)
{
	/* A private mount namespace: as a user, inside a user namespace. */
	if (geteuid() != 0 && !test_have_userns())
		return;
	outcome *o = shared_outcomes(6);
	const char *cross = P("data/m: component \"m\" crosses a mount (write paths may not "
	                      "cross mount points)");
	char tail[PATH_MAX];
	const char *head = P("data/m: a mount (source ");

	/* The bind source is T/outside, not /etc: a broken verifier must not be
	 * able to write into the host's /etc through it. */
	snprintf(tail, sizeof(tail), "/outside]) lies beneath the writable path %s/data; "
	         "writable paths may not contain mounts", T);
	mk_dir("data");
	mk_dir("data/m");
	mk_dir("outside");
	mk_file("outside/passwd", "root:x:0:0::/root:/bin/sh\n");
	in_mount_ns(P("outside"), "data/m", mount_cases, o, _i);
	ck_assert_int_eq(o[0].r, -OSB_E_PATH);
	ck_assert_int_eq(o[0].sys_errno, EXDEV);
	ck_assert_str_eq(o[0].message, cross);
	ck_assert_int_eq(o[1].r, -OSB_E_PATH);
	ck_assert_int_eq(o[1].sys_errno, EXDEV);
	ck_assert_str_eq(o[1].message, cross);
	ck_assert_int_eq(o[2].r, -OSB_E_PATH);
	ck_assert_int_eq(o[2].sys_errno, EXDEV);
	ck_assert_int_eq(strncmp(o[2].message, head, strlen(head)), 0);
	ck_assert_str_eq(o[2].message + strlen(o[2].message) - strlen(tail), tail);
	ck_assert_int_eq(o[3].r, -OSB_E_PATH);
	ck_assert_int_eq(o[3].sys_errno, EXDEV);
	ck_assert_str_eq(o[3].message, P("data/m: component \"m\" crosses a mount (paths "
	                                 "beneath the root may not cross mount points)"));
	ck_assert_int_eq(o[4].r, -OSB_E_PATH);
	ck_assert_int_eq(o[4].sys_errno, EXDEV);
	ck_assert_int_eq(access(P("outside/planted"), F_OK), -1);
	ck_assert_int_eq(o[5].r, 0);
	munmap(o, 6 * sizeof(*o));
}
END_TEST

static void sibling_mount_cases(outcome *o, int mode)
{
	osb_error err = { 0 };
	int data = open(P("data"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	int top = open(T, O_PATH | O_DIRECTORY | O_CLOEXEC);

	(void)mode;
	record(&o[0], path_check_no_mounts_beneath(data, &err), &err);
	memset(&err, 0, sizeof(err));
	record(&o[1], path_check_no_mounts_beneath(top, &err), &err);
	close(data);
	close(top);
}

START_TEST(test_mount_in_sibling_sharing_prefix_not_reported)
{
	/* A private mount namespace: as a user, inside a user namespace. */
	if (geteuid() != 0 && !test_have_userns())
		return;
	outcome *o = shared_outcomes(2);
	const char *head = P("database/x: a mount (source ");

	mk_dir("data");
	mk_dir("database");
	mk_dir("database/x");
	mk_dir("outside");
	in_mount_ns(P("outside"), "database/x", sibling_mount_cases, o, _i);
	/* T/database/x starts with the string T/data but is not beneath it. */
	ck_assert_int_eq(o[0].r, 0);
	ck_assert_str_eq(o[0].message, "");
	ck_assert_int_eq(o[1].r, -OSB_E_PATH);
	ck_assert_int_eq(strncmp(o[1].message, head, strlen(head)), 0);
	munmap(o, 2 * sizeof(*o));
}
END_TEST

/* ---- the public file API ----------------------------------------------- */

START_TEST(test_create_through_dangling_symlink_refused)
{
	osb_error err = { 0 };
	int root, fd;

	use_mode(_i);
	mk_dir("data");
	mk_dir("outside");
	mk_link(P("outside/created"), "data/new");
	mk_link(P("outside"), "data/d");
	root = open_dir("data");
	fd = osb_open_beneath(root, "new", O_WRONLY | O_CREAT, 0644, &err);
	expect_api_refused(fd, &err, ELOOP,
	                   P("data/new: symlink component \"new\" refused (paths beneath the root "
	                     "may not contain symlinks)"));
	fd = osb_open_beneath(root, "new", O_WRONLY | O_CREAT | O_EXCL, 0644, &err);
	expect_file_errno(fd, &err, ELOOP);
	expect_file_errno(osb_write_file_beneath(root, "new", "x", 1, 0644, &err), &err, ELOOP);
	fd = osb_open_beneath(root, "d/created", O_WRONLY | O_CREAT, 0644, &err);
	expect_api_refused(fd, &err, ELOOP,
	                   P("data/d: symlink component \"d\" refused (paths beneath the root "
	                     "may not contain symlinks)"));
	expect_file_errno(osb_write_file_beneath(root, "d/created", "x", 1, 0644, &err), &err, ELOOP);
	ck_assert_int_eq(access(P("outside/created"), F_OK), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(lstat(P("data/new"), &(struct stat){ 0 }), 0);
	close(root);
}
END_TEST

START_TEST(test_chown_and_chmod_through_symlink_refused)
{
	osb_error err = { 0 };
	struct stat before, after;
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("outside");
	mk_file("outside/owned", "x");
	mk_link(P("outside/owned"), "data/l");
	mk_link(P("outside"), "data/dl");
	before = stat_of(P("outside/owned"));
	root = open_dir("data");
	expect_api_refused(osb_fchown_beneath(root, "l", 4242, 4242, &err), &err, ELOOP,
	                   P("data/l: symlink component \"l\" refused (paths beneath the root may "
	                     "not contain symlinks)"));
	expect_file_errno(osb_fchown_beneath(root, "dl/owned", 4242, 4242, &err), &err, ELOOP);
	expect_file_errno(osb_fchmod_beneath(root, "l", 0777, &err), &err, ELOOP);
	expect_file_errno(osb_fchmod_beneath(root, "dl/owned", 0777, &err), &err, ELOOP);
	after = stat_of(P("outside/owned"));
	ck_assert_uint_eq(after.st_uid, before.st_uid);
	ck_assert_uint_eq(after.st_gid, before.st_gid);
	ck_assert_uint_eq(after.st_mode, before.st_mode);
	close(root);
}
END_TEST

START_TEST(test_chmod_and_chown_apply_to_the_inner_file)
{
	osb_error err = { 0 };
	uint32_t uid = geteuid() == 0 ? 4242 : geteuid();
	struct stat st;
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/a");
	mk_file("data/a/f", "x");
	root = open_dir("data");
	ck_assert_int_eq(osb_fchmod_beneath(root, "a/f", 0600, &err), 0);
	ck_assert_int_eq(osb_fchown_beneath(root, "a/f", uid, (uint32_t)-1, &err), 0);
	st = stat_of(P("data/a/f"));
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_eq(st.st_uid, uid);
	ck_assert_int_eq(osb_fchmod_beneath(root, "a", 0700, &err), 0);
	ck_assert_uint_eq(stat_of(P("data/a")).st_mode & 07777, 0700);
	expect_file_errno(osb_fchmod_beneath(root, "a/f", 04755, &err), &err, EINVAL);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	ck_assert_str_eq(err.message, P("data: mode 04755 refused: only permission bits (0777) "
	                                "may be set; setuid, setgid and sticky bits are not granted"));
	close(root);
}
END_TEST

START_TEST(test_mkdir_rename_unlink_through_symlinked_dir_refused)
{
	const char *msg;
	osb_error err = { 0 };
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("outside");
	mk_file("outside/a", "a");
	mk_file("data/mine", "m");
	mk_link(P("outside"), "data/sym");
	msg = P("data/sym: symlink component \"sym\" refused (paths beneath the root may not "
	        "contain symlinks)");
	root = open_dir("data");
	expect_api_refused(osb_mkdir_beneath(root, "sym/new", 0755, &err), &err, ELOOP, msg);
	ck_assert_int_eq(access(P("outside/new"), F_OK), -1);
	expect_api_refused(osb_unlink_beneath(root, "sym/a", 0, &err), &err, ELOOP, msg);
	expect_api_refused(osb_rename_beneath(root, "sym/a", "stolen", &err), &err, ELOOP, msg);
	expect_api_refused(osb_rename_beneath(root, "mine", "sym/planted", &err), &err, ELOOP,
	                   msg);
	ck_assert_int_eq(access(P("outside/a"), F_OK), 0);
	ck_assert_int_eq(access(P("outside/planted"), F_OK), -1);
	ck_assert_int_eq(access(P("data/mine"), F_OK), 0);
	/* The same calls on real directories work. */
	ck_assert_int_eq(osb_mkdir_beneath(root, "real", 0755, &err), 0);
	ck_assert_int_eq(osb_rename_beneath(root, "mine", "real/mine", &err), 0);
	ck_assert_int_eq(access(P("data/real/mine"), F_OK), 0);
	ck_assert_int_eq(osb_unlink_beneath(root, "real/mine", 0, &err), 0);
	ck_assert_int_eq(osb_unlink_beneath(root, "real", 1, &err), 0);
	ck_assert_int_eq(access(P("data/real"), F_OK), -1);
	/* Removing the symlink itself removes the link, never its target. */
	ck_assert_int_eq(osb_unlink_beneath(root, "sym", 0, &err), 0);
	ck_assert_int_eq(access(P("outside/a"), F_OK), 0);
	close(root);
}
END_TEST

START_TEST(test_root_itself_refused_where_an_entry_is_needed)
{
	osb_error err = { 0 };
	int root;

	mk_dir("data");
	root = open_dir("data");
	expect_api_refused(osb_unlink_beneath(root, ".", 1, &err), &err, EINVAL,
	                   P("data: \".\" (the root itself) refused here (name an entry beneath "
	                     "the root)"));
	expect_file_errno(osb_rename_beneath(root, ".", "x", &err), &err, EINVAL);
	expect_file_errno(osb_write_file_beneath(root, ".", "x", 1, 0644, &err), &err, EINVAL);
	ck_assert_int_eq(access(P("data"), F_OK), 0);
	close(root);
}
END_TEST

/* Loop bit 0: walk instead of openat2; bit 1: named temporary, not O_TMPFILE. */
START_TEST(test_write_file_replaces_atomically)
{
	osb_error err = { 0 };
	char buf[16] = { 0 }, **names = NULL;
	struct stat before, after;
	int root, old;
	char *content;

	paths_set_test_flags((_i & 1 ? PATHS_TEST_FORCE_WALK : 0) |
	                     (_i & 2 ? PATHS_TEST_NO_TMPFILE : 0));
	mk_dir("data");
	mk_file("data/f", "old content");
	ck_assert_int_eq(link(P("data/f"), P("data/g")), 0);
	before = stat_of(P("data/f"));
	old = open(P("data/f"), O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(old, 0);
	root = open_dir("data");
	ck_assert_int_eq(osb_write_file_beneath(root, "f", "new", 3, 0600, &err), 0);
	/* The old inode was never written: a reader holding it, and its other
	 * link, still see the old content; the name now holds the new inode. */
	ck_assert_int_eq(pread(old, buf, sizeof(buf) - 1, 0), 11);
	ck_assert_str_eq(buf, "old content");
	content = slurp(P("data/g"));
	ck_assert_str_eq(content, "old content");
	free(content);
	content = slurp(P("data/f"));
	ck_assert_str_eq(content, "new");
	free(content);
	after = stat_of(P("data/f"));
	ck_assert_uint_ne(after.st_ino, before.st_ino);
	ck_assert_uint_eq(after.st_nlink, 1);
	/* A new file, and no temporary left behind. */
	ck_assert_int_eq(osb_write_file_beneath(root, "h", "", 0, 0644, &err), 0);
	ck_assert_int_eq(osb_list_beneath(root, ".", &names, &err), 3);
	ck_assert_str_eq(names[0], "f");
	ck_assert_str_eq(names[1], "g");
	ck_assert_str_eq(names[2], "h");
	ck_assert_ptr_null(names[3]);
	osb_free(names);
	close(old);
	close(root);
}
END_TEST

START_TEST(test_write_file_refuses_directory_target)
{
	osb_error err = { 0 };
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/d");
	root = open_dir("data");
	expect_api_refused(osb_write_file_beneath(root, "d", "x", 1, 0644, &err), &err, EISDIR,
	                   P("data/d: is a directory; cannot replace it with a file"));
	close(root);
}
END_TEST

START_TEST(test_open_beneath_flags_refused)
{
	osb_error err = { 0 };
	int root;

	mk_dir("data");
	mk_file("data/f", "x");
	root = open_dir("data");
	expect_file_errno(osb_open_beneath(root, "f", O_PATH, 0, &err), &err, EINVAL);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	ck_assert_str_eq(err.message, P("data: open flags 010000000 refused: use O_RDONLY, "
	                                "O_WRONLY or O_RDWR with O_CREAT, O_EXCL, O_TRUNC (when "
	                                "writing), O_DIRECTORY, O_APPEND"));
	expect_file_errno(osb_open_beneath(root, "f", O_RDONLY | O_TRUNC, 0, &err), &err, EINVAL);
	expect_file_errno(osb_open_beneath(root, "f", O_RDONLY | O_NOFOLLOW, 0, &err), &err, EINVAL);
	expect_file_errno(osb_open_beneath(root, "n", O_WRONLY | O_CREAT, 04755, &err), &err, EINVAL);
	ck_assert_int_eq(access(P("data/n"), F_OK), -1);
	close(root);
}
END_TEST

START_TEST(test_open_beneath_gives_a_blocking_cloexec_fd)
{
	osb_error err = { 0 };
	char buf[8] = { 0 };
	int root, fd;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/a");
	mk_file("data/a/f", "hello");
	root = open_dir("data");
	fd = osb_open_beneath(root, "a/f", O_RDWR | O_APPEND, 0, &err);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & (O_NONBLOCK | O_APPEND | O_ACCMODE),
	                 O_APPEND | O_RDWR);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(write(fd, "!", 1), 1);
	ck_assert_int_eq(pread(fd, buf, sizeof(buf) - 1, 0), 6);
	ck_assert_str_eq(buf, "hello!");
	close(fd);
	fd = osb_open_beneath(root, "a/f", O_WRONLY | O_TRUNC, 0, &err);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(stat_of(P("data/a/f")).st_size, 0);
	close(fd);
	fd = osb_open_beneath(root, "a/new", O_WRONLY | O_CREAT | O_EXCL, 0640, &err);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(S_ISREG(stat_of(P("data/a/new")).st_mode), 1);
	fd = osb_open_beneath(root, "a/new", O_WRONLY | O_CREAT | O_EXCL, 0640, &err);
	expect_api_refused(fd, &err, EEXIST, P("data/a/new: File exists"));
	fd = osb_open_beneath(root, "a", O_RDONLY | O_DIRECTORY, 0, &err);
	ck_assert_int_ge(fd, 0);
	assert_same_inode(fd, P("data/a"));
	close(fd);
	close(root);
}
END_TEST

START_TEST(test_list_beneath_sorted_and_refuses_symlinked_dir)
{
	osb_error err = { 0 };
	char **names = NULL;
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/d");
	mk_file("data/d/b", "");
	mk_file("data/d/a", "");
	mk_dir("data/d/C");
	mk_link("/etc", "data/d/e");
	mk_link("/etc", "data/etc");
	root = open_dir("data");
	ck_assert_int_eq(osb_list_beneath(root, "d", &names, &err), 4);
	ck_assert_str_eq(names[0], "C");
	ck_assert_str_eq(names[1], "a");
	ck_assert_str_eq(names[2], "b");
	ck_assert_str_eq(names[3], "e");
	ck_assert_ptr_null(names[4]);
	osb_free(names);
	names = NULL;
	expect_api_refused(osb_list_beneath(root, "etc", &names, &err), &err, ELOOP,
	                   P("data/etc: symlink component \"etc\" refused (paths beneath the root "
	                     "may not contain symlinks)"));
	ck_assert_ptr_null(names);
	close(root);
}
END_TEST

/* ---- stat, typed listing, streaming write, recursive remove ----------- */

#define SYMLINK_API_MSG "symlink component \"%s\" refused (paths beneath the root may not " \
                        "contain symlinks)"

START_TEST(test_stat_and_lstat_report_without_following)
{
	osb_error err = { 0 };
	osb_file_info fi;
	int root;

	use_mode(_i);
	signal(SIGALRM, on_alarm);
	alarm(5);
	mk_dir("data");
	mk_dir("data/d");
	mk_dir("outside");
	mk_file("data/d/f", "hello");
	ck_assert_int_eq(chmod(P("data/d/f"), 0640), 0);
	ck_assert_int_eq(mkfifo(P("data/fifo"), 0600), 0);
	mk_link("/etc/passwd", "data/l");
	mk_link(P("outside"), "data/dl");
	root = open_dir("data");
	memset(&fi, 0x55, sizeof(fi));
	ck_assert_int_eq(osb_stat_beneath(root, "d/f", &fi, &err), 0);
	ck_assert_int_eq(fi.type, OSB_FILE_REGULAR);
	ck_assert_uint_eq(fi.mode, 0640);
	ck_assert_uint_eq(fi.size, 5);
	ck_assert_uint_eq(fi.nlink, 1);
	ck_assert_uint_eq(fi.uid, geteuid());
	ck_assert_uint_eq(fi.gid, getegid());
	ck_assert_int_eq(fi.mtime_sec, stat_of(P("data/d/f")).st_mtim.tv_sec);
	ck_assert_uint_eq(fi.ino, stat_of(P("data/d/f")).st_ino);
	ck_assert_str_eq(fi.link_target, "");
	for (size_t k = 0; k < sizeof(fi.reserved) / sizeof(fi.reserved[0]); k++)
		ck_assert_uint_eq(fi.reserved[k], 0);
	ck_assert_int_eq(osb_stat_beneath(root, ".", &fi, &err), 0);
	ck_assert_int_eq(fi.type, OSB_FILE_DIRECTORY);
	/* A FIFO is reported, never opened: no reader needed, nothing blocks. */
	ck_assert_int_eq(osb_lstat_beneath(root, "fifo", &fi, &err), 0);
	ck_assert_int_eq(fi.type, OSB_FILE_FIFO);
	ck_assert_int_eq(osb_stat_beneath(root, "fifo", &fi, &err), 0);
	ck_assert_int_eq(fi.type, OSB_FILE_FIFO);
	/* stat refuses a final symlink; lstat reports the link itself. */
	expect_api_refused(osb_stat_beneath(root, "l", &fi, &err), &err, ELOOP,
	                   P("data/l: " SYMLINK_API_MSG, "l"));
	ck_assert_int_eq(osb_lstat_beneath(root, "l", &fi, &err), 0);
	ck_assert_int_eq(fi.type, OSB_FILE_SYMLINK);
	ck_assert_str_eq(fi.link_target, "/etc/passwd");
	ck_assert_uint_eq(fi.size, strlen("/etc/passwd"));
	/* A symlink before the last component is refused by both. */
	expect_api_refused(osb_lstat_beneath(root, "dl/x", &fi, &err), &err, ELOOP,
	                   P("data/dl: " SYMLINK_API_MSG, "dl"));
	expect_file_errno(osb_stat_beneath(root, "dl/x", &fi, &err), &err, ELOOP);
	expect_api_refused(osb_stat_beneath(root, "../outside", &fi, &err), &err, EINVAL,
	                   P("data/../outside: component \"..\" refused (paths may not leave "
	                     "their root)"));
	expect_file_errno(osb_stat_beneath(root, "missing", &fi, &err), &err, ENOENT);
	expect_file_errno(osb_stat_beneath(root, "d/f", NULL, &err), &err, EINVAL);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	alarm(0);
	close(root);
}
END_TEST

START_TEST(test_stat_sees_a_file_swapped_for_a_symlink)
{
	osb_error err = { 0 };
	osb_file_info fi;
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("outside");
	mk_file("data/f", "mine");
	mk_file("outside/secret", "a much longer secret");
	root = open_dir("data");
	ck_assert_int_eq(osb_stat_beneath(root, "f", &fi, &err), 0);
	ck_assert_uint_eq(fi.size, 4);
	ck_assert_int_eq(unlink(P("data/f")), 0);
	mk_link(P("outside/secret"), "data/f");
	expect_api_refused(osb_stat_beneath(root, "f", &fi, &err), &err, ELOOP,
	                   P("data/f: " SYMLINK_API_MSG, "f"));
	ck_assert_int_eq(osb_lstat_beneath(root, "f", &fi, &err), 0);
	ck_assert_int_eq(fi.type, OSB_FILE_SYMLINK);
	ck_assert_str_eq(fi.link_target, P("outside/secret"));
	ck_assert_uint_ne(fi.size, 20);
	close(root);
}
END_TEST

/* Loop bit 0: walk instead of openat2; bit 1: no d_type (the fstatat path). */
START_TEST(test_readdir_typed_sorted_and_bounded)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), root;
	osb_dirent *ents = NULL;
	osb_error err = { 0 };

	paths_set_test_flags((_i & 1 ? PATHS_TEST_FORCE_WALK : 0) |
	                     (_i & 2 ? PATHS_TEST_NO_DTYPE : 0));
	mk_dir("data");
	mk_dir("data/d");
	mk_file("data/d/b", "");
	mk_dir("data/d/a");
	mk_link("/etc", "data/d/C");
	ck_assert_int_eq(mkfifo(P("data/d/fifo"), 0600), 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", P("data/d/sock"));
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	mk_link("/etc", "data/etc");
	root = open_dir("data");
	ck_assert_int_eq(osb_readdir_beneath(root, "d", 0, &ents, &err), 5);
	ck_assert_str_eq(ents[0].name, "C");
	ck_assert_int_eq(ents[0].type, OSB_FILE_SYMLINK);
	ck_assert_str_eq(ents[1].name, "a");
	ck_assert_int_eq(ents[1].type, OSB_FILE_DIRECTORY);
	ck_assert_str_eq(ents[2].name, "b");
	ck_assert_int_eq(ents[2].type, OSB_FILE_REGULAR);
	ck_assert_str_eq(ents[3].name, "fifo");
	ck_assert_int_eq(ents[3].type, OSB_FILE_FIFO);
	ck_assert_str_eq(ents[4].name, "sock");
	ck_assert_int_eq(ents[4].type, OSB_FILE_SOCKET);
	osb_free(ents);
	ents = NULL;
	ck_assert_int_eq(osb_readdir_beneath(root, "d", 5, &ents, &err), 5);
	osb_free(ents);
	ents = NULL;
	/* Never a silent part of the listing. */
	expect_api_refused(osb_readdir_beneath(root, "d", 4, &ents, &err), &err, E2BIG,
	                   P("data/d: has more than 4 entries; refused (raise max_entries)"));
	ck_assert_ptr_null(ents);
	ck_assert_int_eq(osb_readdir_beneath(root, "d/a", 0, &ents, &err), 0);
	ck_assert_ptr_nonnull(ents);
	osb_free(ents);
	ents = NULL;
	expect_api_refused(osb_readdir_beneath(root, "etc", 0, &ents, &err), &err, ELOOP,
	                   P("data/etc: " SYMLINK_API_MSG, "etc"));
	expect_file_errno(osb_readdir_beneath(root, "d/C", 0, &ents, &err), &err, ELOOP);
	expect_file_errno(osb_readdir_beneath(root, "d/b", 0, &ents, &err), &err, ENOTDIR);
	expect_file_errno(osb_readdir_beneath(root, "../data", 0, &ents, &err), &err, EINVAL);
	ck_assert_ptr_null(ents);
	close(root);
	close(s);
}
END_TEST

/* The names in directory REL of T that start with ".osb-". */
static int count_temporaries(const char *rel)
{
	DIR *d = opendir(P("%s", rel));
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += strncmp(de->d_name, ".osb-", 5) == 0;
	closedir(d);
	return n;
}

START_TEST(test_writer_streams_and_commits_atomically)
{
	osb_error err = { 0 };
	osb_file_writer *w;
	struct stat st;
	char chunk[65536], *content;
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/a");
	mk_file("data/a/f", "old");
	root = open_dir("data");
	w = osb_writer_open_beneath(root, "a/f", 0600, &err);
	ck_assert_msg(w != NULL, "%s", err.message);
	ck_assert_int_eq(count_temporaries("data/a"), 1);
	memset(chunk, 'x', sizeof(chunk));
	for (int k = 0; k < 32; k++)
		ck_assert_int_eq(osb_writer_write(w, chunk, sizeof(chunk), &err), 0);
	ck_assert_int_eq(osb_writer_write(w, "end", 3, &err), 0);
	/* Until the commit, readers see the old file. */
	content = slurp(P("data/a/f"));
	ck_assert_str_eq(content, "old");
	free(content);
	ck_assert_int_eq(osb_writer_commit(w, 0, &err), 0);
	st = stat_of(P("data/a/f"));
	ck_assert_int_eq(st.st_size, 32 * 65536 + 3);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(count_temporaries("data/a"), 0);
	/* The handle is spent. */
	expect_file_errno(osb_writer_write(w, "x", 1, &err), &err, EINVAL);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	expect_file_errno(osb_writer_commit(w, 0, &err), &err, EINVAL);
	osb_writer_free(w);
	/* A new file, and NOREPLACE on an existing one. */
	w = osb_writer_open_beneath(root, "a/new", 0644, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(osb_writer_write(w, "n", 1, &err), 0);
	ck_assert_int_eq(osb_writer_commit(w, OSB_WRITE_NOREPLACE, &err), 0);
	osb_writer_free(w);
	content = slurp(P("data/a/new"));
	ck_assert_str_eq(content, "n");
	free(content);
	w = osb_writer_open_beneath(root, "a/new", 0644, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(osb_writer_write(w, "second", 6, &err), 0);
	expect_api_refused(osb_writer_commit(w, OSB_WRITE_NOREPLACE, &err), &err, EEXIST,
	                   P("data/a/new: cannot put the new file in place: File exists"));
	osb_writer_free(w);
	content = slurp(P("data/a/new"));
	ck_assert_str_eq(content, "n");
	free(content);
	ck_assert_int_eq(count_temporaries("data/a"), 0);
	expect_file_errno(osb_writer_write(NULL, "x", 1, &err), &err, EINVAL);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	expect_file_errno(osb_writer_commit(NULL, 0, &err), &err, EINVAL);
	expect_file_errno(osb_writer_abort(NULL, &err), &err, EINVAL);
	osb_writer_free(NULL);
	close(root);
}
END_TEST

START_TEST(test_writer_abort_and_free_remove_the_temporary)
{
	osb_error err = { 0 };
	osb_file_writer *w;
	char *content;
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_file("data/f", "kept");
	root = open_dir("data");
	w = osb_writer_open_beneath(root, "f", 0644, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(osb_writer_write(w, "lost", 4, &err), 0);
	ck_assert_int_eq(osb_writer_abort(w, &err), 0);
	ck_assert_int_eq(count_temporaries("data"), 0);
	expect_file_errno(osb_writer_abort(w, &err), &err, EINVAL);
	expect_file_errno(osb_writer_commit(w, 0, &err), &err, EINVAL);
	osb_writer_free(w);
	/* Abandoned: freed without a commit. */
	w = osb_writer_open_beneath(root, "f", 0644, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(osb_writer_write(w, "lost", 4, &err), 0);
	ck_assert_int_eq(count_temporaries("data"), 1);
	osb_writer_free(w);
	ck_assert_int_eq(count_temporaries("data"), 0);
	content = slurp(P("data/f"));
	ck_assert_str_eq(content, "kept");
	free(content);
	close(root);
}
END_TEST

START_TEST(test_writer_refuses_symlinks_escapes_and_swaps)
{
	osb_error err = { 0 };
	osb_file_writer *w;
	char *content;
	DIR *d;
	struct dirent *de;
	char tmp[NAME_MAX + 1] = "";
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/d");
	mk_dir("outside");
	mk_file("outside/secret", "secret");
	mk_file("data/f", "mine");
	mk_link(P("outside/secret"), "data/l");
	mk_link(P("outside"), "data/dl");
	ck_assert_int_eq(mkfifo(P("data/fifo"), 0600), 0);
	root = open_dir("data");
	ck_assert_ptr_null(osb_writer_open_beneath(root, "l", 0644, &err));
	expect_api_refused(-err.code, &err, ELOOP, P("data/l: " SYMLINK_API_MSG, "l"));
	ck_assert_ptr_null(osb_writer_open_beneath(root, "dl/secret", 0644, &err));
	expect_api_refused(-err.code, &err, ELOOP, P("data/dl: " SYMLINK_API_MSG, "dl"));
	ck_assert_ptr_null(osb_writer_open_beneath(root, "../outside/secret", 0644, &err));
	expect_file_errno(-err.code, &err, EINVAL);
	ck_assert_ptr_null(osb_writer_open_beneath(root, "d", 0644, &err));
	expect_file_errno(-err.code, &err, EISDIR);
	ck_assert_ptr_null(osb_writer_open_beneath(root, "fifo", 0644, &err));
	expect_file_errno(-err.code, &err, ENXIO);
	ck_assert_ptr_null(osb_writer_open_beneath(root, "f", 04755, &err));
	expect_file_errno(-err.code, &err, EINVAL);
	ck_assert_int_eq(count_temporaries("data"), 0);
	/* The target swapped for a symlink between open and commit. */
	w = osb_writer_open_beneath(root, "f", 0644, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(osb_writer_write(w, "new", 3, &err), 0);
	ck_assert_int_eq(unlink(P("data/f")), 0);
	mk_link(P("outside/secret"), "data/f");
	expect_api_refused(osb_writer_commit(w, 0, &err), &err, ELOOP,
	                   P("data/f: " SYMLINK_API_MSG, "f"));
	osb_writer_free(w);
	ck_assert_int_eq(count_temporaries("data"), 0);
	ck_assert_int_eq(S_ISLNK(stat_of(P("data/f")).st_mode), 1);
	content = slurp(P("outside/secret"));
	ck_assert_str_eq(content, "secret");
	free(content);
	/* The temporary swapped for a symlink: never put in place. */
	ck_assert_int_eq(unlink(P("data/f")), 0);
	w = osb_writer_open_beneath(root, "f", 0644, &err);
	ck_assert_ptr_nonnull(w);
	d = opendir(P("data"));
	while ((de = readdir(d)))
		if (strncmp(de->d_name, ".osb-", 5) == 0)
			snprintf(tmp, sizeof(tmp), "%s", de->d_name);
	closedir(d);
	ck_assert_str_ne(tmp, "");
	ck_assert_int_eq(unlink(P("data/%s", tmp)), 0);
	mk_link(P("outside/secret"), tmp);
	ck_assert_int_eq(rename(P("%s", tmp), P("data/%s", tmp)), 0);
	expect_file_errno(osb_writer_commit(w, 0, &err), &err, ESTALE);
	ck_assert_str_eq(err.message, P("data/f: the temporary file %s was replaced before the "
	                                "commit; refused", P("data/%s", tmp)));
	osb_writer_free(w);
	ck_assert_int_eq(access(P("data/f"), F_OK), -1);
	/* Not ours any more: left alone. */
	ck_assert_int_eq(S_ISLNK(stat_of(P("data/%s", tmp)).st_mode), 1);
	content = slurp(P("outside/secret"));
	ck_assert_str_eq(content, "secret");
	free(content);
	close(root);
}
END_TEST

typedef struct writer_arg {
	int root;
	char byte;
	unsigned flags;
	int commits, eexist, failures;
	atomic_bool *stop;
	long reads, torn;
} writer_arg;

enum { WRITE_SIZE = 65536 };

static void *writer_loop(void *p)
{
	writer_arg *a = p;
	char buf[WRITE_SIZE];

	memset(buf, a->byte, sizeof(buf));
	for (int k = 0; k < (a->flags ? 1 : 25); k++) {
		osb_error err = { 0 };
		osb_file_writer *w = osb_writer_open_beneath(a->root, "f", 0644, &err);
		int r;

		if (!w || osb_writer_write(w, buf, sizeof(buf), &err) < 0) {
			a->failures++;
			osb_writer_free(w);
			continue;
		}
		r = osb_writer_commit(w, a->flags, &err);
		if (r == 0)
			a->commits++;
		else if (err.sys_errno == EEXIST)
			a->eexist++;
		else
			a->failures++;
		osb_writer_free(w);
	}
	return NULL;
}

/* A reader sees one writer's whole content, never a mix or a part. */
static void *reader_loop(void *p)
{
	writer_arg *a = p;
	static char buf[2 * WRITE_SIZE];

	while (!atomic_load(a->stop)) {
		int fd = openat(a->root, "f", O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		a->reads++;
		if (n != WRITE_SIZE)
			a->torn++;
		else
			for (ssize_t k = 1; k < n; k++)
				if (buf[k] != buf[0]) {
					a->torn++;
					break;
				}
	}
	return NULL;
}

START_TEST(test_concurrent_writers_each_commit_whole)
{
	enum { N = 6 };
	writer_arg args[N], rd = { 0 };
	pthread_t th[N], rth;
	atomic_bool stop;
	int root, commits = 0, eexist = 0;

	use_mode(_i);
	mk_dir("data");
	root = open_dir("data");
	atomic_init(&stop, false);
	rd.root = root;
	rd.stop = &stop;
	ck_assert_int_eq(pthread_create(&rth, NULL, reader_loop, &rd), 0);
	for (int k = 0; k < N; k++) {
		args[k] = (writer_arg){ .root = root, .byte = (char)('a' + k) };
		ck_assert_int_eq(pthread_create(&th[k], NULL, writer_loop, &args[k]), 0);
	}
	for (int k = 0; k < N; k++) {
		ck_assert_int_eq(pthread_join(th[k], NULL), 0);
		ck_assert_int_eq(args[k].failures, 0);
		ck_assert_int_eq(args[k].commits, 25);
	}
	atomic_store(&stop, true);
	ck_assert_int_eq(pthread_join(rth, NULL), 0);
	ck_assert_int_gt(rd.reads, 0);
	ck_assert_int_eq(rd.torn, 0);
	ck_assert_int_eq(count_temporaries("data"), 0);
	/* NOREPLACE on a new name: exactly one writer wins. */
	ck_assert_int_eq(unlink(P("data/f")), 0);
	for (int k = 0; k < N; k++) {
		args[k] = (writer_arg){ .root = root, .byte = (char)('a' + k),
		                        .flags = OSB_WRITE_NOREPLACE };
		ck_assert_int_eq(pthread_create(&th[k], NULL, writer_loop, &args[k]), 0);
	}
	for (int k = 0; k < N; k++) {
		ck_assert_int_eq(pthread_join(th[k], NULL), 0);
		ck_assert_int_eq(args[k].failures, 0);
		commits += args[k].commits;
		eexist += args[k].eexist;
	}
	ck_assert_int_eq(commits, 1);
	ck_assert_int_eq(eexist, N - 1);
	ck_assert_int_eq(count_temporaries("data"), 0);
	close(root);
}
END_TEST

START_TEST(test_remove_tree_never_follows_symlinks)
{
	osb_error err = { 0 };
	char *content;
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("outside");
	mk_dir("outside/sub");
	mk_file("outside/secret", "secret");
	mk_file("outside/sub/keep", "keep");
	mk_dir("data/t");
	mk_dir("data/t/a");
	mk_dir("data/t/a/b");
	mk_file("data/t/a/b/f", "f");
	mk_file("data/t/g", "g");
	mk_link(P("outside"), "data/t/dirlink");
	mk_link(P("outside/secret"), "data/t/a/filelink");
	ck_assert_int_eq(link(P("outside/secret"), P("data/t/hard")), 0);
	ck_assert_int_eq(mkfifo(P("data/t/a/fifo"), 0600), 0);
	mk_link(P("outside"), "data/l");
	root = open_dir("data");
	ck_assert_int_eq(osb_remove_tree_beneath(root, "t", &err), 0);
	ck_assert_int_eq(access(P("data/t"), F_OK), -1);
	content = slurp(P("outside/secret"));
	ck_assert_str_eq(content, "secret");
	free(content);
	ck_assert_int_eq(access(P("outside/sub/keep"), F_OK), 0);
	ck_assert_uint_eq(stat_of(P("outside/secret")).st_nlink, 1);
	/* A symlink is removed itself; through one nothing is. */
	expect_api_refused(osb_remove_tree_beneath(root, "l/sub", &err), &err, ELOOP,
	                   P("data/l: " SYMLINK_API_MSG, "l"));
	ck_assert_int_eq(osb_remove_tree_beneath(root, "l", &err), 0);
	ck_assert_int_eq(access(P("outside/sub/keep"), F_OK), 0);
	expect_file_errno(osb_remove_tree_beneath(root, "../outside", &err), &err, EINVAL);
	expect_file_errno(osb_remove_tree_beneath(root, ".", &err), &err, EINVAL);
	expect_api_refused(osb_remove_tree_beneath(root, "missing", &err), &err, ENOENT,
	                   P("data/missing: cannot remove: No such file or directory"));
	/* A single file. */
	mk_file("data/one", "1");
	ck_assert_int_eq(osb_remove_tree_beneath(root, "one", &err), 0);
	ck_assert_int_eq(access(P("data/one"), F_OK), -1);
	close(root);
}
END_TEST

/* The first entry that cannot be removed is named; the rest stays. Run as
 * an unprivileged uid (root may remove from a read-only directory). */
START_TEST(test_remove_tree_names_the_first_entry_it_cannot_remove)
{
	osb_error err = { 0 };
	const uid_t nobody = 65534;
	pid_t pid;
	int status, root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/t");
	mk_dir("data/t/ro");
	mk_file("data/t/ro/f", "f");
	ck_assert_int_eq(chmod(P("data/t/ro"), 0555), 0);
	root = open_dir("data");
	if (geteuid() == 0) {
		const char *tree[] = { "data", "data/t", "data/t/ro", "data/t/ro/f" };

		for (size_t k = 0; k < sizeof(tree) / sizeof(tree[0]); k++)
			ck_assert_int_eq(chown(P("%s", tree[k]), nobody, nobody), 0);
		ck_assert_int_eq(chmod(T, 0755), 0);
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(nobody, nobody, nobody) < 0 ||
		                       setresuid(nobody, nobody, nobody) < 0))
			_exit(90);
		if (osb_remove_tree_beneath(root, "t", &err) != -OSB_E_PATH)
			_exit(91);
		if (err.sys_errno != EACCES)
			_exit(92);
		if (strcmp(err.message, P("data/t/ro/f: cannot remove: Permission denied")) != 0)
			_exit(93);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	ck_assert_int_eq(access(P("data/t/ro/f"), F_OK), 0);
	close(root);
}
END_TEST

/* T/REL and then LEVELS directories "d" nested inside it. */
static void mk_deep(const char *rel, int levels)
{
	int fd;

	mk_dir(rel);
	fd = open(P("%s", rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int k = 0; k < levels; k++) {
		int next;

		ck_assert_int_eq(mkdirat(fd, "d", 0755), 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ge(next, 0);
		close(fd);
		fd = next;
	}
	close(fd);
}

START_TEST(test_remove_tree_depth_is_bounded)
{
	osb_error err = { 0 };
	char deepest[1024];
	int root, n;

	use_mode(_i);
	mk_dir("data");
	mk_deep("data/ok", 255);
	mk_deep("data/deep", 256);
	root = open_dir("data");
	ck_assert_int_eq(osb_remove_tree_beneath(root, "ok", &err), 0);
	ck_assert_int_eq(access(P("data/ok"), F_OK), -1);
	n = snprintf(deepest, sizeof(deepest), "%s/deep", P("data"));
	for (int k = 0; k < 256; k++)
		n += snprintf(deepest + n, sizeof(deepest) - (size_t)n, "/d");
	expect_file_errno(osb_remove_tree_beneath(root, "deep", &err), &err, ELOOP);
	/* The message names the 256th nested directory. */
	ck_assert_int_eq(strncmp(err.message, deepest, strlen(deepest)), 0);
	ck_assert_str_eq(err.message + strlen(deepest),
	                 ": lies more than 256 directory levels deep; refused");
	ck_assert_int_eq(access(P("data/deep/d"), F_OK), 0);
	close(root);
}
END_TEST

static void tree_mount_cases(outcome *o, int mode)
{
	osb_error err = { 0 };
	osb_file_info fi;
	osb_dirent *ents = NULL;
	int root = open(P("data"), O_PATH | O_DIRECTORY | O_CLOEXEC);

	(void)mode;
	record(&o[0], osb_stat_beneath(root, "t/m/passwd", &fi, &err), &err);
	memset(&err, 0, sizeof(err));
	record(&o[1], osb_readdir_beneath(root, "t/m", 0, &ents, &err), &err);
	osb_free(ents);
	memset(&err, 0, sizeof(err));
	record(&o[2], osb_remove_tree_beneath(root, "t", &err), &err);
	memset(&err, 0, sizeof(err));
	record(&o[3], osb_remove_tree_beneath(root, "t/m", &err), &err);
	memset(&err, 0, sizeof(err));
	ck_assert_ptr_null(osb_writer_open_beneath(root, "t/m/planted", 0644, &err));
	record(&o[4], -err.code, &err);
	close(root);
}

START_TEST(test_remove_tree_stops_at_a_mount)
{
	if (geteuid() != 0 && !test_have_userns())
		return;
	outcome *o = shared_outcomes(5);
	char cross[PATH_MAX], refused[PATH_MAX];

	snprintf(cross, sizeof(cross), "%s", P("data/t/m: component \"m\" crosses a mount (paths "
	                                       "beneath the root may not cross mount points)"));
	snprintf(refused, sizeof(refused), "%s", P("data/t/m: is a mount point; refused (a remove "
	                                           "may not cross mount points)"));

	mk_dir("data");
	mk_dir("data/t");
	mk_dir("data/t/m");
	mk_file("data/t/before", "x");
	mk_dir("outside");
	mk_file("outside/passwd", "root:x:0:0::/root:/bin/sh\n");
	in_mount_ns(P("outside"), "data/t/m", tree_mount_cases, o, _i);
	ck_assert_int_eq(o[0].r, -OSB_E_PATH);
	ck_assert_int_eq(o[0].sys_errno, EXDEV);
	ck_assert_str_eq(o[0].message, cross);
	ck_assert_int_eq(o[1].r, -OSB_E_PATH);
	ck_assert_int_eq(o[1].sys_errno, EXDEV);
	ck_assert_str_eq(o[1].message, cross);
	ck_assert_int_eq(o[2].r, -OSB_E_PATH);
	ck_assert_int_eq(o[2].sys_errno, EXDEV);
	ck_assert_str_eq(o[2].message, refused);
	ck_assert_int_eq(o[3].r, -OSB_E_PATH);
	ck_assert_int_eq(o[3].sys_errno, EXDEV);
	ck_assert_str_eq(o[3].message, refused);
	ck_assert_int_eq(o[4].r, -OSB_E_PATH);
	ck_assert_int_eq(o[4].sys_errno, EXDEV);
	ck_assert_int_eq(access(P("outside/passwd"), F_OK), 0);
	ck_assert_int_eq(access(P("outside/planted"), F_OK), -1);
	munmap(o, 5 * sizeof(*o));
}
END_TEST

/* ---- the swap race ----------------------------------------------------- */

typedef struct swapper {
	int dfd;
	atomic_bool stop;
	long swaps;
	int error;          /* errno of a failed exchange, which ends the loop */
} swapper;

static void *swap_loop(void *arg)
{
	swapper *s = arg;

	while (!atomic_load(&s->stop) || s->swaps < 10000) {
		if (renameat2(s->dfd, "inner", s->dfd, "decoy", RENAME_EXCHANGE) < 0) {
			s->error = errno;
			break;
		}
		s->swaps++;
	}
	return NULL;
}

START_TEST(test_swap_race_never_resolves_outside)
{
	swapper s = { .swaps = 0 };
	struct stat inner_st, sub_st;
	long ok = 0, refused = 0, outside = 0;
	pthread_t th;
	int root;

	use_mode(_i);
	mk_dir("data");
	mk_dir("data/inner");
	mk_dir("data/inner/sub");
	mk_dir("outside");
	mk_dir("outside/sub");
	mk_link(P("outside"), "data/decoy");
	inner_st = stat_of(P("data/inner"));
	sub_st = stat_of(P("data/inner/sub"));
	root = open_dir("data");
	s.dfd = root;
	atomic_init(&s.stop, false);
	ck_assert_int_eq(pthread_create(&th, NULL, swap_loop, &s), 0);
	for (int i = 0; i < 10000; i++) {
		const char *rel = (i & 1) ? "inner" : "inner/sub";
		const struct stat *want = (i & 1) ? &inner_st : &sub_st;
		osb_error err = { 0 };
		struct stat st;
		int fd = -1;

		if (path_resolve_beneath(root, P("data"), rel, &fd, &err) == 0) {
			ck_assert_int_eq(fstat(fd, &st), 0);
			if (st.st_dev == want->st_dev && st.st_ino == want->st_ino)
				ok++;
			else
				outside++;
			close(fd);
		} else {
			ck_assert_int_eq(err.sys_errno, ELOOP);
			refused++;
		}
	}
	atomic_store(&s.stop, true);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_msg(s.error == 0, "renameat2(RENAME_EXCHANGE) failed: %s", strerror(s.error));
	ck_assert_int_eq(outside, 0);
	ck_assert_int_eq(ok + refused, 10000);
	ck_assert_int_gt(ok, 0);
	ck_assert_int_gt(refused, 0);
	ck_assert_int_ge(s.swaps, 10000);
	close(root);
}
END_TEST

/* ---- roots ------------------------------------------------------------- */

/* How messages name the caller as an owner: "root", or "NAME (uid N)". */
static const char *me(void)
{
	static char buf[300];
	struct passwd *pw = getpwuid(geteuid());

	if (geteuid() == 0)
		return "root";
	snprintf(buf, sizeof(buf), "%s (uid %u)", pw ? pw->pw_name : "?", (unsigned)geteuid());
	return buf;
}

/* "DIR: symlink "NAME" (owned by the caller) refused: ..." */
static const char *symlink_msg(const char *path, const char *name)
{
	static char buf[PATH_MAX + 256];

	snprintf(buf, sizeof(buf), "%s: symlink \"%s\" (owned by %s) refused: paths are resolved "
	         "without following symlinks; name the directory itself", path, name, me());
	return buf;
}

START_TEST(test_open_root_refuses_symlinked_root)
{
	osb_error err = { 0 };
	int fd = -1;

	mk_dir("real");
	chmod(P("real"), 0755);
	mk_link("real", "link");
	ck_assert_int_eq(path_open_root(P("link"), &fd, &err), -OSB_E_PATH);
	ck_assert_int_eq(err.sys_errno, ELOOP);
	ck_assert_str_eq(err.stage, "paths");
	ck_assert_str_eq(err.message, symlink_msg(P("link"), "link"));
	mk_link(".", "self");
	ck_assert_int_eq(path_open_root(P("self/real"), &fd, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, symlink_msg(P("self/real"), "self"));
	ck_assert_int_eq(fd, -1);
}
END_TEST

START_TEST(test_open_root_refuses_group_or_other_writable)
{
	osb_error err = { 0 };
	int fd = -1;

	mk_dir("r");
	ck_assert_int_eq(chmod(P("r"), 0775), 0);
	ck_assert_int_eq(path_open_root(P("r"), &fd, &err), -OSB_E_PATH);
	ck_assert_int_eq(err.sys_errno, EPERM);
	ck_assert_str_eq(err.message, P("r: writable by group (mode 0775), whose members could "
	                                "change it; remove the write permission (chmod go-w)"));
	ck_assert_int_eq(chmod(P("r"), 01777), 0);
	ck_assert_int_eq(path_open_root(P("r"), &fd, &err), -OSB_E_PATH);
	ck_assert_int_eq(err.sys_errno, EPERM);
	ck_assert_int_eq(path_open_root("relative/dir", &fd, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, "relative/dir: not an absolute path");
	ck_assert_int_eq(path_open_root(P("r/"), &fd, &err), -OSB_E_PATH);
	ck_assert_int_eq(err.sys_errno, EINVAL);
	ck_assert_int_eq(fd, -1);
}
END_TEST

START_TEST(test_open_root_accepts_owner_only_dir)
{
	osb_error err = { 0 };
	int fd = -1;

	mk_dir("r");
	ck_assert_int_eq(chmod(P("r"), 0755), 0);
	ck_assert_int_eq(path_open_root(P("r"), &fd, &err), 0);
	assert_same_inode(fd, P("r"));
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
}
END_TEST

START_TEST(test_open_root_refuses_system_directories)
{
	osb_error err = { 0 };
	int fd = -1;

	ck_assert_int_eq(path_open_root("/etc", &fd, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, "/etc: inside /etc (host configuration: cron, sudoers, PAM, "
	                              "profile scripts run as root); choose a project directory");
	ck_assert_int_eq(path_open_root("/proc/sys", &fd, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, "/proc/sys: inside /proc (the host's process and kernel "
	                              "interfaces); choose a project directory");
	ck_assert_int_eq(fd, -1);
}
END_TEST

/* ---- workspace --------------------------------------------------------- */

static void expect_workspace_refused(const char *dir, const char *why)
{
	osb_error err = { 0 };
	char *canon = NULL, want[2048];
	int fd = -1;

	snprintf(want, sizeof(want), "%s: %s", dir, why);
	ck_assert_int_eq(path_open_workspace(dir, NULL, &fd, &canon, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.stage, "workspace");
	ck_assert_str_eq(err.message, want);
	ck_assert_int_eq(fd, -1);
	ck_assert_ptr_null(canon);
}

static void expect_workspace_ok(const char *dir, const path_roots *roots)
{
	osb_error err = { 0 };
	char *canon = NULL;
	int fd = -1;

	ck_assert_msg(path_open_workspace(dir, roots, &fd, &canon, &err) == 0, "%s: %s", dir,
	              err.message);
	ck_assert_str_eq(canon, dir);
	assert_same_inode(fd, dir);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
	free(canon);
	close(fd);
}

START_TEST(test_workspace_refuses_root_and_system_dirs)
{
	setenv("HOME", P("home"), 1);
	expect_workspace_refused("/", "the root directory; choose a project directory beneath it");
	expect_workspace_refused("/usr", "inside /usr (programs and libraries the host executes); "
	                         "choose a project directory");
	expect_workspace_refused("/tmp", "the directory every user shares (/tmp); choose a project "
	                         "directory beneath it");
	expect_workspace_refused("/home", "the directory that holds every user's home (/home); "
	                         "choose a project directory beneath it");
	expect_workspace_refused("/usr/", "not a normalized absolute path (an empty, \".\" or "
	                         "\"..\" component, a trailing \"/\", or a name longer than "
	                         "NAME_MAX)");
	expect_workspace_refused("/usr/../etc", "not a normalized absolute path (an empty, \".\" or "
	                         "\"..\" component, a trailing \"/\", or a name longer than "
	                         "NAME_MAX)");
}
END_TEST

/* Finding: /etc/cron.d, /usr/local/bin, /var/lib, /proc/sys/kernel were all
 * accepted; a list of exact inodes does not cover what lies beneath. */
START_TEST(test_workspace_refuses_system_subdirectories_at_any_depth)
{
	static const struct { const char *dir, *why; } cases[] = {
		{ "/etc/default", "inside /etc (host configuration: cron, sudoers, PAM, profile "
		  "scripts run as root); choose a project directory" },
		{ "/usr/share/doc", "inside /usr (programs and libraries the host executes); choose a "
		  "project directory" },
		{ "/var/lib", "inside /var/lib (service state: package database, databases, systemd); "
		  "choose a project directory" },
		{ "/var/log", "inside /var/log (logs the host trusts and rotates as root); choose a "
		  "project directory" },
		{ "/proc/sys/kernel", "inside /proc (the host's process and kernel interfaces); choose "
		  "a project directory" },
		{ "/sys/kernel", "inside /sys (the host's kernel and device interfaces); choose a "
		  "project directory" },
		{ "/dev/shm", "inside /dev (the host's devices and shared memory); choose a project "
		  "directory" },
	};

	setenv("HOME", P("home"), 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (access(cases[i].dir, F_OK) == 0)
			expect_workspace_refused(cases[i].dir, cases[i].why);
}
END_TEST

START_TEST(test_workspace_refuses_home_and_its_dot_directories)
{
	char why[PATH_MAX + 256];

	mk_dir("home");
	mk_dir("home/.ssh");
	mk_dir("home/.config");
	mk_dir("home/.config/autostart");
	mk_dir("home/proj");
	setenv("HOME", P("home"), 1);
	snprintf(why, sizeof(why), "the home directory %s of the caller; choose a project "
	         "directory beneath it", P("home"));
	expect_workspace_refused(P("home"), why);
	snprintf(why, sizeof(why), "inside %s, a dot directory of the caller's home (configuration "
	         "that shells, ssh, git and editors run); choose a project directory", P("home/.ssh"));
	expect_workspace_refused(P("home/.ssh"), why);
	snprintf(why, sizeof(why), "inside %s, a dot directory of the caller's home (configuration "
	         "that shells, ssh, git and editors run); choose a project directory",
	         P("home/.config"));
	expect_workspace_refused(P("home/.config/autostart"), why);
	expect_workspace_ok(P("home/proj"), NULL);
}
END_TEST

/* Finding: root's workspace went through a symlink another user planted.
 * No symlink is followed, whoever owns it; the message names its owner. */
START_TEST(test_workspace_refuses_any_symlink_naming_its_owner)
{
	char why[PATH_MAX + 256];

	setenv("HOME", P("home"), 1);
	mk_dir("proj");
	mk_link("proj", "plink");
	mk_link("/etc", "q");
	snprintf(why, sizeof(why), "%s", symlink_msg("", "plink") + 2);
	expect_workspace_refused(P("plink"), why);
	snprintf(why, sizeof(why), "%s", symlink_msg("", "q") + 2);
	expect_workspace_refused(P("q/default"), why);
	if (geteuid() != 0)
		return;
	ck_assert_int_eq(lchown(P("q"), 4242, 4242), 0);
	snprintf(why, sizeof(why), "symlink \"q\" (owned by uid 4242) refused: paths are resolved "
	         "without following symlinks; name the directory itself");
	expect_workspace_refused(P("q/default"), why);
}
END_TEST

/* A directory someone else owns or may write is never crossed: they could
 * rename what lies beneath and put a symlink in its place. */
START_TEST(test_workspace_refuses_crossing_what_others_can_change)
{
	char why[PATH_MAX + 256];

	setenv("HOME", P("home"), 1);
	mk_dir("gw");
	mk_dir("gw/p");
	ck_assert_int_eq(chmod(P("gw"), 0775), 0);
	snprintf(why, sizeof(why), "%s is writable by group (mode 0775), whose members could "
	         "redirect the path; remove the write permission (chmod go-w)", P("gw"));
	expect_workspace_refused(P("gw/p"), why);
	ck_assert_int_eq(chmod(P("gw"), 0757), 0);
	snprintf(why, sizeof(why), "%s is writable by others (mode 0757), whose members could "
	         "redirect the path; remove the write permission (chmod go-w)", P("gw"));
	expect_workspace_refused(P("gw/p"), why);
	/* The last component itself is what gets bound: its owner and mode do
	 * not let anyone redirect the path to it. */
	ck_assert_int_eq(chmod(P("gw"), 0755), 0);
	ck_assert_int_eq(chmod(P("gw/p"), 0777), 0);
	expect_workspace_ok(P("gw/p"), NULL);
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP %s: the other-owner cases need root (chown)\n", __func__);
		return;
	}
	mk_dir("u");
	mk_dir("u/d");
	ck_assert_int_eq(chown(P("u"), 4242, 4242), 0);
	snprintf(why, sizeof(why), "%s is owned by uid 4242, who could redirect the path; every "
	         "directory crossed must belong to root or to the caller", P("u"));
	expect_workspace_refused(P("u/d"), why);
	expect_workspace_ok(P("u"), NULL);
}
END_TEST

START_TEST(test_workspace_sticky_directory_only_into_own_entries)
{
	char why[PATH_MAX + 256];

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP %s: needs root (chown)\n", __func__);
		return;
	}
	setenv("HOME", P("home"), 1);
	mk_dir("sticky");
	mk_dir("sticky/mine");
	mk_dir("sticky/theirs");
	mk_dir("sticky/theirs/p");
	ck_assert_int_eq(chmod(P("sticky"), 01777), 0);
	ck_assert_int_eq(chown(P("sticky/theirs"), 4242, 4242), 0);
	expect_workspace_ok(P("sticky/mine"), NULL);
	snprintf(why, sizeof(why), "%s (owned by uid 4242) lies in the sticky, world-writable %s, "
	         "where only entries of root or of the caller are safe from replacement",
	         P("sticky/theirs"), P("sticky"));
	expect_workspace_refused(P("sticky/theirs/p"), why);
	expect_workspace_refused(P("sticky/theirs"), why);
	/* Without the sticky bit anyone could rename even root's entries. */
	ck_assert_int_eq(chmod(P("sticky"), 0777), 0);
	snprintf(why, sizeof(why), "%s is writable by group and others (mode 0777), whose members "
	         "could redirect the path; remove the write permission (chmod go-w)", P("sticky"));
	expect_workspace_refused(P("sticky/mine"), why);
}
END_TEST

START_TEST(test_workspace_must_lie_beneath_a_configured_root)
{
	/* Copies: P() reuses its buffers. */
	char *v[] = { strdup(P("roots")), strdup(P("more")) };
	path_roots roots = { v, 2, "/etc/osb-isolate/config" };
	char why[PATH_MAX * 3];
	osb_error err = { 0 };
	char *canon = NULL;
	int fd = -1;

	setenv("HOME", P("home"), 1);
	mk_dir("roots");
	mk_dir("roots/a");
	mk_dir("roots/a/b");
	mk_dir("more");
	mk_dir("rootsx");
	expect_workspace_ok(P("roots/a"), &roots);
	expect_workspace_ok(P("roots/a/b"), &roots);
	snprintf(why, sizeof(why), "%s: not beneath a configured workspace root (workspace-root in "
	         "/etc/osb-isolate/config: %s, %s)", P("rootsx"), P("roots"), P("more"));
	ck_assert_int_eq(path_open_workspace(P("rootsx"), &roots, &fd, &canon, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, why);
	snprintf(why, sizeof(why), "%s: not beneath a configured workspace root (workspace-root in "
	         "/etc/osb-isolate/config: %s, %s)", P("roots"), P("roots"), P("more"));
	ck_assert_int_eq(path_open_workspace(P("roots"), &roots, &fd, &canon, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, why);
	ck_assert_int_eq(fd, -1);
	free(v[0]);
	free(v[1]);
}
END_TEST

static void pseudo_fs_cases(outcome *o, int mode)
{
	osb_error err = { 0 };
	char *canon = NULL;
	int fd = -1;

	(void)mode;
	record(&o[0], path_open_workspace(P("p"), NULL, &fd, &canon, &err), &err);
	fd = open(P("p"), O_PATH | O_CLOEXEC);
	memset(&err, 0, sizeof(err));
	record(&o[1], path_check_fs(fd, "ro-bind /x", "plan", &err), &err);
}

/* A kernel interface is refused by what it is (statfs), not by its name:
 * here procfs is mounted at an innocent path. */
START_TEST(test_workspace_refuses_pseudo_fs_by_magic)
{
	outcome *o = shared_outcomes(2);
	pid_t pid;
	int status;

	setenv("HOME", P("home"), 1);
	mk_dir("p");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("proc", P("p"), "proc", 0, NULL) < 0)
			_exit(77);
		pseudo_fs_cases(o, 0);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		fprintf(stderr, "SKIP %s: cannot mount procfs here (needs root)\n", __func__);
		munmap(o, 2 * sizeof(*o));
		return;
	}
	ck_assert_int_eq(o[0].r, -OSB_E_PATH);
	ck_assert_str_eq(o[0].message, P("p: on procfs (f_type 0x9fa0); the sandbox must not write "
	                                 "or read the host's kernel interfaces through it"));
	ck_assert_int_eq(o[1].r, -OSB_E_PATH);
	ck_assert_str_eq(o[1].message, "ro-bind /x: on procfs (f_type 0x9fa0); the sandbox must not "
	                 "write or read the host's kernel interfaces through it");
	munmap(o, 2 * sizeof(*o));
}
END_TEST

/* ---- tmpfs or devtmpfs: what the mount table says ------------------------ */

/* devtmpfs has tmpfs's f_type: only the mount table tells them apart, and it
 * is read for such a file system alone. Where it cannot tell, the step is
 * refused as the host's fault (OSB_E_HOST: exit 125), never judged a plain
 * tmpfs. The cases run as root in a private mount namespace with a tmpfs at
 * T/tm and devtmpfs at T/dv, first with the real table, then with a tmpfs
 * over /proc: no table at all, then a self/mountinfo the case writes. */

enum { TJ_CASES = 12 };

typedef struct tmpfs_judged {
	char feature[32], skip[256];   /* what this host lacks for the cases, and why */
	uint64_t tm_id;                /* the mount id of T/tm */
	char walk_at[PATH_MAX];        /* the first component of T/tm with tmpfs's f_type */
	int r[TJ_CASES];
	osb_error err[TJ_CASES];
} tmpfs_judged;

__attribute__((noreturn))
static void tj_skip(tmpfs_judged *j, const char *feature, const char *what)
{
	snprintf(j->feature, sizeof(j->feature), "%s", feature);
	snprintf(j->skip, sizeof(j->skip), "%s: %s", what, strerror(errno));
	_exit(0);
}

/* Where the walk of PATH first reads the table: the first component after
 * "/" (PATH itself at the latest) with tmpfs's f_type. */
static void tj_first_tmpfs(const char *path, char *out, size_t size)
{
	char buf[PATH_MAX];
	struct statfs sfs;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1;; s++) {
		char c = *s;

		if (c && c != '/')
			continue;
		*s = '\0';
		if (statfs(buf, &sfs) == 0 && (unsigned long)sfs.f_type == TMPFS_MAGIC)
			break;
		*s = c;
		if (!c)
			break;
	}
	snprintf(out, size, "%s", buf);
}

/* The line of TABLE for mount ID: [*START, *END), its newline included. */
static bool tj_find(const char *table, uint64_t id, size_t *start, size_t *end)
{
	char key[32];
	int n = snprintf(key, sizeof(key), "%" PRIu64 " ", id);

	for (const char *l = table, *nl; (nl = strchr(l, '\n')) != NULL; l = nl + 1)
		if (strncmp(l, key, (size_t)n) == 0) {
			*start = (size_t)(l - table);
			*end = (size_t)(nl + 1 - table);
			return true;
		}
	return false;
}

/* The table the library reads next: LEN bytes of A, then B and C. */
static bool tj_table(const char *a, size_t len, const char *b, const char *c)
{
	int fd = open("/proc/self/mountinfo", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, a, len) == (ssize_t)len &&
	          write(fd, b, strlen(b)) == (ssize_t)strlen(b) &&
	          write(fd, c, strlen(c)) == (ssize_t)strlen(c);

	if (fd >= 0)
		close(fd);
	return ok;
}

static void tj_check_fs(tmpfs_judged *j, int i, int fd, const char *what)
{
	osb_error err = { 0 };

	j->r[i] = path_check_fs(fd, what, "plan", &err);
	j->err[i] = err;
}

static void tj_caller_bind(tmpfs_judged *j, int i, const char *abs)
{
	osb_error err = { 0 };
	int fd = -1;

	j->r[i] = path_open_caller_bind(abs, &fd, &err);
	j->err[i] = err;
	if (fd >= 0)
		close(fd);
}

static void tmpfs_cases(tmpfs_judged *j)
{
	static const char bad[] = "x 1 0:1 / / rw - ext4 /dev/x rw\n";
	struct mountinfo_table tb;
	struct statx stx;
	const char *t, *dash;
	size_t start, end;
	int dv, tm;

	if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		tj_skip(j, "root", "root cannot make a private mount namespace here");
	if (mount("tmpfs", P("tm"), "tmpfs", 0, "mode=0755") < 0 ||
	    mount("devtmpfs", P("dv"), "devtmpfs", 0, NULL) < 0)
		tj_skip(j, "root", "root cannot mount tmpfs and devtmpfs here");
	if (statx(AT_FDCWD, P("tm"), AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0 ||
	    !(stx.stx_mask & STATX_MNT_ID)) {
		errno = ENOSYS;
		tj_skip(j, "root", "statx(STATX_MNT_ID) gives no mount id (Linux 5.8), and the one "
		        "of /proc/self/fdinfo goes with /proc, which these cases cover");
	}
	j->tm_id = stx.stx_mnt_id;
	tj_first_tmpfs(P("tm"), j->walk_at, sizeof(j->walk_at));
	tm = open(P("tm"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	dv = open(P("dv"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (tm < 0 || dv < 0 || mountinfo_load("/proc/self/mountinfo", &tb) < 0 ||
	    !tj_find(tb.buf, j->tm_id, &start, &end))
		_exit(3);
	t = tb.buf;
	tj_check_fs(j, 0, dv, P("dv"));
	tj_check_fs(j, 1, tm, P("tm"));
	if (mount("tmpfs", "/proc", "tmpfs", 0, "mode=0755") < 0)
		tj_skip(j, "root", "root cannot mount a tmpfs over /proc here");
	tj_check_fs(j, 2, dv, P("dv"));
	tj_check_fs(j, 3, tm, P("tm"));
	tj_caller_bind(j, 4, P("tm"));
	dash = strstr(t + start, " - tmpfs ");
	if (mkdir("/proc/self", 0755) < 0 || !dash || dash >= t + end)
		_exit(4);
	/* A line the reader refuses, before the entry of each mount. */
	if (!tj_table(bad, strlen(bad), t, ""))
		_exit(5);
	tj_check_fs(j, 5, dv, P("dv"));
	tj_caller_bind(j, 6, P("tm"));
	/* Every line but T/tm's. */
	if (!tj_table(t, start, "", t + end))
		_exit(6);
	tj_check_fs(j, 7, tm, P("tm"));
	/* T/tm's line says devtmpfs: the table the cases wrote is the one read. */
	if (!tj_table(t, (size_t)(dash - t), " - devtmpfs ", dash + strlen(" - tmpfs ")))
		_exit(7);
	tj_check_fs(j, 8, tm, P("tm"));
	tj_caller_bind(j, 9, P("tm"));
	/* The real table again: a plain tmpfs is accepted. */
	if (!tj_table(t, strlen(t), "", ""))
		_exit(8);
	tj_check_fs(j, 10, tm, P("tm"));
	tj_caller_bind(j, 11, P("tm"));
	mountinfo_free(&tb);
	_exit(0);
}

static void tj_expect(const tmpfs_judged *j, int i, int code, int e, const char *stage,
                      const char *message)
{
	const osb_error *err = &j->err[i];

	ck_assert_msg(j->r[i] == (code ? -code : 0), "case %d: returned %d: %s", i, j->r[i],
	              err->message);
	if (!code)
		return;
	ck_assert_msg(err->code == code && err->sys_errno == e && strcmp(err->stage, stage) == 0,
	              "case %d: code %d, errno %d, stage %s", i, err->code, err->sys_errno,
	              err->stage);
	ck_assert_msg(strcmp(err->message, message) == 0, "case %d:\n got: %s\nwant: %s", i,
	              err->message, message);
}

#define TJ_UNKNOWN "on a file system with tmpfs's f_type (0x1021994), which devtmpfs (the " \
	"host's devices) shares, and the mount table cannot tell which it is: "
#define TJ_TODO "; check that /proc is mounted (the host's procfs) and readable, or choose " \
	"a path on another file system"
#define TJ_KI "; the sandbox must not write or read the host's kernel interfaces through it"

/* Finding: a path whose file system fstatfs could not describe was judged
 * a plain one and granted, as a workspace, a write path and a bind: the
 * kernel interfaces are told by f_type, so unknown is refused (the host's
 * fault, exit 125), never granted. */
START_TEST(test_fs_that_fstatfs_cannot_describe_is_refused)
{
	static const char todo[] = "on a file system that cannot be identified (fstatfs: "
	                           "Input/output error), so it may be one of the host's kernel "
	                           "interfaces; check the file system (dmesg) or choose a path on "
	                           "another one";
	osb_error err = { 0 };
	char want[2 * PATH_MAX], *canon = NULL;
	int fd = -1, pfd;

	setenv("HOME", P("home"), 1);
	mk_dir("home");
	mk_dir("home/proj");
	pfd = open(P("home/proj"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(pfd, 0);
	fstatfs_fail = EIO;
	ck_assert_int_eq(path_check_fs(pfd, "ro-bind /x", "plan", &err), -OSB_E_HOST);
	fstatfs_fail = 0;
	ck_assert_int_eq(err.sys_errno, EIO);
	ck_assert_str_eq(err.stage, "plan");
	snprintf(want, sizeof(want), "ro-bind /x: %s", todo);
	ck_assert_str_eq(err.message, want);

	memset(&err, 0, sizeof(err));
	fstatfs_fail = EIO;
	ck_assert_int_eq(path_open_workspace(P("home/proj"), NULL, &fd, &canon, &err), -OSB_E_HOST);
	fstatfs_fail = 0;
	ck_assert_int_eq(fd, -1);
	ck_assert_ptr_null(canon);
	ck_assert_int_eq(err.sys_errno, EIO);
	ck_assert_str_eq(err.stage, "workspace");
	ck_assert_msg(strstr(err.message, todo) != NULL, "%s", err.message);
	/* Described again, the same path is granted. */
	expect_workspace_ok(P("home/proj"), NULL);
	close(pfd);
}
END_TEST

/* Finding: explain --host's socket scan skipped a directory whose file
 * system fstatfs could not describe as if it were a kernel interface, and
 * still called the scan complete: a socket beneath it went unlisted. */
START_TEST(test_view_scan_is_incomplete_where_fstatfs_fails)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	osb_policy pol;
	plan_bind b = { .dest = (char *)"/v" };
	plan pl;
	view_sockets v;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&pol, 0, sizeof(pol));
	pol.root = ROOT_NONE;
	memset(&pl, 0, sizeof(pl));
	pl.p = &pol;
	pl.binds = &b;
	pl.n_binds = 1;
	mk_dir("v");
	mk_dir("v/sub");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", P("v/sub/s"));
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	b.fd = open(P("v"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(b.fd, 0);
	ck_assert_int_eq(view_scan_sockets(&pl, &v), 0);
	ck_assert(v.complete);
	ck_assert_uint_eq(v.paths.n, 1);
	ck_assert_str_eq(v.paths.v[0], "/v/sub/s");
	view_sockets_free(&v);
	fstatfs_fail = EIO;
	ck_assert_int_eq(view_scan_sockets(&pl, &v), 0);
	fstatfs_fail = 0;
	ck_assert_msg(!v.complete, "a directory fstatfs could not describe was skipped, and the "
	              "scan called complete");
	ck_assert_uint_eq(v.paths.n, 0);
	view_sockets_free(&v);
	close(b.fd);
	close(s);
}
END_TEST

/* Finding: with /proc/self/mountinfo unreadable, or a line in it the reader
 * refused, devtmpfs was judged a plain tmpfs and granted. */
START_TEST(test_tmpfs_whose_mount_type_cannot_be_read_is_refused)
{
	tmpfs_judged *j;
	char want[3 * PATH_MAX];
	pid_t pid;
	int status;

	if (!test_have_root())
		return;
	setenv("HOME", P("home"), 1);
	mk_dir("tm");
	mk_dir("dv");
	j = mmap(NULL, sizeof(*j), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(j, MAP_FAILED);
	memset(j, 0, sizeof(*j));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		tmpfs_cases(j);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	              "mount namespace child failed (status 0x%x)", status);
	if (j->skip[0]) {
		osb_test_have(j->feature, false, j->skip);
		munmap(j, sizeof(*j));
		return;
	}
	/* The real table: devtmpfs refused, a plain tmpfs accepted. */
	snprintf(want, sizeof(want), "%s: on devtmpfs (f_type 0x1021994, mount type devtmpfs)%s",
	         P("dv"), TJ_KI);
	tj_expect(j, 0, OSB_E_PATH, EPERM, "plan", want);
	tj_expect(j, 1, 0, 0, NULL, NULL);
	/* No table: neither is judged. */
	snprintf(want, sizeof(want), "%s: " TJ_UNKNOWN "cannot read /proc/self/mountinfo: No such "
	         "file or directory" TJ_TODO, P("dv"));
	tj_expect(j, 2, OSB_E_HOST, ENOENT, "plan", want);
	snprintf(want, sizeof(want), "%s: " TJ_UNKNOWN "cannot read /proc/self/mountinfo: No such "
	         "file or directory" TJ_TODO, P("tm"));
	tj_expect(j, 3, OSB_E_HOST, ENOENT, "plan", want);
	snprintf(want, sizeof(want), "%s: %s is " TJ_UNKNOWN "cannot read /proc/self/mountinfo: "
	         "No such file or directory" TJ_TODO, P("tm"), j->walk_at);
	tj_expect(j, 4, OSB_E_HOST, ENOENT, "paths", want);
	/* A line the reader refuses before the entry. */
	snprintf(want, sizeof(want), "%s: " TJ_UNKNOWN "/proc/self/mountinfo line 1: the mount ids "
	         "are not decimal numbers" TJ_TODO, P("dv"));
	tj_expect(j, 5, OSB_E_HOST, EINVAL, "plan", want);
	snprintf(want, sizeof(want), "%s: %s is " TJ_UNKNOWN "/proc/self/mountinfo line 1: the "
	         "mount ids are not decimal numbers" TJ_TODO, P("tm"), j->walk_at);
	tj_expect(j, 6, OSB_E_HOST, EINVAL, "paths", want);
	/* No entry for the mount. */
	snprintf(want, sizeof(want), "%s: " TJ_UNKNOWN "/proc/self/mountinfo has no entry for its "
	         "mount id %" PRIu64 TJ_TODO, P("tm"), j->tm_id);
	tj_expect(j, 7, OSB_E_HOST, ENOENT, "plan", want);
	/* The table written is the one read. */
	snprintf(want, sizeof(want), "%s: on devtmpfs (f_type 0x1021994, mount type devtmpfs)%s",
	         P("tm"), TJ_KI);
	tj_expect(j, 8, OSB_E_PATH, EPERM, "plan", want);
	tj_expect(j, 9, OSB_E_PATH, EPERM, "paths", want);
	tj_expect(j, 10, 0, 0, NULL, NULL);
	tj_expect(j, 11, 0, 0, NULL, NULL);
	munmap(j, sizeof(*j));
}
END_TEST

START_TEST(test_workspace_accepts_project_dir_and_reads_back_its_path)
{
	osb_error err = { 0 };
	char *canon = NULL;
	int fd = -1;

	setenv("HOME", P("home"), 1);
	mk_dir("proj");
	expect_workspace_ok(P("proj"), NULL);
	ck_assert_int_eq(path_open_workspace(P("nope"), NULL, &fd, &canon, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, P("nope: cannot open %s: No such file or directory", P("nope")));
	ck_assert_int_eq(err.sys_errno, ENOENT);
}
END_TEST

/* ---- grants beneath a root, binds, configuration ------------------------ */

/* Finding: a write-root whose mount id could not be told (no STATX_MNT_ID,
 * and a /proc/self/fdinfo without mnt_id) was refused with whatever errno
 * an earlier call had left, and said "cannot stat" of a root it had
 * stated. The child covers /proc in a private mount namespace (root) and
 * writes the root's fdinfo without the line. */
START_TEST(test_granted_root_without_a_mount_id_names_why)
{
	struct { int r; osb_error err; bool skip; } *o;
	pid_t pid;
	int status;

	if (!test_have_root())
		return;
	setenv("HOME", P("home"), 1);
	mk_dir("jobs");
	mk_dir("jobs/7");
	ck_assert_int_eq(chmod(P("jobs"), 0755), 0);
	o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(o, MAP_FAILED);
	memset(o, 0, sizeof(*o));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static const char no_mnt[] = "pos:\t0\nflags:\t02000000\n";
		osb_error err = { 0 };
		char info[64];
		int root, fd = -1, f;

		if (path_open_root(P("jobs"), &root, &err) < 0)
			_exit(2);
		if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("tmpfs", "/proc", "tmpfs", 0, "mode=0755") < 0) {
			o->skip = true;
			_exit(0);
		}
		snprintf(info, sizeof(info), "/proc/self/fdinfo/%d", root);
		if (mkdir("/proc/self", 0755) < 0 || mkdir("/proc/self/fdinfo", 0755) < 0 ||
		    (f = open(info, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0 ||
		    write(f, no_mnt, strlen(no_mnt)) != (ssize_t)strlen(no_mnt))
			_exit(3);
		close(f);
		statx_no_mnt_id = true;
		errno = EBADMSG;   /* what an earlier call may have left */
		o->r = path_open_granted(root, P("jobs/7"), &fd, &err);
		o->err = err;
		_exit(fd == -1 ? 0 : 4);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	if (o->skip) {
		osb_test_have("root", false, "root cannot cover /proc in a private mount namespace here");
		munmap(o, sizeof(*o));
		return;
	}
	ck_assert_int_eq(o->r, -OSB_E_PATH);
	ck_assert_int_eq(o->err.sys_errno, ENOTSUP);
	ck_assert_str_eq(o->err.message, P("jobs/7: cannot tell the mount of the root it must lie "
	                                   "beneath (statx STATX_MNT_ID, /proc/self/fdinfo): "
	                                   "Operation not supported"));
	munmap(o, sizeof(*o));
}
END_TEST

START_TEST(test_granted_path_lies_strictly_beneath_its_root)
{
	osb_error err = { 0 };
	int root, fd = -1;

	setenv("HOME", P("home"), 1);
	mk_dir("jobs");
	mk_dir("jobs/7");
	mk_dir("other");
	mk_file("jobs/f", "x");
	ck_assert_int_eq(link(P("jobs/f"), P("jobs/g")), 0);
	ck_assert_int_eq(chmod(P("jobs"), 0755), 0);
	ck_assert_int_eq(path_open_root(P("jobs"), &root, &err), 0);
	ck_assert_int_eq(path_open_granted(root, P("jobs/7"), &fd, &err), 0);
	assert_same_inode(fd, P("jobs/7"));
	close(fd);
	ck_assert_int_eq(path_open_granted(root, P("jobs"), &fd, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, P("jobs: the write-root itself; only paths beneath it may be "
	                                "granted"));
	ck_assert_int_eq(path_open_granted(root, P("other"), &fd, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, P("other: not beneath its write-root"));
	ck_assert_int_eq(path_open_granted(root, P("jobs/f"), &fd, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, P("jobs/f: regular file has 2 hard links; refused (another "
	                                "link may be a file outside the root)"));
	ck_assert_int_eq(fd, -1);
	close(root);
}
END_TEST

START_TEST(test_caller_bind_refuses_system_and_shared_directories)
{
	osb_error err = { 0 };
	int fd = -1;

	setenv("HOME", P("home"), 1);
	mk_dir("data");
	mk_file("data/f", "x");
	ck_assert_int_eq(path_open_caller_bind(P("data/f"), &fd, &err), 0);
	close(fd);
	ck_assert_int_eq(path_open_caller_bind("/etc", &fd, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, "/etc: inside /etc (host configuration: cron, sudoers, PAM, "
	                 "profile scripts run as root); choose a project directory");
	ck_assert_int_eq(path_open_caller_bind("/tmp", &fd, &err), -OSB_E_PATH);
	ck_assert_int_eq(fd, -1);
}
END_TEST

START_TEST(test_config_file_must_belong_to_root_or_the_caller)
{
	osb_error err = { 0 };
	int fd;

	mk_dir("etc");
	mk_file("etc/config", "osb-config 1\n");
	mk_link("config", "etc/link");
	fd = path_open_config(P("etc/config"), &err);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	close(fd);
	ck_assert_int_eq(chmod(P("etc/config"), 0664), 0);
	ck_assert_int_eq(path_open_config(P("etc/config"), &err), -OSB_E_PATH);
	ck_assert_str_eq(err.stage, "config");
	ck_assert_str_eq(err.message, P("etc/config: writable by group (mode 0664), whose members "
	                                "could change it; remove the write permission (chmod go-w)"));
	ck_assert_int_eq(path_open_config(P("etc/link"), &err), -OSB_E_PATH);
	ck_assert_int_eq(err.sys_errno, ELOOP);
	ck_assert_int_eq(path_open_config(P("etc/none"), &err), -OSB_E_PATH);
	ck_assert_int_eq(err.sys_errno, ENOENT);
	if (geteuid() != 0)
		return;
	ck_assert_int_eq(chmod(P("etc/config"), 0644), 0);
	ck_assert_int_eq(chown(P("etc/config"), 4242, 4242), 0);
	ck_assert_int_eq(path_open_config(P("etc/config"), &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, P("etc/config: owned by uid 4242, who could change it; it "
	                                "must belong to root or to the caller"));
}
END_TEST

START_TEST(test_system_problem_is_the_same_table_by_name)
{
	char buf[512];

	ck_assert_str_eq(path_system_problem("/etc/cron.d", buf, sizeof(buf)),
	                 "inside /etc (host configuration: cron, sudoers, PAM, profile scripts run as "
	                 "root); choose a project directory");
	ck_assert_str_eq(path_system_problem("/home", buf, sizeof(buf)),
	                 "the directory that holds every user's home (/home); choose a project "
	                 "directory beneath it");
	ck_assert_ptr_null(path_system_problem("/home/u/proj", buf, sizeof(buf)));
	ck_assert_ptr_null(path_system_problem("/etcetera", buf, sizeof(buf)));
	ck_assert_ptr_null(path_system_problem("/srv/jobs", buf, sizeof(buf)));
}
END_TEST

/* ---- suite ------------------------------------------------------------- */

static void add_both(TCase *tc, const TTest *t)
{
	tcase_add_loop_test(tc, t, 0, 2);
}

static Suite *paths_suite(void)
{
	Suite *s = suite_create("paths");
	TCase *lex = tcase_create("lexical");
	TCase *sym = tcase_create("symlinks");
	TCase *typ = tcase_create("types");
	TCase *mnt = tcase_create("mounts");
	TCase *api = tcase_create("file-api");
	TCase *race = tcase_create("race");
	TCase *roots = tcase_create("roots");

	/* valgrind runs one thread at a time: the race takes minutes there. */
	tcase_set_tags(race, "novalgrind");

	TCase *all[] = { lex, sym, typ, mnt, api, race, roots };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, teardown);
		tcase_set_timeout(all[i], 120);
		suite_add_tcase(s, all[i]);
	}

	add_both(lex, test_dotdot_into_sibling_sharing_prefix_refused);
	add_both(lex, test_dotdot_to_etc_refused);
	add_both(lex, test_dot_component_refused);
	add_both(lex, test_doubled_slash_refused);
	add_both(lex, test_trailing_slash_refused);
	add_both(lex, test_empty_path_refused);
	add_both(lex, test_absolute_path_refused);
	add_both(lex, test_path_longer_than_path_max_refused);
	add_both(lex, test_component_longer_than_name_max_refused);

	add_both(sym, test_final_symlink_to_etc_refused);
	add_both(sym, test_intermediate_symlink_refused_naming_component);
	add_both(sym, test_relative_symlink_to_outside_refused);
	add_both(sym, test_symlink_to_sibling_sharing_prefix_refused);
	add_both(sym, test_in_tree_symlink_refused);
	add_both(sym, test_symlink_through_proc_self_root_refused);
	add_both(sym, test_component_that_is_a_file_refused);
	add_both(sym, test_missing_component_named);
	add_both(sym, test_resolve_returns_the_inner_inode);

	add_both(typ, test_hard_link_to_outside_file_refused);
	add_both(typ, test_fifo_refused_without_blocking);
	add_both(typ, test_char_device_refused);
	add_both(typ, test_socket_refused);

	add_both(mnt, test_mount_beneath_refused);
	add_both(mnt, test_mount_in_sibling_sharing_prefix_not_reported);

	add_both(api, test_create_through_dangling_symlink_refused);
	add_both(api, test_chown_and_chmod_through_symlink_refused);
	add_both(api, test_chmod_and_chown_apply_to_the_inner_file);
	add_both(api, test_mkdir_rename_unlink_through_symlinked_dir_refused);
	tcase_add_test(api, test_root_itself_refused_where_an_entry_is_needed);
	tcase_add_loop_test(api, test_write_file_replaces_atomically, 0, 4);
	add_both(api, test_write_file_refuses_directory_target);
	tcase_add_test(api, test_open_beneath_flags_refused);
	add_both(api, test_open_beneath_gives_a_blocking_cloexec_fd);
	add_both(api, test_list_beneath_sorted_and_refuses_symlinked_dir);
	add_both(api, test_stat_and_lstat_report_without_following);
	add_both(api, test_stat_sees_a_file_swapped_for_a_symlink);
	tcase_add_loop_test(api, test_readdir_typed_sorted_and_bounded, 0, 4);
	add_both(api, test_writer_streams_and_commits_atomically);
	add_both(api, test_writer_abort_and_free_remove_the_temporary);
	add_both(api, test_writer_refuses_symlinks_escapes_and_swaps);
	add_both(api, test_remove_tree_never_follows_symlinks);
	add_both(api, test_remove_tree_names_the_first_entry_it_cannot_remove);
	add_both(api, test_remove_tree_depth_is_bounded);
	add_both(mnt, test_remove_tree_stops_at_a_mount);

	add_both(race, test_swap_race_never_resolves_outside);
	add_both(race, test_concurrent_writers_each_commit_whole);

	tcase_add_test(roots, test_open_root_refuses_symlinked_root);
	tcase_add_test(roots, test_open_root_refuses_group_or_other_writable);
	tcase_add_test(roots, test_open_root_accepts_owner_only_dir);
	tcase_add_test(roots, test_open_root_refuses_system_directories);
	tcase_add_test(roots, test_workspace_refuses_root_and_system_dirs);
	tcase_add_test(roots, test_workspace_refuses_system_subdirectories_at_any_depth);
	tcase_add_test(roots, test_workspace_refuses_home_and_its_dot_directories);
	tcase_add_test(roots, test_workspace_refuses_any_symlink_naming_its_owner);
	tcase_add_test(roots, test_workspace_refuses_crossing_what_others_can_change);
	tcase_add_test(roots, test_workspace_sticky_directory_only_into_own_entries);
	tcase_add_test(roots, test_workspace_must_lie_beneath_a_configured_root);
	tcase_add_test(roots, test_workspace_refuses_pseudo_fs_by_magic);
	tcase_add_test(roots, test_tmpfs_whose_mount_type_cannot_be_read_is_refused);
	tcase_add_test(roots, test_fs_that_fstatfs_cannot_describe_is_refused);
	tcase_add_test(roots, test_view_scan_is_incomplete_where_fstatfs_fails);
	tcase_add_test(roots, test_granted_root_without_a_mount_id_names_why);
	tcase_add_test(roots, test_workspace_accepts_project_dir_and_reads_back_its_path);
	tcase_add_test(roots, test_granted_path_lies_strictly_beneath_its_root);
	tcase_add_test(roots, test_caller_bind_refuses_system_and_shared_directories);
	tcase_add_test(roots, test_config_file_must_belong_to_root_or_the_caller);
	tcase_add_test(roots, test_system_problem_is_the_same_table_by_name);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(paths_suite());
	struct statx stx;
	int failed;

	/* A failed assertion ends a test's process without its teardown; what
	 * it leaves goes with TOP. */
	snprintf(TOP, sizeof(TOP), "/tmp/check_paths.XXXXXX");
	if (!mkdtemp(TOP)) {
		perror("mkdtemp");
		return 1;
	}
	/* Each test runs in its own process: tests set HOME, alarms and test
	 * flags, and the mount tests rely on a child per test. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (statx(AT_FDCWD, TOP, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) == 0)
		rm_tree_at(AT_FDCWD, TOP, stx.stx_mnt_id);
	return failed == 0 ? 0 : 1;
}
