/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* viewscan.c — find the Unix sockets a launch plan's view shows (see
 * viewscan.h): each bind by its verified fd, the host root under root
 * host-ro by name, every directory opened beneath its parent's fd with
 * O_NOFOLLOW, so that what is listed is what the sandbox would find.
 */
#include "viewscan.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

typedef struct scan {
	const plan *pl;
	bool host_root;       /* walking the host root: skip what the plan covers */
	view_sockets *out;
} scan;

/* Kernel interfaces hold no sockets and can be huge (or endless): 1 for
 * one, 0 for another file system, -1 where fstatfs cannot tell. */
static int pseudo_fs(int fd)
{
	static const long magic[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC, BPF_FS_MAGIC, DEVPTS_SUPER_MAGIC,
	};
	struct statfs fs;

	if (fstatfs(fd, &fs) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if ((long)fs.f_type == magic[i])
			return 1;
	return 0;
}

/* Under root host-ro, a host path the sandbox does not see as the host's
 * root shows it: covered by a tmpfs, dev, proc or hide mount, or a bind
 * (walked on its own). */
static bool skip_host_path(const scan *s, const char *path)
{
	if (!s->host_root)
		return false;
	if (plan_place_of(s->pl, path) != PLACE_HOST)
		return true;
	for (size_t i = 0; i < s->pl->n_binds; i++)
		if (strcmp(s->pl->binds[i].dest, path) == 0)
			return true;
	return false;
}

static int found(scan *s, const char *path)
{
	if (s->out->paths.n >= VIEW_SCAN_MAX_LISTED) {
		s->out->more++;
		return 0;
	}
	return strv_push(&s->out->paths, path);
}

/* A walk is a stack of open directories (no recursion: the depth is
 * bounded and every frame's fd is accounted for). */
#define WALK_MAX_DEPTH 64

typedef struct frame {
	DIR *d;
	char *path;
} frame;

typedef struct walker {
	frame st[WALK_MAX_DEPTH];
	size_t n;
} walker;

/* Push the directory DFD (taken over) shown at PATH, unless it is a
 * pseudo file system; one that cannot be told or read makes the scan
 * incomplete. 0 or -ENOMEM. */
static int push_dir(scan *s, walker *w, int dfd, const char *path)
{
	frame *f = &w->st[w->n];
	int pseudo = pseudo_fs(dfd);

	if (pseudo != 0 || !(f->d = fdopendir(dfd))) {
		if (pseudo != 1)
			s->out->complete = false;
		close(dfd);
		return 0;
	}
	if (!(f->path = strdup(path))) {
		closedir(f->d);
		return -ENOMEM;
	}
	w->n++;
	return 0;
}

static void pop_dir(walker *w)
{
	frame *f = &w->st[--w->n];

	closedir(f->d);
	free(f->path);
}

/* One entry of the directory on top of W. */
static int visit(scan *s, walker *w, const struct dirent *de)
{
	frame *top = &w->st[w->n - 1];
	_cleanup_free_ char *child = NULL;
	unsigned char type = de->d_type;
	int fd;

	if (asprintf(&child, "%s/%s", strcmp(top->path, "/") == 0 ? "" : top->path,
	             de->d_name) < 0)
		return -ENOMEM;
	if (type == DT_UNKNOWN) {
		struct stat st;

		if (fstatat(dirfd(top->d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return 0;
		type = S_ISSOCK(st.st_mode) ? DT_SOCK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
	}
	if (type == DT_SOCK)
		return skip_host_path(s, child) ? 0 : found(s, child);
	if (type != DT_DIR || skip_host_path(s, child))
		return 0;
	if (w->n >= WALK_MAX_DEPTH) {
		s->out->complete = false;
		return 0;
	}
	/* Unreadable for the caller: for the sandbox too, which is never more
	 * than the caller (a root caller's sandbox is less). */
	fd = openat(dirfd(top->d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? 0 : push_dir(s, w, fd, child);
}

/* Walk the directory DFD (taken over) shown at PATH. */
static int walk(scan *s, int dfd, const char *path)
{
	walker w = { .n = 0 };
	int r = push_dir(s, &w, dfd, path);

	while (r == 0 && w.n > 0) {
		struct dirent *de = readdir(w.st[w.n - 1].d);

		if (!de) {
			pop_dir(&w);
			continue;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++s->out->entries > VIEW_SCAN_MAX_ENTRIES) {
			s->out->complete = false;
			break;
		}
		r = visit(s, &w, de);
	}
	while (w.n > 0)
		pop_dir(&w);
	return r;
}

int view_scan_sockets(const plan *pl, view_sockets *out)
{
	scan s = { pl, false, out };
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->complete = true;
	for (size_t i = 0; r == 0 && i < pl->n_binds && out->complete; i++) {
		int fd = openat(pl->binds[i].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0)   /* ENOTDIR: a file bind */
			r = walk(&s, fd, pl->binds[i].dest);
	}
	if (r == 0 && pl->p->root == ROOT_HOST_RO && out->complete) {
		int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		s.host_root = true;
		if (fd >= 0)
			r = walk(&s, fd, "/");
	}
	if (r < 0)
		view_sockets_free(out);
	return r;
}

void view_sockets_free(view_sockets *v)
{
	strv_free(&v->paths);
	memset(v, 0, sizeof(*v));
}
