/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-directives.h — the directives of the policy language
 * (policy-directives.c), looked up by name by the parser.
 */
#ifndef OSB_POLICY_DIRECTIVES_H
#define OSB_POLICY_DIRECTIVES_H

#include "policy-parse.h"

/* The function of directive NAME, or NULL when there is none. */
directive_fn policy_directive(const char *name);
/* Every directive's name, for "did you mean": at most MAX into NAMES;
 * returns how many. */
size_t policy_directive_names(const char **names, size_t max);

/* Once every file is read: each write lies beneath a declared root, none
 * under a read-only path, and each absolute read-only path lies inside
 * something writable. 0 or -OSB_E_POLICY. */
int policy_check_write_rules(parser *ps);
/* "seccomp none" and a deny rule cannot both hold. 0 or -OSB_E_POLICY. */
int policy_check_seccomp_rules(parser *ps);

#endif /* OSB_POLICY_DIRECTIVES_H */
