/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* phrecord.c — the record of the placeholders osb-isolate made (phrecord.h).
 *
 * A record is trusted only when the caller alone can have written it: the
 * directories owned by the caller's effective uid and writable by nobody
 * else, opened without following a symlink (as lib/helpcache.c trusts its
 * cache). A forged or stale record could at most make a run remove an
 * empty directory with that very device, inode and generation, which the
 * run binds and which nobody else binds then.
 */
#include "phrecord.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static bool private_to_caller(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 022);
}

int phrec_dir_open(const char *base)
{
	char path[PATH_MAX];
	const char *sub = geteuid() == 0 ? ".placeholders" : ".osb-isolate-placeholders";
	int bfd, fd;

	if (base)
		snprintf(path, sizeof(path), "%s", base);
	else if (geteuid() == 0)
		snprintf(path, sizeof(path), "/run/osb-isolate");
	else
		snprintf(path, sizeof(path), "/run/user/%u", (unsigned)geteuid());
	/* root's is made when missing, 0700, as lib/hostid.c makes it; a
	 * user's runtime directory is only used. */
	if (!base && geteuid() == 0)
		(void)mkdir(path, 0700);
	bfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (bfd < 0)
		return -1;
	if (!private_to_caller(bfd)) {
		close(bfd);
		return -1;
	}
	(void)mkdirat(bfd, sub, 0700);
	fd = openat(bfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(bfd);
	if (fd >= 0 && !private_to_caller(fd)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int phrec_key(int fd, char key[PHREC_KEY_MAX])
{
	_Alignas(struct file_handle) unsigned char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	struct file_handle *fh = (struct file_handle *)buf;
	struct stat st;
	int mount_id, n;

	fh->handle_bytes = MAX_HANDLE_SZ;
	if (fstat(fd, &st) < 0 || name_to_handle_at(fd, "", fh, &mount_id, AT_EMPTY_PATH) < 0)
		return -1;
	n = snprintf(key, PHREC_KEY_MAX, "%llx.%x.", (unsigned long long)st.st_dev,
	             (unsigned)fh->handle_type);
	if (n < 0 || (size_t)n + 2 * fh->handle_bytes >= PHREC_KEY_MAX)
		return -1;
	for (unsigned i = 0; i < fh->handle_bytes; i++)
		n += snprintf(key + n, PHREC_KEY_MAX - (size_t)n, "%02x", fh->f_handle[i]);
	return 0;
}

int phrec_add(int dir, const char *key)
{
	int fd = openat(dir, key, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

bool phrec_has(int dir, const char *key)
{
	struct stat st;

	return fstatat(dir, key, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

void phrec_del(int dir, const char *key)
{
	(void)unlinkat(dir, key, 0);
}

int phrec_remove(const char *base, int parent, const char *name, dev_t dev, ino_t ino,
                 const char *key)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rec = -1;
	char now[PHREC_KEY_MAX];
	struct stat st;
	int r = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino ||
	    flock(fd, LOCK_EX | LOCK_NB) < 0)
		goto out;   /* another run binds it: the last of them removes it */
	if (key[0] && ((rec = phrec_dir_open(base)) < 0 || phrec_key(fd, now) < 0 ||
	               strcmp(now, key) != 0 || !phrec_has(rec, key)))
		goto out;   /* removed, record and all, by another run: not ours */
	if (unlinkat(parent, name, AT_REMOVEDIR) == 0)
		r = 1;
	else if (errno != ENOTEMPTY && errno != EEXIST)
		goto out;
	if (rec >= 0)
		phrec_del(rec, key);
out:
	if (rec >= 0)
		close(rec);
	close(fd);
	return r;
}
