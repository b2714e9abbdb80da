/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* bwrap-argv.c — "bare bwrap" for the benchmark: the exact bwrap argv that
 * `osb-isolate run` uses, with the same fd table, and nothing else.
 *
 * The argv of a strict run (printed by `osb-isolate explain --json --host`)
 * names fds from 3 up (lib/bwrap.h, PFD_*): the status channel, the
 * command's stderr, the init's report channel, the init executable, the
 * seccomp program, the environment, every bind source and every
 * synthesized file. This launcher reads which fd is which from the argv
 * itself (the option each number follows), opens the same kinds of fds:
 * the init and bind sources O_PATH, the filter, environment and files as
 * sealed memfds, the channels on /dev/null or stderr; puts them at the
 * same numbers and execs bwrap in place, so the process hyperfine times is
 * bwrap itself after a few system calls. An fd the argv needs that it does
 * not know stops it. What osb-isolate computes (policy, filter, file
 * texts, environment) was prepared once by bench/run.sh into DIR and is
 * only read here: this row measures bwrap plus the in-sandbox init, the
 * floor `run` is held against.
 *
 *   bwrap-argv DIR [CMD ARG...]
 *
 * DIR holds argv, binds and env (NUL-separated lists: the bwrap argv, the
 * host source of each bind in fd order, the command's environment), init
 * (the init's path), seccomp.bpf, and data/NAME for each --ro-bind-data
 * destination (NAME: the path without its leading '/', each '/' as '_':
 * "etc_passwd"). CMD, if given, replaces the argv's trailing command
 * ("true"), to check the launcher.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define MAX_SLOTS 64
#define MAX_FILE (1 << 20)

static void die(const char *what, const char *on)
{
	fprintf(stderr, "bwrap-argv: %s %s: %s\n", what, on, strerror(errno));
	exit(125);
}

/* DIR/NAME, whole, NUL-terminated (*LEN excludes the terminator). */
static char *slurp(const char *dir, const char *name, size_t *len)
{
	char *path = NULL, *buf = malloc(MAX_FILE + 1);
	size_t n = 0;
	ssize_t r;
	int fd;

	if (!buf || asprintf(&path, "%s/%s", dir, name) < 0)
		die("out of memory reading", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot open", path);
	while (n < MAX_FILE && (r = read(fd, buf + n, MAX_FILE - n)) > 0)
		n += (size_t)r;
	close(fd);
	if (n == MAX_FILE) {
		errno = EFBIG;
		die("too large:", path);
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	free(path);
	return buf;
}

/* Split a NUL-separated list into a NULL-terminated vector (extra slots
 * for the command that may replace the last entry). */
static char **split(char *buf, size_t len, size_t extra, size_t *count)
{
	size_t n = 0, k = 0;
	char **v;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\0';
	v = calloc(n + extra + 1, sizeof(*v));
	if (!v)
		die("out of memory splitting", "a list");
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		v[k++] = buf + i;
	*count = k;
	return v;
}

static int sealed_memfd(const char *name, const char *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0)
		die("cannot fill the memfd", name);
	return fd;
}

/* Put FDS[i] at fd i for every slot, as lib/spawn.c does: first copies
 * above the table, then dup2 into place, then close everything beyond. */
static void install(const int *fds, int n)
{
	int high[MAX_SLOTS];

	for (int i = 0; i < n; i++)
		if ((high[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, n)) < 0)
			die("cannot duplicate", "a slot");
	for (int i = 0; i < n; i++)
		if (dup2(high[i], i) < 0)
			die("cannot dup2", "a slot");
	if (syscall(SYS_close_range, (unsigned)n, ~0u, 0) < 0)
		die("close_range", "failed");
}

/* The fd number ARG names, as a slot of the table. */
static int slot_of(const char *arg)
{
	char *end = NULL;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < 3 || v >= MAX_SLOTS) {
		errno = EINVAL;
		die("not an fd slot:", arg);
	}
	return (int)v;
}

/* A sealed memfd with DIR/NAME. */
static int file_fd(const char *dir, const char *name)
{
	size_t len;
	char *buf = slurp(dir, name, &len);
	int fd = sealed_memfd(name, buf, len);

	free(buf);
	return fd;
}

/* file_fd() of data/NAME, NAME being DEST without its leading '/' and
 * each '/' as '_'. */
static int data_fd(const char *dir, const char *dest)
{
	char name[256] = "data/";
	size_t k = strlen(name);

	for (const char *p = dest + (*dest == '/'); *p && k < sizeof(name) - 1; p++)
		name[k++] = *p == '/' ? '_' : *p;
	name[k] = '\0';
	return file_fd(dir, name);
}

/* The lowest fd number a --ro-bind-fd or --bind-fd names: the first bind's
 * slot (the binds take consecutive slots, in the order of the binds file). */
static int first_bind_slot(char **args)
{
	int first = MAX_SLOTS;

	for (size_t i = 0; args[i] && args[i + 1]; i++)
		if ((!strcmp(args[i], "--ro-bind-fd") || !strcmp(args[i], "--bind-fd")) &&
		    slot_of(args[i + 1]) < first)
			first = slot_of(args[i + 1]);
	return first;
}

/* Fill FDS from the option each fd number in ARGS follows; returns the
 * highest slot + 1. A read-only rule inside a writable bind is the init's
 * (--reprotect): bwrap names no fd for it, and its slot repeats the init's
 * fd, as the library fills it (lib/bwrap.c). */
static int fill_slots(const char *dir, char **args, char **binds, size_t n_binds,
                      const char *init, int *fds)
{
	int first = first_bind_slot(args);
	int top = 3, null_w = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null_w < 0)
		die("cannot open", "/dev/null");
	for (size_t i = 0; args[i]; i++) {
		const char *a = args[i];
		int k = -1;

		if (strncmp(a, "/proc/self/fd/", 14) == 0) {
			k = slot_of(a + 14);
			if ((fds[k] = open(init, O_PATH | O_CLOEXEC)) < 0)
				die("cannot open the init", init);
		} else if (!args[i + 1]) {
			break;
		} else if (!strcmp(a, "--json-status-fd") || !strcmp(a, "--error-fd")) {
			fds[k = slot_of(args[++i])] = null_w;
		} else if (!strcmp(a, "--stderr-fd")) {
			fds[k = slot_of(args[++i])] = 2;
		} else if (!strcmp(a, "--ro-bind-fd") || !strcmp(a, "--bind-fd")) {
			size_t bi;

			k = slot_of(args[++i]);
			bi = (size_t)(k - first);
			if (bi >= n_binds || (fds[k] = open(binds[bi], O_PATH | O_CLOEXEC)) < 0)
				die("cannot open the bind source", bi < n_binds ? binds[bi] : "(missing)");
		} else if (!strcmp(a, "--ro-bind-data") && args[i + 2]) {
			k = slot_of(args[++i]);
			fds[k] = data_fd(dir, args[i + 1]);
		} else if (!strcmp(a, "--seccomp-fd")) {
			fds[k = slot_of(args[++i])] = file_fd(dir, "seccomp.bpf");
		} else if (!strcmp(a, "--env-fd")) {
			fds[k = slot_of(args[++i])] = file_fd(dir, "env");
		}
		if (k >= top)
			top = k + 1;
	}
	for (int k = first; k < first + (int)n_binds && k < MAX_SLOTS; k++)
		if (fds[k] < 0 && (fds[k] = open(init, O_PATH | O_CLOEXEC)) < 0)
			die("cannot open the init", init);
		else if (k >= top)
			top = k + 1;
	for (int k = 3; k < top; k++)
		if (fds[k] < 0) {
			fprintf(stderr, "bwrap-argv: the argv needs fd %d, which follows no option "
			        "this launcher knows\n", k);
			exit(125);
		}
	return top;
}

int main(int argc, char **argv)
{
	size_t n_args, n_binds, n_env, len;
	char *dir, *buf, **args, **binds, **env, *init;
	int fds[MAX_SLOTS], n, null_r;

	if (argc < 2) {
		fprintf(stderr, "usage: bwrap-argv DIR [CMD ARG...]\n");
		return 2;
	}
	dir = argv[1];
	buf = slurp(dir, "argv", &len);
	args = split(buf, len, (size_t)argc, &n_args);
	buf = slurp(dir, "binds", &len);
	binds = split(buf, len, 0, &n_binds);
	buf = slurp(dir, "env", &len);
	env = split(buf, len, 0, &n_env);
	init = slurp(dir, "init", NULL);
	init[strcspn(init, "\n")] = '\0';
	if (n_args < 2 || strcmp(args[n_args - 2], "--") != 0) {
		errno = EINVAL;
		die("malformed", "argv");
	}
	if (argc > 2) {   /* replace the trailing "true" */
		n_args--;
		for (int i = 2; i < argc; i++)
			args[n_args++] = argv[i];
		args[n_args] = NULL;
	}
	for (int i = 0; i < MAX_SLOTS; i++)
		fds[i] = -1;
	if ((null_r = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		die("cannot open", "/dev/null");
	fds[0] = null_r;
	fds[1] = 1;
	fds[2] = 2;
	n = fill_slots(dir, args, binds, n_binds, init, fds);
	install(fds, n);
	execve(args[0], args, env);
	die("cannot exec", args[0]);
	return 125;
}
