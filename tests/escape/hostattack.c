/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* hostattack.c — what sandboxed code would try, to take over the host that
 * runs it; tests/integration/boundary.sh runs it in every sandbox of its
 * matrix and checks the host afterwards.
 *
 *   hostattack sysctl          open every writable-looking file under
 *                              /proc/sys for writing; write back the value it
 *                              already holds (so a broken build changes
 *                              nothing). Prints "sysctl writable N" and the
 *                              first few names that opened.
 *   hostattack plant FILE      try every way to give a workspace file a
 *                              set-user-ID or set-group-ID bit (FILE and
 *                              FILE.* beside it: chmod, fchmod, fchmodat,
 *                              fchmodat2, open/openat/creat/openat2 creating
 *                              with the bits, O_TMPFILE, mknod, mknodat, a
 *                              setgid directory) and a file capability
 *                              (security.capability). One line per way:
 *                              "plant WAY ok" or "plant WAY <strerror>"; the
 *                              host looks at what was made.
 *   hostattack read FILE...    try to read each FILE (the host made them 0600,
 *                              of root or of an account). Prints "read FILE
 *                              ok|errno=E".
 *   hostattack ids             real/effective/saved/fs ids, groups, uid_map,
 *                              gid_map, one line each.
 *   hostattack procmask        each /proc path the OCI runtimes mask or make
 *                              read-only: "PATH writable|readable|masked".
 *   hostattack pid1            open the memory (read-write), the environment
 *                              and the fd directory of the sandbox's pid 1
 *                              (the init, or a session's broker, under the
 *                              command's own uid): "pid1 mem|environ|fd
 *                              ok|errno=E". Whoever could write its memory
 *                              would speak for it to the launcher.
 *   hostattack forks N         start N children that sleep; print how many
 *                              fork() calls succeeded and the errno of the
 *                              first that failed ("forks M errno=E").
 * Exit status 0 unless the program itself could not run (2).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#define SHOW_MAX 5

static unsigned n_writable, n_tried;

/* Open PATH for writing; when that works, write back what it holds. */
static void try_sysctl(const char *path, const struct stat *st)
{
	char buf[4096];
	ssize_t n = -1;
	int rfd, wfd;

	if (!(st->st_mode & 0222))
		return;
	n_tried++;
	rfd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (rfd >= 0) {
		n = read(rfd, buf, sizeof(buf));
		close(rfd);
	}
	wfd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
	if (wfd < 0)
		return;
	n_writable++;
	if (n_writable <= SHOW_MAX)
		printf("sysctl opened-for-write %s\n", path);
	/* Unreadable (write-only) entries act on write: leave them be. */
	if (n > 0 && write(wfd, buf, (size_t)n) < 0 && n_writable <= SHOW_MAX)
		printf("sysctl write-refused %s errno=%d\n", path, errno);
	close(wfd);
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path);
		else if (S_ISREG(st.st_mode))
			try_sysctl(path, &st);
	}
	closedir(d);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	return close(out);
}

static char plant_buf[4096];

/* FILE with SUFFIX, in a buffer of the caller's. */
static const char *beside(const char *file, const char *suffix)
{
	snprintf(plant_buf, sizeof(plant_buf), "%s.%s", file, suffix);
	return plant_buf;
}

static void said(const char *way, long r)
{
	printf("plant %s %s\n", way, r >= 0 ? "ok" : strerror(errno));
}

/* A created descriptor, closed; R is its result. */
static long closed(long r)
{
	if (r >= 0)
		close((int)r);
	return r;
}

/* struct open_how (linux/openat2.h), spelled out for old headers. */
struct plant_how {
	unsigned long long flags, mode, resolve;
};

