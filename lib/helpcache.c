/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* helpcache.c — bwrap's --help text kept between processes (helpcache.h).
 *
 * host.c asks here before it runs `bwrap --help`, and stores what a run
 * printed. What is kept can only make a launch use an option the binary
 * lacks (bwrap then refuses it, "Unknown option", and the launch fails
 * closed) or leave out one it has; so the file is trusted only when the
 * caller alone can have written it: the directory and the file owned by
 * the caller's effective uid and writable by nobody else, the file regular
 * with one link, opened without following a symlink. The key covers every
 * field a change of the binary alters, ctime included, which no one but
 * the kernel sets.
 */
#include "helpcache.h"
#include "sha256.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sys/random.h>

#define HELPCACHE_PREFIX "bwrap-help."
#define HELPCACHE_MAGIC "osb-isolate bwrap --help 1\n"
#define HELPCACHE_MAX (1u << 20)   /* as host.c reads --help */

static pthread_mutex_t dir_lock = PTHREAD_MUTEX_INITIALIZER;
static char *dir_override;

void helpcache_set_dir(const char *dir)
{
	pthread_mutex_lock(&dir_lock);
	free(dir_override);
	dir_override = dir ? strdup(dir) : NULL;
	pthread_mutex_unlock(&dir_lock);
}

void helpcache_key_of(const struct stat *st, helpcache_key *k)
{
	memset(k, 0, sizeof(*k));
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->size = st->st_size;
	k->mtime = st->st_mtim;
	k->ctime = st->st_ctim;
}

bool helpcache_key_eq(const helpcache_key *a, const helpcache_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* Is ST the caller's own and writable by no one else? */
static bool private_to_caller(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & 022);
}

/* The cache directory, opened and checked: root's is made when missing
 * (0700, as hostid.c makes it), a user's runtime directory only used. */
static int dir_open(void)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	pthread_mutex_lock(&dir_lock);
	if (dir_override && strlen(dir_override) >= sizeof(path)) {
		pthread_mutex_unlock(&dir_lock);
		return -1;
	}
	if (dir_override)
		snprintf(path, sizeof(path), "%s", dir_override);
	else if (geteuid() == 0)
		snprintf(path, sizeof(path), "/run/osb-isolate");
	else
		snprintf(path, sizeof(path), "/run/user/%u", (unsigned)geteuid());
	pthread_mutex_unlock(&dir_lock);
	if (geteuid() == 0 && !dir_override)
		(void)mkdir(path, 0700);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !private_to_caller(&st)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The file of BWRAP: one per binary path, named by its digest, so that
 * callers of different bwraps do not replace each other's. */
static void file_name(const char *bwrap, char *out, size_t size)
{
	uint8_t d[SHA256_DIGEST_LEN];
	size_t n = (size_t)snprintf(out, size, HELPCACHE_PREFIX);

	sha256(bwrap, strlen(bwrap), d);
	for (size_t i = 0; i < 8 && n + 2 < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%02x", d[i]);
}

/* The header line of the key, the same for writing and for comparing. */
static int key_line(const helpcache_key *k, size_t len, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%" PRIuMAX " %" PRIuMAX " %" PRIdMAX " %lld.%09ld %lld.%09ld %zu\n",
	                 (uintmax_t)k->dev, (uintmax_t)k->ino, (intmax_t)k->size,
	                 (long long)k->mtime.tv_sec, k->mtime.tv_nsec, (long long)k->ctime.tv_sec,
	                 k->ctime.tv_nsec, len);

	return n > 0 && (size_t)n < size ? n : -1;
}

/* The whole file behind FD (at most MAX bytes), NUL-terminated. */
static char *read_all(int fd, size_t max, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t got;

		if (n + 1 >= cap) {
			char *nb = cap > max ? NULL : realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0)
				break;
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		n += (size_t)got;
	}
	free(buf);
	return NULL;
}

/* The text of a file that holds HELPCACHE_MAGIC, BWRAP, then KEY's line
 * with the text's length, then the text. */
static char *parse(const char *file, size_t flen, const char *bwrap, const helpcache_key *key)
{
	size_t plen = strlen(bwrap), mlen = strlen(HELPCACHE_MAGIC), tlen;
	const char *p = file, *end = file + flen, *nl;
	char want[192];
	int klen;

	if (flen < mlen || memcmp(p, HELPCACHE_MAGIC, mlen) != 0)
		return NULL;
	p += mlen;
	if ((size_t)(end - p) <= plen || memcmp(p, bwrap, plen) != 0 || p[plen] != '\n')
		return NULL;
	p += plen + 1;
	if (!(nl = memchr(p, '\n', (size_t)(end - p))))
		return NULL;
	tlen = (size_t)(end - nl - 1);
	if ((klen = key_line(key, tlen, want, sizeof(want))) < 0 ||
	    (size_t)(nl + 1 - p) != (size_t)klen || memcmp(p, want, (size_t)klen) != 0)
		return NULL;
	return strndup(nl + 1, tlen);
}

char *helpcache_load(const char *bwrap, const helpcache_key *key)
{
	_cleanup_close_ int dfd = dir_open(), fd = -1;
	_cleanup_free_ char *file = NULL;
	char name[64];
	struct stat st;
	size_t len = 0;

	if (dfd < 0)
		return NULL;
	file_name(bwrap, name, sizeof(name));
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    !private_to_caller(&st) || (size_t)st.st_size > HELPCACHE_MAX + 4096)
		return NULL;
	if (!(file = read_all(fd, HELPCACHE_MAX + 4096, &len)))
		return NULL;
	return parse(file, len, bwrap, key);
}

void helpcache_forget(const char *bwrap)
{
	_cleanup_close_ int dfd = dir_open();
	char name[64];

	if (dfd < 0)
		return;
	file_name(bwrap, name, sizeof(name));
	unlinkat(dfd, name, 0);
}

static bool write_all_fd(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return true;
}

void helpcache_store(const char *bwrap, const helpcache_key *key, const char *text)
{
	_cleanup_close_ int dfd = dir_open();
	size_t tlen = strlen(text);
	char line[192], name[64], tmp[96];
	uint64_t rnd = 0;
	int fd, klen;
	bool ok;

	if (dfd < 0 || strchr(bwrap, '\n') || tlen > HELPCACHE_MAX ||
	    (klen = key_line(key, tlen, line, sizeof(line))) < 0)
		return;
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd ^= (uint64_t)getpid() << 20;
	file_name(bwrap, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), ".%s.%016" PRIx64, name, rnd);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	ok = write_all_fd(fd, HELPCACHE_MAGIC, strlen(HELPCACHE_MAGIC)) &&
	     write_all_fd(fd, bwrap, strlen(bwrap)) && write_all_fd(fd, "\n", 1) &&
	     write_all_fd(fd, line, (size_t)klen) && write_all_fd(fd, text, tlen);
	ok = close(fd) == 0 && ok;
	if (!ok || renameat(dfd, tmp, dfd, name) < 0)
		unlinkat(dfd, tmp, 0);
}
