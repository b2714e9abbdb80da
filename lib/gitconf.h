/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* gitconf.h — a reader of git's configuration file syntax (gitconf.c).
 *
 * The plan reads a workspace repository's configuration before launch to
 * learn which worktree paths the caller's git would run code or read
 * configuration from (gitprotect.h). This parser knows the syntax only:
 * sections ("[core]"), subsections ("[includeIf \"gitdir:x\"]", and the old
 * "[section.sub]"), case-insensitive section and key names, "key = value"
 * or a bare "key" (true), double quotes, the escapes \n \t \b \\ \", a
 * backslash at the end of a line continuing the value, and ";" or "#"
 * comments; "\r\n" read as "\n", unquoted blanks as spaces. Whatever git
 * would refuse, it refuses, as do NUL bytes; it never guesses. A key
 * before any section has the section "" (git takes it; it names nothing).
 */
#ifndef OSB_GITCONF_H
#define OSB_GITCONF_H

#include "util.h"

/* One entry: SECTION and KEY lowercased, SUBSECTION as written (NULL when
 * none; lowercased in the old dotted form), VALUE unquoted and unescaped
 * (NULL for a bare key), LINE where the key starts. Return 0 to go on, or
 * a negative value to stop the parse with it. */
typedef int (*gitconf_fn)(void *ctx, const char *section, const char *subsection,
                          const char *key, const char *value, unsigned line);

/* Parse BUF (LEN bytes, not necessarily NUL-terminated) and call FN for each
 * entry. FILE names it in messages. Returns 0, FN's negative value, or
 * -OSB_E_POLICY (stage "paths") with "FILE:LINE: ..." saying what git's
 * syntax does not allow there; -OSB_E_NOMEM. */
int gitconf_parse(const char *buf, size_t len, const char *file, gitconf_fn fn, void *ctx,
                  osb_error *err);

#endif /* OSB_GITCONF_H */