/* An O_TMPFILE file with MODE, linked in as TO. */
static long tmpfile_linked(const char *to, mode_t mode)
{
	char proc[64];
	int fd = open(".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	long r;

	if (fd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	r = linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW);
	close(fd);
	return r;
}

/* A version 2 file capability granting CAP_SETUID (linux/capability.h's
 * vfs_cap_data). */
static long set_file_cap(const char *path)
{
	uint32_t cap[5] = { 0x02000001u, 1u << 7, 0, 0, 0 };   /* effective; CAP_SETUID */

	return setxattr(path, "security.capability", cap, sizeof(cap), 0);
}

static int plant(const char *file)
{
	struct plant_how how = { O_CREAT | O_WRONLY | O_CLOEXEC, 04755, 0 };
	int fd;

	if (copy_file("/bin/true", file) != 0) {
		printf("plant copy errno=%d\n", errno);
		return 0;
	}
	said("chmod-4755", chmod(file, 04755));
	said("chmod-2755", copy_file("/bin/true", beside(file, "g")) ? -1 : chmod(plant_buf, 02755));
	said("chmod-6755", copy_file("/bin/true", beside(file, "ug")) ? -1 : chmod(plant_buf, 06755));
	fd = copy_file("/bin/true", beside(file, "f")) ? -1 : open(plant_buf, O_RDONLY | O_CLOEXEC);
	said("fchmod-4755", fd < 0 ? -1 : fchmod(fd, 04755));
	if (fd >= 0)
		close(fd);
	said("fchmodat-6755", copy_file("/bin/true", beside(file, "at")) ? -1 :
	     fchmodat(AT_FDCWD, plant_buf, 06755, 0));
	said("fchmodat2-4755", copy_file("/bin/true", beside(file, "at2")) ? -1 :
	     syscall(452, AT_FDCWD, plant_buf, 04755, 0));
	said("open-creat-4755", closed(open(beside(file, "o"), O_CREAT | O_WRONLY | O_CLOEXEC, 04755)));
	said("openat-creat-2755", closed(openat(AT_FDCWD, beside(file, "oa"),
	                                        O_CREAT | O_WRONLY | O_CLOEXEC, 02755)));
	said("creat-6755", closed(creat(beside(file, "c"), 06755)));
	said("openat2-creat-4755", closed(syscall(437, AT_FDCWD, beside(file, "o2"), &how, sizeof(how))));
	said("tmpfile-4755", tmpfile_linked(beside(file, "t"), 04755));
	said("mknod-4755", mknod(beside(file, "n"), S_IFREG | 04755, 0));
	said("mknodat-2755", mknodat(AT_FDCWD, beside(file, "na"), S_IFREG | 02755, 0));
	/* The kernel keeps only mkdir's permission and sticky bits: "ok", and
	 * no setgid directory. */
	said("mkdir-2755", mkdir(beside(file, "d"), 02755));
	said("chmod-dir-2755", chmod(plant_buf, 02755));
	said("setxattr-capability", copy_file("/bin/true", beside(file, "cap")) ? -1 :
	     set_file_cap(plant_buf));
	return 0;
}

static int read_files(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char buf[64];
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			printf("read %s errno=%d\n", argv[i], errno);
		else
			printf("read %s ok\n", argv[i]);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

static void print_file(const char *label, const char *path)
{
	char buf[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *c = buf; *c; c++)
		if (*c == '\n')
			*c = ';';
	printf("%s %s\n", label, buf);
}

static int ids(void)
{
	uid_t r, e, s;
	gid_t rg, eg, sg, groups[256];
	int n = getgroups(256, groups);

	getresuid(&r, &e, &s);
	getresgid(&rg, &eg, &sg);
	printf("uids %u %u %u %u\n", (unsigned)r, (unsigned)e, (unsigned)s,
	       (unsigned)setfsuid((uid_t)-1));
	printf("gids %u %u %u %u\n", (unsigned)rg, (unsigned)eg, (unsigned)sg,
	       (unsigned)setfsgid((gid_t)-1));
	printf("groups");
	for (int i = 0; i < n; i++)
		printf(" %u", (unsigned)groups[i]);
	printf("\n");
	print_file("uid_map", "/proc/self/uid_map");
	print_file("gid_map", "/proc/self/gid_map");
	return 0;
}

static int procmask(void)
{
	static const char *const paths[] = {
		"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs",
		"/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug",
		"/proc/latency_stats", "/proc/acpi", "/proc/scsi",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct stat st;
		char buf[16];
		const char *what = "absent";

		if (lstat(paths[i], &st) == 0) {
			int fd = open(paths[i], O_WRONLY | O_CLOEXEC | O_NONBLOCK);

			if (fd >= 0) {
				what = "writable";
				close(fd);
			} else if (S_ISDIR(st.st_mode)) {
				DIR *d = opendir(paths[i]);
				int entries = 0;
				struct dirent *de;

				while (d && (de = readdir(d)) != NULL)
					entries += de->d_name[0] != '.';
				if (d)
					closedir(d);
				what = entries ? "readable" : "masked";
			} else {
				fd = open(paths[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
				what = fd >= 0 && read(fd, buf, sizeof(buf)) > 0 ? "readable" : "masked";
				if (fd >= 0)
					close(fd);
			}
		}
		printf("%s %s\n", paths[i], what);
	}
	return 0;
}

static int pid1(void)
{
	static const struct { const char *what, *path; int flags; } t[] = {
		{ "mem", "/proc/1/mem", O_RDWR },
		{ "environ", "/proc/1/environ", O_RDONLY },
		{ "fd", "/proc/1/fd", O_RDONLY | O_DIRECTORY },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int fd = open(t[i].path, t[i].flags | O_CLOEXEC);
		DIR *d = NULL;

		/* A directory opens for anyone who may search /proc/1; listing
		 * it is what the permission covers. */
		if (fd >= 0 && (t[i].flags & O_DIRECTORY) && (d = fdopendir(fd)) != NULL) {
			errno = 0;
			if (readdir(d) == NULL && errno) {
				printf("pid1 %s errno=%d\n", t[i].what, errno);
				closedir(d);
				continue;
			}
			closedir(d);
			fd = -2;
		}
		if (fd >= 0)
			close(fd);
		if (fd == -1)
			printf("pid1 %s errno=%d\n", t[i].what, errno);
		else
			printf("pid1 %s ok\n", t[i].what);
	}
	return 0;
}

static int forks(int n)
{
	int ok = 0, first_err = 0;

	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0) {
			pause();
			_exit(0);
		}
		if (p < 0) {
			if (!first_err)
				first_err = errno;
			continue;
		}
		ok++;
	}
	printf("forks %d errno=%d\n", ok, first_err);
	fflush(stdout);
	kill(0, SIGKILL);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "sysctl")) {
		walk("/proc/sys");
		printf("sysctl writable %u of %u\n", n_writable, n_tried);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "plant"))
		return plant(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "read"))
		return read_files(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "ids"))
		return ids();
	if (argc == 2 && !strcmp(argv[1], "procmask"))
		return procmask();
	if (argc == 2 && !strcmp(argv[1], "pid1"))
		return pid1();
	if (argc == 3 && !strcmp(argv[1], "forks"))
		return forks(atoi(argv[2]));
	fprintf(stderr, "usage: hostattack sysctl|plant FILE|read FILE...|ids|procmask|pid1|forks N\n");
	return 2;
}
