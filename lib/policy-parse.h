/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-parse.h — the parser's state and its helpers (policy-parse.c),
 * shared with the directives (policy-directives.c) that act on each line.
 */
#ifndef OSB_POLICY_PARSE_H
#define OSB_POLICY_PARSE_H

#include "policy.h"

#include <sys/types.h>

struct stat;

#define POLICY_MAX_LINE 4096

/* A key in one of the parser's lookup trees (tsearch): INST separates keys
 * per file instance where that matters, VAL is the payload. */
typedef struct map_entry {
	char *key;
	unsigned inst;
	size_t val;
} map_entry;

typedef struct tok {
	char *s;           /* NUL-terminated copy inside frame.buf */
	unsigned col;      /* 1-based byte column */
} tok;

/* One file being read. Every read of a file is a new instance, so the
 * same file reached twice through different includes is not a duplicate. */
typedef struct frame {
	const char *file;  /* entry of policy->files */
	unsigned depth, inst;
	bool has_id;
	dev_t dev;
	ino_t ino;
	unsigned line;
	const char *raw;   /* current line as written */
	size_t raw_len;
	unsigned version_line;
	char *buf;
	tok *toks;
} frame;

/* Who decides one scalar (a "network", a "limit wall", an "env set HOME"):
 * the rule of lowest include depth wins; two different rules at that depth
 * are a conflict, reported once parsing is over (a lower-depth rule read
 * later may still settle it). */
typedef struct slot {
	osb_origin win;
	bool conflict;
	osb_origin c_at, c_other;
	unsigned c_col;
	osb_origin c_inc;   /* the include line that brought c_at in */
	unsigned c_inc_col;
	char *c_what;
	size_t index;       /* env set, seccomp NAME: the entry in the policy's list */
} slot;

/* An included file, read once per load (parser.inc_map maps its path
 * here): a repeat uses the same text, and one already parsed at the same
 * depth is not parsed again, since its rules would be the same rules at the
 * same depth (osb-isolate.policy(5), "INCLUDES"). */
typedef struct inc_file {
	const char *file;   /* entry of policy->files */
	char *text;
	size_t len;
	dev_t dev;
	ino_t ino;
	unsigned parsed;    /* bit D: parsed at include depth D */
} inc_file;

typedef struct parser {
	osb_policy *p;
	osb_error *err;
	const frame *stack[OSB_INCLUDE_MAX_DEPTH + 1];
	size_t n_stack;
	unsigned n_inst;
	void *seen_map, *slot_map, *path_map, *pass_map, *deny_map, *root_map, *inc_map;
	inc_file **incs;
	size_t n_incs, cap_incs;
	size_t text_total;          /* bytes parsed so far (POLICY_MAX_TOTAL_BYTES) */
	slot **slots;
	size_t n_slots, cap_slots, cap_mounts, cap_pass, cap_deny, cap_set;
	/* The first rule naming each path of a mount, write or read-only
	 * (path_map's values index it): paths are unique across files. */
	osb_origin *path_o;
	char **path_kind;           /* the directive that named each path */
	size_t n_path_o, cap_path_o, cap_path_kind;
	/* Columns of rules checked once the whole policy is read. */
	unsigned *write_cols, *ro_cols, *sc_cols;
	/* "network allow": the file instance (+1) whose lines hold the list,
	 * 0 when none does; the list's capacity. */
	unsigned net_allow_inst, net_allow_gen;
	size_t cap_net_allow;
	void *net_allow_map;        /* entries of the list, keyed by generation */
	size_t cap_roots, cap_read_roots, cap_writes, cap_write_cols, cap_ro, cap_ro_cols, cap_sc, cap_sc_cols;
} parser;

/* What one directive does with a tokenized line (T[0] is its name). */
typedef int (*directive_fn)(parser *ps, frame *f, int n, tok *t);

/* Find KEY, or add it with VAL (*ADDED tells which). NULL: out of memory. */
map_entry *map_add(void **root, unsigned inst, const char *key, size_t val, bool *added);

/* "FILE:LINE:COL: message" at column COL of the frame's current line, as
 * an OSB_E_POLICY error; perr_errno also records an errno; perr_at uses a
 * rule's recorded origin, for checks made once every file has been read.
 * Each returns -OSB_E_POLICY. */
int perr(parser *ps, const frame *f, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int perr_errno(parser *ps, const frame *f, unsigned col, int sys_errno, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int perr_at(parser *ps, const osb_origin *o, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int policy_nomem(osb_error *err);

/* The origin of the frame's current line. */
osb_origin origin_here(const frame *f);

/* Are A and B the same rule (file and line)? */
bool same_rule(const osb_origin *a, const osb_origin *b);

/* The policy's copy of FILE (one per distinct name): origins point here. */
const char *files_add(osb_policy *p, const char *file);

/* Record that the current line sets scalar KEY (WHAT names it in messages).
 * *APPLY tells whether this rule takes effect now: the rule of lowest
 * include depth wins; two different rules at that depth conflict. */
int claim(parser *ps, frame *f, unsigned col, const char *key, const char *what,
          slot **out, bool *apply);

/* Between MIN and MAX arguments (MAX < 0: no upper bound), else an error
 * quoting USAGE. */
int arity(parser *ps, frame *f, int n, const tok *t, int min, int max, const char *usage);
/* Index of T among WORDS, or an error naming the closest word. */
int keyword(parser *ps, frame *f, const tok *t, const char *const *words, size_t n,
            const char *what, size_t *idx);
/* T must be an acceptable policy path (policy_path_problem). */
int check_path_tok(parser *ps, frame *f, const tok *t);

/* include NAME|./NAME|/PATH: parse that file in place, one level deeper. */
int d_include(parser *ps, frame *f, int n, tok *t);

/* Parse TEXT (the contents of FILENAME; ID its identity for cycle
 * detection, or NULL), check what needs every file read, and apply the
 * defaults. NULL with ERR filled on any error. */
osb_policy *policy_parse_text(const char *text, size_t len, const char *filename,
                              const struct stat *id, osb_error *err);

#endif /* OSB_POLICY_PARSE_H */
