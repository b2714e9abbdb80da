/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* model.h — a policy as the reviewer tools read it (model.c).
 *
 * Built from the public introspection API alone (osb_policy_rules,
 * osb_policy_file): every effective rule the library reports, gathered by
 * kind, each with its origin, in the order the policy declared it. The
 * reviewer tools (lint, audit, diff, explain) read only this; they never see
 * the library's own parsed policy, and nothing here parses policy text. The
 * words and the enums are the policy language's (osb-isolate.policy(5)).
 * Origins point into the osb_policy, which must outlive the model.
 */
#ifndef OSB_REVIEW_MODEL_H
#define OSB_REVIEW_MODEL_H

#include "osb-isolate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a rule came from: a policy file and line, or "default" / "api"
 * (line 0); FILE NULL: no single rule decides. */
typedef struct rv_origin {
	const char *file;
	unsigned line;
	unsigned depth;
	const char *rule;         /* the canonical rule ("write /srv/x"); NULL: none */
} rv_origin;

typedef struct rv_set {       /* a scalar: set, and by which rule */
	bool set;
	rv_origin o;
} rv_set;

typedef struct rv_str {       /* a path, a pattern, NAME=VALUE */
	char *s;
	rv_origin o;
} rv_str;

enum root_kind { ROOT_HOST_RO = 0, ROOT_NONE = 1 };
enum mount_kind { MNT_RO_BIND, MNT_TMPFS, MNT_HIDE, MNT_DEV, MNT_PROC, MNT_SYMLINK };
enum ws_mode { WS_NONE = 0, WS_RO, WS_RW, WS_OVERLAY };
enum net_mode { NET_NONE = 0, NET_HOST, NET_ALLOW };
enum env_base { ENV_CLEAR = 0, ENV_INHERIT };
enum id_mode { ID_AUTO = 0, ID_USERNS, ID_ROOT };
enum sc_mode { SC_DEFAULT = 0, SC_NONE };
enum ll_mode { LL_AUTO = 0, LL_REQUIRED, LL_OFF };
enum limit_id { LIM_WALL, LIM_CPUTIME, LIM_AS, LIM_NOFILE, LIM_FSIZE, LIM_NPROC, LIM_OUTPUT,
                LIM_MEMORY, LIM_PIDS, LIM_CPU, LIM__COUNT };

typedef struct rv_mount {
	enum mount_kind kind;
	char *path;
	rv_origin o;
	char *target;             /* MNT_SYMLINK: what the link says */
	uint64_t size;            /* MNT_TMPFS: size=SIZE in bytes; 0: none */
} rv_mount;

typedef struct rv_sc {        /* seccomp allow NAME / seccomp deny NAME errno=E */
	char *name;
	bool allow;
	int err;
	rv_origin o;
} rv_sc;

/* One canonical rule as the library reported it. */
typedef struct rv_rule {
	char *text;               /* "limit wall 10m" */
	char *directive;          /* "limit" */
	char **args; size_t n_args;
	uint64_t value;
	rv_origin o;
} rv_rule;

typedef struct review_policy {
	const osb_policy *pol;    /* what the model was built from */
	rv_rule *rules; size_t n_rules;   /* canonical order */
	const char **files; size_t n_files;
	const char *cur_rule;     /* the rule being filed (review_model) */

	enum root_kind root;           rv_set root_set;
	rv_mount *mounts; size_t n_mounts;
	enum ws_mode ws_mode;          rv_set ws_set;
	char *ws_dest;                 /* "workspace rw DEST"; NULL: the host path */
	enum net_mode net;             rv_set net_set;
	rv_set caller_net;
	rv_str *net_allow; size_t n_net_allow;  /* "network allow ENTRY", one each */
	enum env_base env_base;        rv_set env_base_set;
	rv_str *env_pass; size_t n_env_pass;
	rv_str *env_deny; size_t n_env_deny;
	rv_str *env_set; size_t n_env_set;
	char *user_name; uint32_t uid, gid; rv_set user_set;
	enum id_mode id_mode;          rv_set id_mode_set;
	uint32_t host_uid, host_gid;   rv_set host_ids_set;
	char *hostname;                rv_set hostname_set;
	rv_str *write_roots; size_t n_write_roots;
	rv_str *read_roots; size_t n_read_roots;
	rv_str *writes; size_t n_writes;
	rv_str *read_only; size_t n_read_only;
	enum sc_mode sc_mode;          rv_set sc_mode_set;
	char *sc_group;                /* "osb-default-3"; NULL under seccomp none */
	rv_sc *sc_rules; size_t n_sc_rules;
	enum ll_mode landlock;         rv_set landlock_set;
	uint64_t limits[LIM__COUNT];   rv_set limit_set[LIM__COUNT];
	bool limit_best_effort[LIM__COUNT];   /* "limit memory 2GiB best-effort" */
} review_policy;

/* The words of the language, indexed by the enums above. */
extern const char *const rv_root_words[2];
extern const char *const rv_ws_words[4];
/* How much of the host a workspace mode lets the sandbox change: none, ro,
 * overlay (writes land in a private layer), rw. */
unsigned rv_ws_rank(enum ws_mode m);
extern const char *const rv_net_words[3];
extern const char *const rv_env_words[2];
extern const char *const rv_id_words[3];
extern const char *const rv_ll_words[3];
extern const char *const rv_mount_words[6];
extern const char *const rv_limit_names[LIM__COUNT];

/* Build the model of P into *OUT. Returns 0, -ENOMEM, or -EINVAL when the
 * library reports a rule this osb-isolate does not know. */
int review_model(const osb_policy *p, review_policy *out);
void review_model_free(review_policy *m);

/* A seccomp group by name: its place among the library's groups (0 the
 * oldest), or -1; *DENIES_UNKNOWN as osb_seccomp_group() says. The newest
 * group is the default. */
int rv_group_index(const char *name, bool *denies_unknown);
int rv_group_newest(void);

#endif /* OSB_REVIEW_MODEL_H */
