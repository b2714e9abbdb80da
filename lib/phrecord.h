/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* phrecord.h — which placeholders osb-isolate made, kept between processes
 * (phrecord.c), so that the last run binding one removes it.
 *
 * A placeholder (lib/binds.h) is removed by whichever run that binds it
 * ends last: every run holds a shared lock on it while it runs, and at its
 * end removes it only if an exclusive lock then succeeds. A run that did
 * not make it can tell it from the caller's own empty directory of the same
 * name by its record: one file per placeholder, named by its key (the
 * device and the file handle, which holds the inode's generation, so a
 * reused inode number is another key), in a directory only the caller can
 * write (root: /run/osb-isolate/.placeholders; anyone else:
 * /run/user/UID/.osb-isolate-placeholders, when /run/user/UID is theirs
 * and private, as lib/helpcache.c takes it). The sandbox writes neither
 * there nor in the placeholder (it is bound read-only). Without the
 * directory only the run that made a placeholder removes it.
 *
 * libc alone: the session owner (helper/session-owner.c, in the static
 * init) removes a session's placeholders the same way.
 */
#ifndef OSB_PHRECORD_H
#define OSB_PHRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PHREC_KEY_MAX 192

/* The caller's record directory (BASE: the directory it lies in, NULL for
 * the caller's own), made when missing, opened and checked to be the
 * caller's and writable by nobody else; or -1. */
int phrec_dir_open(const char *base);

/* The key of the directory FD (O_PATH will do) in KEY, or -1 (the file
 * system gives no handle: no record). */
int phrec_key(int fd, char key[PHREC_KEY_MAX]);

/* Record, look up, forget KEY in the record directory DIR. */
int phrec_add(int dir, const char *key);
bool phrec_has(int dir, const char *key);
void phrec_del(int dir, const char *key);

/* Remove the placeholder NAME in PARENT, when it is still the directory
 * DEV INO, no other run binds it (an exclusive lock succeeds: the caller
 * dropped its own shared locks first) and, with a KEY (not ""), its record
 * in the directory of BASE (NULL: the caller's) is still there; the record
 * goes with it, or once the directory is no longer empty (someone put
 * files in it: not a placeholder any more). Returns 1 when removed. */
int phrec_remove(const char *base, int parent, const char *name, dev_t dev, ino_t ino,
                 const char *key);

#endif /* OSB_PHRECORD_H */
