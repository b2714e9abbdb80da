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

/* Kernel interfaces hold no sockets and can be huge (or endless). */
static bool pseudo_fs(int fd)
{
	static const long magic[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC, BPF_FS_MAGIC, DEVPTS_SUPER_MAGIC,
	};
	struct statfs fs;

	if (fstatfs(fd, &fs) != 0)
		return true;
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if ((long)fs.f_type == magic[i])
			return true;
	return false;
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

static int walk(scan *s, int dfd, const char *path, unsigned depth);

static int walk_entry(scan *s, DIR *d, const struct dirent *de, const char *path, unsigned depth)
{
	_cleanup_free_ char *child = NULL;
	unsigned char type = de->d_type;
	int fd;

	if (asprintf(&child, "%s/%s", strcmp(path, "/") == 0 ? "" : path, de->d_name) < 0)
		return -ENOMEM;
	if (type == DT_UNKNOWN) {
		struct stat st;

		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return 0;
		type = S_ISSOCK(st.st_mode) ? DT_SOCK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
	}
	if (type == DT_SOCK)
		return skip_host_path(s, child) ? 0 : found(s, child);
	if (type != DT_DIR || skip_host_path(s, child))
		return 0;
	if (depth >= 64) {
		s->out->complete = false;
		return 0;
	}
	fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* Unreadable for the caller: for the sandbox too, which is never
		 * more than the caller (a root caller's sandbox is less). */
		return 0;
	}
	return walk(s, fd, child, depth + 1);
}

/* Walk the directory DFD (taken over) shown at PATH. */
static int walk(scan *s, int dfd, const char *path, unsigned depth)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (pseudo_fs(dfd)) {
		close(dfd);
		return 0;
	}
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return 0;
	}
	while (r == 0 && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++s->out->entries > VIEW_SCAN_MAX_ENTRIES) {
			s->out->complete = false;
			break;
		}
		r = walk_entry(s, d, de, path, depth);
	}
	closedir(d);
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
			r = walk(&s, fd, pl->binds[i].dest, 0);
	}
	if (r == 0 && pl->p->root == ROOT_HOST_RO && out->complete) {
		int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		s.host_root = true;
		if (fd >= 0)
			r = walk(&s, fd, "/", 0);
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
