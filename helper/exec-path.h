/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* exec-path.h — what a failed execvp(3) means, as the shell would say it.
 *
 * execvp answers EACCES when no file of the name was found but one of the
 * PATH directories could not be searched — which is common in a sandbox,
 * where a PATH copied from a root caller names directories the sandbox's ids
 * may not enter. The shell calls that "not found" (127), not "not
 * executable" (126). exec_path_errno() tells the two apart after the fact:
 * EACCES stays EACCES only if some PATH entry really holds a file of that
 * name. Only async-signal-safe calls (faccessat, plain string work): it runs
 * in forked children before _exit. Used by the init and the session broker.
 */
#ifndef OSB_EXEC_PATH_H
#define OSB_EXEC_PATH_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

/* PATH from ENVP (execvp's default, "/bin:/usr/bin", when it has none). */
static inline const char *exec_path_of(char *const envp[])
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			return envp[i] + 5;
	return "/bin:/usr/bin";
}

/* ERR: execvp(NAME)'s errno with ENVP as the environment searched. */
static inline int exec_path_errno(const char *name, char *const envp[], int err)
{
	const char *p;

	if (err != EACCES || strchr(name, '/'))
		return err;
	p = exec_path_of(envp);
	for (;;) {
		const char *end = strchr(p, ':');
		size_t dl = end ? (size_t)(end - p) : strlen(p), nl = strlen(name);
		char cand[PATH_MAX];

		if (dl == 0)          /* an empty entry is the working directory */
			cand[0] = '\0';
		else if (dl + 1 + nl < sizeof(cand)) {
			memcpy(cand, p, dl);
			cand[dl] = '/';
			cand[dl + 1] = '\0';
		}
		if (dl == 0 || dl + 1 + nl < sizeof(cand)) {
			strncat(cand, name, sizeof(cand) - strlen(cand) - 1);
			if (faccessat(AT_FDCWD, cand, F_OK, 0) == 0)
				return EACCES;    /* it exists: really not executable */
		}
		if (!end)
			return ENOENT;
		p = end + 1;
	}
}

#endif
