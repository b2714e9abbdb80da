/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* helpcache.h — bwrap's --help text kept between processes (helpcache.c).
 *
 * A launch needs to know which options the bwrap it runs has; running
 * `bwrap --help` for that costs a process per command-line run. The answer
 * depends only on the binary, so it is kept in a file of the caller's own,
 * keyed by the binary's path, device, inode, size, mtime and ctime: any
 * change to the binary (a reinstall, an upgrade, a chmod) changes the key,
 * and the text is read again. One file per binary path
 * (bwrap-help.DIGEST), where only the caller can
 * write (root: /run/osb-isolate; anyone else: /run/user/UID, when it is
 * theirs and private); elsewhere nothing is kept between processes.
 */
#ifndef OSB_HELPCACHE_H
#define OSB_HELPCACHE_H

#include "util.h"

#include <sys/stat.h>

/* The key of a binary: what a replacement or a change of it alters. */
typedef struct helpcache_key {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
} helpcache_key;

void helpcache_key_of(const struct stat *st, helpcache_key *k);
bool helpcache_key_eq(const helpcache_key *a, const helpcache_key *b);

/* The text kept for BWRAP with KEY, or NULL (none, another key, or a file
 * or directory that is not the caller's own and private: never trusted).
 * Free with free(). */
char *helpcache_load(const char *bwrap, const helpcache_key *key);

/* Keep TEXT for BWRAP with KEY (a new file renamed over the old one).
 * Best effort: a cache that cannot be written only costs the next process
 * one more --help. */
void helpcache_store(const char *bwrap, const helpcache_key *key, const char *text);

/* Remove what is kept for BWRAP. */
void helpcache_forget(const char *bwrap);

/* Tests: keep the file in DIR instead (NULL: the default again). */
void helpcache_set_dir(const char *dir);

#endif
