/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* startable.c — failures of a sandbox's start that this host's files decide
 * and that can be known before it starts (startable.h): a hide over a file (a
 * hide mounts an empty directory; osb-isolate.policy(5), "hide"), and a
 * "root none" view that lacks the dynamic loader the host's programs name,
 * so that every dynamically linked command fails with "not found". The
 * view is followed through the policy's own symlink and ro-bind rules.
 */
#include "startable.h"
#include "common.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 8

/* The PT_INTERP of the ELF file PATH into BUF; false if it has none. */
static bool elf_interp(const char *path, char *buf, size_t size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool found = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		goto out;
	for (unsigned i = 0; i < eh.e_phnum && !found; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= size)
			continue;
		if (pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
			buf[ph.p_filesz - 1] = '\0';
			found = buf[0] == '/';
		}
	}
out:
	close(fd);
	return found;
}

/* Is PATH in the view of a "root none" policy: beneath an ro-bind, after
 * the policy's symlinks above it are followed (at most MAX_LINKS)? */
static bool view_shows(const review_policy *p, const char *start)
{
	char path[PATH_MAX], next[PATH_MAX];

	snprintf(path, sizeof(path), "%s", start);
	for (int links = 0; links <= MAX_LINKS; links++) {
		const rv_mount *link = NULL;

		for (size_t i = 0; i < p->n_mounts && !link; i++) {
			const rv_mount *m = &p->mounts[i];

			if (!rv_path_within(path, m->path))
				continue;
			if (m->kind == MNT_RO_BIND)
				return true;
			if (m->kind == MNT_SYMLINK && m->target)
				link = m;
		}
		if (!link)
			return false;
		if (link->target[0] == '/')
			snprintf(next, sizeof(next), "%s%s", link->target, path + strlen(link->path));
		else   /* relative to the directory that holds the link */
			snprintf(next, sizeof(next), "%.*s/%s%s", (int)(strrchr(link->path, '/') - link->path),
			         link->path, link->target, path + strlen(link->path));
		snprintf(path, sizeof(path), "%s", next);
	}
	return false;
}

static int hide_problem(const review_policy *p, char *buf, size_t size)
{
	for (size_t i = 0; i < p->n_mounts; i++) {
		const rv_mount *m = &p->mounts[i];
		struct stat st;
		char at[PATH_MAX + 16];

		if (m->kind != MNT_HIDE || stat(m->path, &st) < 0 || S_ISDIR(st.st_mode))
			continue;
		rv_origin_str(&m->o, at, sizeof(at));
		snprintf(buf, size, "\"hide %s\" (%s): %s is not a directory on this host; hide mounts "
		         "an empty directory, so the sandbox cannot be built", m->path, at, m->path);
		return 1;
	}
	return 0;
}

int launch_problem(const review_policy *p, char *buf, size_t size)
{
	char interp[PATH_MAX], at[PATH_MAX + 16];

	if (hide_problem(p, buf, size))
		return 1;
	/* The loader this host's dynamically linked programs name (this
	 * program is one of them). */
	if (p->root != ROOT_NONE || !elf_interp("/proc/self/exe", interp, sizeof(interp)) ||
	    view_shows(p, interp))
		return 0;
	rv_origin_str(&p->root_set.o, at, sizeof(at));
	snprintf(buf, size, "\"root none\" (%s) shows no %s, the dynamic loader of this host's "
	         "programs: every dynamically linked command would fail as not found; bind /usr "
	         "and add the symlink the host has for it (strict.policy: symlink usr/lib64 /lib64)",
	         at, interp);
	return 1;
}
