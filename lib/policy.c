/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy.c — the policy language, version 1 (osb-isolate.policy(5)).
 *
 * First stage of the pipeline: policy text becomes a struct osb_policy. The
 * grammar is deliberately strict (a version line first, one directive a line,
 * unknown words, duplicates, relative or unnormalized paths and invisible
 * characters are errors), because a rule that is silently skipped is a grant
 * or a restriction the reviewer did not see. Includes are bounded (depth,
 * cycles), every effective rule records the file:line it came from, anything
 * left unset gets a safe default, and the canonical form of the result is what
 * the policy hash covers. Nothing here looks at the host beyond reading policy
 * files: whether a path exists or may be bound is the plan stage's business.
 * Write grants are checked here only lexically (beneath a declared root, not
 * under a read-only path), as a first, early refusal; the check that holds
 * is the plan's, by fd. Syscall names are checked against libseccomp's table
 * so that a misspelled deny rule cannot silently deny nothing.
 */
#include "internal.h"
#include "filter.h"
#include "policy.h"
#include "sha256.h"

#include <seccomp.h>

#include <limits.h>
#include <search.h>
#include <stdarg.h>
#include <sys/stat.h>

#ifndef OSB_POLICY_DIR
#define OSB_POLICY_DIR "/usr/local/share/osb-isolate/policy"
#endif

#define POLICY_MAX_BYTES ((size_t)1 << 20)
#define POLICY_MAX_LINE 4096
#define MAX_TOKENS (POLICY_MAX_LINE / 2 + 1)
#define CLIP_LEN 96          /* longest user text quoted in a message */
#define SUGGEST_MAX_LEN 32   /* longer words get no "did you mean" */
#define ID_MAX 4294967294ULL /* (uint32_t)-1 means "no id" to the kernel */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *const osb_limit_names[LIM__COUNT] = {
	[LIM_WALL] = "wall", [LIM_CPU] = "cpu", [LIM_AS] = "as",
	[LIM_NOFILE] = "nofile", [LIM_FSIZE] = "fsize", [LIM_NPROC] = "nproc",
	[LIM_OUTPUT] = "output",
};

/* Origins that are not a file; their line is 0. */
static const char origin_default[] = "default";
static const char origin_api[] = "api";

void policy_origin_format(const osb_origin *o, char *buf, size_t size)
{
	if (o->line)
		snprintf(buf, size, "%s:%u", o->file, o->line);
	else
		snprintf(buf, size, "%s", o->file ? o->file : origin_default);
}

static const char *const root_names[] = { [ROOT_HOST_RO] = "host-ro", [ROOT_NONE] = "none" };
static const char *const ws_names[] = { [WS_NONE] = "none", [WS_RO] = "ro", [WS_RW] = "rw" };
static const char *const net_names[] = { [NET_NONE] = "none", [NET_HOST] = "host" };
static const char *const env_base_names[] = { [ENV_CLEAR] = "clear", [ENV_INHERIT] = "inherit" };
static const char *const id_names[] = { [ID_AUTO] = "auto", [ID_USERNS] = "userns", [ID_ROOT] = "root" };
static const char *const sc_mode_names[] = { [SC_DEFAULT] = "default", [SC_NONE] = "none" };
static const char *const ll_names[] = { [LL_AUTO] = "auto", [LL_REQUIRED] = "required", [LL_OFF] = "off" };
static const char *const mount_names[] = {
	[MNT_RO_BIND] = "ro-bind", [MNT_TMPFS] = "tmpfs", [MNT_HIDE] = "hide",
	[MNT_DEV] = "dev", [MNT_PROC] = "proc", [MNT_SYMLINK] = "symlink",
};

/* ---- small utilities ----------------------------------------------------- */

const char *policy_dir(void)
{
	/* secure_getenv: a setuid caller must not take policies from its user. */
	const char *d = secure_getenv("OSB_ISOLATE_POLICY_DIR");

	return d && *d ? d : OSB_POLICY_DIR;
}

bool env_pattern_match(const char *pattern, const char *name)
{
	const char *star = NULL, *resume = NULL;

	/* Greedy match with one backtrack point: linear in practice, and no
	 * recursion a hostile pattern could blow up. */
	while (*name) {
		if (*pattern == '*') {
			star = pattern++;
			resume = name;
		} else if (*pattern == '?' || *pattern == *name) {
			pattern++;
			name++;
		} else if (star) {
			pattern = star + 1;
			name = ++resume;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return *pattern == '\0';
}

static bool ascii_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool ascii_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Quote-safe excerpt of user text for a message: long tokens are cut (at a
 * UTF-8 boundary) so the position and the hint still fit. */
typedef struct clipbuf {
	char s[CLIP_LEN + 4];
} clipbuf;

static const char *clip(const char *s, clipbuf *b)
{
	size_t n = strlen(s);

	if (n <= CLIP_LEN)
		return s;
	n = CLIP_LEN;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	snprintf(b->s, sizeof(b->s), "%.*s...", (int)n, s);
	return b->s;
}

/* "a, b or c" */
static void join_words(const char *const *words, size_t n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		int r = snprintf(buf + used, size - used, "%s%s", sep, words[i]);

		if (r < 0)
			return;
		used += (size_t)r;
	}
}

/* Optimal string alignment distance: a transposed pair ("netwrok") counts
 * as one edit, which is the typo people make. */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return UINT32_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/* The closest of WORDS within two edits, or else the one WORD abbreviates
 * ("host" for "host-ro"), or NULL. A candidate must keep at least one of
 * its own characters: "x" is not a typo of "as". */
const char *policy_suggest(const char *word, const char *const *words, size_t n)
{
	const char *best = NULL;
	unsigned best_d = 3;
	size_t len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		unsigned d = edit_distance(word, words[i]);

		if (d < best_d && d < strlen(words[i])) {
			best = words[i];
			best_d = d;
		}
	}
	for (size_t i = 0; !best && len >= 2 && i < n; i++)
		if (strncmp(word, words[i], len) == 0)
			best = words[i];
	return best;
}

/* ---- quantities ---------------------------------------------------------- */

typedef struct unit {
	const char *name;
	uint64_t mult;
} unit;

static const unit duration_units[] = {
	{ "ms", 1 }, { "s", 1000 }, { "m", 60 * 1000 }, { "h", 60 * 60 * 1000 },
};
static const unit size_units[] = {
	{ "B", 1 }, { "KiB", 1ULL << 10 }, { "MiB", 1ULL << 20 }, { "GiB", 1ULL << 30 },
	{ "TiB", 1ULL << 40 }, { "K", 1ULL << 10 }, { "M", 1ULL << 20 }, { "G", 1ULL << 30 },
};

enum qerr { Q_OK, Q_NEGATIVE, Q_NOT_NUMBER, Q_MISSING_UNIT, Q_BAD_UNIT, Q_RANGE };

/* A whole number followed by one of UNITS (N == 0: a plain number).
 * UINT64_MAX is out of range: it stands for "unlimited". */
static enum qerr parse_quantity(const char *s, const unit *units, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (s[0] == '-')
		return Q_NEGATIVE;
	if (!ascii_digit(s[0]))
		return Q_NOT_NUMBER;
	for (; ascii_digit(*s); s++) {
		unsigned dgt = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - dgt) / 10)
			return Q_RANGE;
		v = v * 10 + dgt;
	}
	if (*s == '\0') {
		if (n > 0)
			return Q_MISSING_UNIT;
	} else {
		size_t i;

		if (n == 0)
			return Q_NOT_NUMBER;
		for (i = 0; i < n && strcmp(s, units[i].name) != 0; i++)
			;
		if (i == n)
			return Q_BAD_UNIT;
		if (v > UINT64_MAX / units[i].mult)
			return Q_RANGE;
		v *= units[i].mult;
	}
	if (v == UINT64_MAX)
		return Q_RANGE;
	*out = v;
	return Q_OK;
}

static int qerr_to_errno(enum qerr q)
{
	return q == Q_OK ? 0 : q == Q_RANGE ? -ERANGE : -EINVAL;
}

int parse_duration_ms(const char *s, uint64_t *out)
{
	return qerr_to_errno(parse_quantity(s, duration_units, ARRAY_SIZE(duration_units), out));
}

int parse_size_bytes(const char *s, uint64_t *out)
{
	return qerr_to_errno(parse_quantity(s, size_units, ARRAY_SIZE(size_units), out));
}

/* The largest unit that represents V exactly, so "600s" and "10m" render
 * alike in the canonical form. */
static void format_quantity(uint64_t v, const unit *units, size_t n, char *buf, size_t size)
{
	size_t best = 0;

	if (v == UINT64_MAX) {
		snprintf(buf, size, "unlimited");
		return;
	}
	if (n == 0) {
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return;
	}
	for (size_t i = 0; i < n && v != 0; i++)
		if (v % units[i].mult == 0 && units[i].mult > units[best].mult)
			best = i;
	snprintf(buf, size, "%llu%s", (unsigned long long)(v / units[best].mult),
	         units[best].name);
}

static void format_limit(enum limit_id id, uint64_t v, char *buf, size_t size)
{
	switch (id) {
	case LIM_WALL:
		format_quantity(v, duration_units, ARRAY_SIZE(duration_units), buf, size);
		break;
	case LIM_CPU:
		format_quantity(v == UINT64_MAX ? v : v * 1000, duration_units,
		                ARRAY_SIZE(duration_units), buf, size);
		break;
	case LIM_AS: case LIM_FSIZE: case LIM_OUTPUT:
		/* K/M/G are input aliases; render the IEC names. */
		format_quantity(v, size_units, 5, buf, size);
		break;
	default:
		format_quantity(v, NULL, 0, buf, size);
		break;
	}
}

/* ---- text checks --------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at S (0 if invalid); *CP its value. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* Overlong forms, UTF-16 surrogates and values past U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	*cp = s[0] & (0xff >> (len + 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	return len;
}

/* Characters that display as nothing, or reorder what is displayed around
 * them: a reviewer reading the file would not see what the parser sees. */
static bool invisible(uint32_t cp)
{
	static const uint32_t ranges[][2] = {
		{ 0x0080, 0x009f }, { 0x00ad, 0x00ad }, { 0x061c, 0x061c },
		{ 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x2060, 0x2064 },
		{ 0x2066, 0x2069 }, { 0xfeff, 0xfeff },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return true;
	return false;
}

/* Why S cannot appear in policy text, or NULL: what a caller adds is
 * rendered into the canonical form, which must read back as the same
 * policy and show a reviewer what the parser sees. With TOKEN, S must also
 * fit in one token (no space or tab). */
const char *policy_text_problem(const char *s, bool token)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s);

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n;

		if (token && (u[i] == ' ' || u[i] == '\t'))
			return "contains a space or tab, which a policy line cannot hold";
		if ((u[i] < 0x20 && u[i] != '\t') || u[i] == 0x7f)
			return "contains a control character";
		n = utf8_decode(u + i, len - i, &cp);
		if (n == 0)
			return "is not valid UTF-8";
		if (invisible(cp))
			return "contains an invisible or bidirectional control character";
		i += n;
	}
	return NULL;
}

/* Why PATH is not acceptable as a policy path, or NULL. Every path is
 * absolute and spelled exactly one way, so two rules about the same place
 * always look the same and no rule can climb out with "..". */
const char *policy_path_problem(const char *path, bool allow_glob)
{
	const char *c = path;

	if (path[0] != '/')
		return "path must be absolute";
	if (path[1] == '\0')
		return NULL;
	while (*c == '/') {
		const char *next = strchrnul(c + 1, '/');
		size_t len = (size_t)(next - c - 1);

		if (len == 2 && c[1] == '.' && c[2] == '.')
			return "path must not contain \"..\"";
		if (len == 0 || (len == 1 && c[1] == '.'))
			return "path must be normalized (no \".\" components, \"//\" or trailing \"/\")";
		c = next;
	}
	if (!allow_glob && strpbrk(path, "*?["))
		return "glob characters (* ? [) are not allowed in paths";
	return NULL;
}

bool policy_env_name_ok(const char *s, size_t len)
{
	if (len == 0 || !(ascii_alpha(s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!(ascii_alpha(s[i]) || ascii_digit(s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* Both paths are normalized (policy_path_problem accepts them), so a whole-
 * component comparison is a byte comparison that must end at a "/":
 * "/database" is not beneath "/data". Strictly beneath: a root is not
 * beneath itself. */
bool policy_path_beneath(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return path[0] == '/' && path[1] != '\0';
	return strncmp(root, path, n) == 0 && path[n] == '/' && path[n + 1] != '\0';
}

/* Why REL, the part after "workspace:", is not acceptable, or NULL: the
 * rules of absolute paths, relative to the workspace. */
static const char *rel_problem(const char *rel)
{
	const char *c = rel;

	if (rel[0] == '\0')
		return "path after \"workspace:\" must not be empty";
	if (rel[0] == '/')
		return "path after \"workspace:\" must be relative to the workspace";
	for (;;) {
		const char *next = strchrnul(c, '/');
		size_t len = (size_t)(next - c);

		if (len == 2 && c[0] == '.' && c[1] == '.')
			return "path must not contain \"..\"";
		if (len == 0 || (len == 1 && c[0] == '.'))
			return "path must be normalized (no \".\" components, \"//\" or trailing \"/\")";
		if (*next == '\0')
			break;
		c = next + 1;
	}
	if (strpbrk(rel, "*?["))
		return "glob characters (* ? [) are not allowed in paths";
	return NULL;
}

/* ---- errno names ---------------------------------------------------------- */

/* Spellings strerrorname_np does not return: Linux gives them the value of
 * another name. */
static const struct errno_alias {
	const char *name;
	int value;
} errno_aliases[] = {
	{ "EWOULDBLOCK", EWOULDBLOCK }, { "EDEADLOCK", EDEADLOCK }, { "ENOTSUP", ENOTSUP },
};

#define ERRNO_MAX 4095   /* the kernel's range for an errno return */

/* Value of NAME (EPERM...), or 0. */
static int errno_by_name(const char *name)
{
	for (int e = 1; e <= ERRNO_MAX; e++) {
		const char *n = strerrorname_np(e);

		if (n && strcmp(n, name) == 0)
			return e;
	}
	for (size_t i = 0; i < ARRAY_SIZE(errno_aliases); i++)
		if (strcmp(errno_aliases[i].name, name) == 0)
			return errno_aliases[i].value;
	return 0;
}

/* The closest errno name to WORD, or NULL. */
static const char *errno_suggest(const char *word)
{
	const char *names[256];   /* Linux has about 130 */
	size_t n = 0;

	for (int e = 1; e <= ERRNO_MAX && n < ARRAY_SIZE(names); e++) {
		const char *name = strerrorname_np(e);

		if (name)
			names[n++] = name;
	}
	return policy_suggest(word, names, n);
}

/* "EPERM", or the number when the C library has no name for it. */
void policy_errno_format(int e, char *buf, size_t size)
{
	const char *name = e > 0 ? strerrorname_np(e) : NULL;

	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%d", e);
}

/* "EPERM" or "13": a name, or a decimal number 1..4095 without sign or
 * leading zero. Returns the value, -EINVAL (unknown) or -ERANGE. */
int policy_errno_parse(const char *s)
{
	unsigned v = 0;

	if (!ascii_digit(s[0])) {
		int e = s[0] ? errno_by_name(s) : 0;

		return e ? e : -EINVAL;
	}
	if (s[0] == '0')
		return s[1] ? -EINVAL : -ERANGE;
	for (; *s; s++) {
		if (!ascii_digit(*s))
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > ERRNO_MAX)
			return -ERANGE;
	}
	return (int)v;
}

static bool user_name_ok(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > 32 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || ascii_digit(s[i]) || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/* Dot-separated RFC 1123 labels, at most 64 bytes (HOST_NAME_MAX). */
static bool hostname_ok(const char *s)
{
	size_t len = strlen(s), label = 0;

	if (len == 0 || len > 64)
		return false;
	for (size_t i = 0; i <= len; i++) {
		char c = s[i];

		if (c == '.' || c == '\0') {
			if (label == 0 || label > 63 || s[i - 1] == '-')
				return false;
			label = 0;
		} else if (ascii_alpha(c) || ascii_digit(c) || (c == '-' && label > 0)) {
			label++;
		} else {
			return false;
		}
	}
	return true;
}

/* Decimal 0..ID_MAX. Returns 0, -EINVAL (not a number) or -ERANGE. */
static int parse_id(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!ascii_digit(*s))
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > ID_MAX)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

static bool bare_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(ascii_alpha(*s) || ascii_digit(*s) || *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

/* NAME.policy unless NAME already ends in ".policy". */
static char *policy_file_name(const char *name)
{
	size_t len = strlen(name), sfx = strlen(".policy");
	char *s = NULL;

	if (len > sfx && strcmp(name + len - sfx, ".policy") == 0)
		return strdup(name);
	if (asprintf(&s, "%s.policy", name) < 0)
		return NULL;
	return s;
}

/* ---- parser state -------------------------------------------------------- */

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
	char *c_what;
	size_t index;       /* env set, seccomp NAME: the entry in the policy's list */
} slot;

typedef struct parser {
	osb_policy *p;
	osb_error *err;
	const frame *stack[OSB_INCLUDE_MAX_DEPTH + 1];
	size_t n_stack;
	unsigned n_inst;
	void *seen_map, *slot_map, *path_map, *pass_map, *deny_map, *root_map;
	slot **slots;
	size_t n_slots, cap_slots, cap_mounts, cap_pass, cap_deny, cap_set;
	/* The first rule naming each path of a mount, write or read-only
	 * (path_map's values index it): paths are unique across files. */
	osb_origin *path_o;
	char **path_kind;           /* the directive that named each path */
	size_t n_path_o, cap_path_o, cap_path_kind;
	/* Columns of rules checked once the whole policy is read. */
	unsigned *write_cols, *ro_cols, *sc_cols;
	size_t cap_roots, cap_read_roots, cap_writes, cap_write_cols, cap_ro, cap_ro_cols, cap_sc, cap_sc_cols;
} parser;

static int entry_cmp(const void *a, const void *b)
{
	const map_entry *x = a, *y = b;

	if (x->inst != y->inst)
		return x->inst < y->inst ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void entry_free(void *e)
{
	free(((map_entry *)e)->key);
	free(e);
}

/* Find KEY, or add it with VAL (*ADDED tells which). NULL: out of memory. */
static map_entry *map_add(void **root, unsigned inst, const char *key, size_t val, bool *added)
{
	map_entry probe = { .key = (char *)key, .inst = inst };
	void *hit = tfind(&probe, root, entry_cmp);
	map_entry *e;

	*added = false;
	if (hit)
		return *(map_entry **)hit;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = strdup(key);
	e->inst = inst;
	e->val = val;
	if (!e->key || !tsearch(e, root, entry_cmp)) {
		entry_free(e);
		return NULL;
	}
	*added = true;
	return e;
}

static void parser_free(parser *ps)
{
	void **maps[] = { &ps->seen_map, &ps->slot_map, &ps->path_map, &ps->pass_map, &ps->deny_map,
	                  &ps->root_map };

	for (size_t i = 0; i < ARRAY_SIZE(maps); i++)
		if (*maps[i])
			tdestroy(*maps[i], entry_free);
	for (size_t i = 0; i < ps->n_slots; i++) {
		free(ps->slots[i]->c_what);
		free(ps->slots[i]);
	}
	free(ps->slots);
	free(ps->path_o);
	for (size_t i = 0; i < ps->n_path_o; i++)
		free(ps->path_kind[i]);
	free(ps->path_kind);
	free(ps->write_cols);
	free(ps->ro_cols);
	free(ps->sc_cols);
}

static int vperr_at(parser *ps, int sys_errno, const char *file, unsigned line, unsigned col,
                    const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
static int vperr_at(parser *ps, int sys_errno, const char *file, unsigned line, unsigned col,
                    const char *fmt, va_list ap)
{
	char msg[sizeof(((osb_error *)0)->message)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return osb_err_set(ps->err, OSB_E_POLICY, sys_errno, "policy", "%s:%u:%u: %s",
	                   file, line, col, msg);
}

/* "FILE:LINE:COL: message" at column COL of the frame's current line. */
static int perr(parser *ps, const frame *f, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int perr(parser *ps, const frame *f, unsigned col, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vperr_at(ps, 0, f->file, f->line, col, fmt, ap);
	va_end(ap);
	return r;
}

static int perr_errno(parser *ps, const frame *f, unsigned col, int sys_errno, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int perr_errno(parser *ps, const frame *f, unsigned col, int sys_errno, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vperr_at(ps, sys_errno, f->file, f->line, col, fmt, ap);
	va_end(ap);
	return r;
}

/* The same at a rule's recorded origin, for checks made once every file has
 * been read. */
static int perr_at(parser *ps, const osb_origin *o, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int perr_at(parser *ps, const osb_origin *o, unsigned col, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vperr_at(ps, 0, o->file, o->line, col, fmt, ap);
	va_end(ap);
	return r;
}

static int nomem(osb_error *err)
{
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "policy", "out of memory while reading the policy");
}

static osb_origin origin_here(const frame *f)
{
	return (osb_origin){ f->file, f->line, f->depth };
}

static bool same_rule(const osb_origin *a, const osb_origin *b)
{
	return a->file == b->file && a->line == b->line;
}

/* The policy's copy of FILE (one per distinct name): origins point here. */
static const char *files_add(osb_policy *p, const char *file)
{
	char **v, *copy;

	for (size_t i = 0; i < p->n_files; i++)
		if (strcmp(p->files[i], file) == 0)
			return p->files[i];
	copy = strdup(file);
	v = copy ? reallocarray(p->files, p->n_files + 1, sizeof(*v)) : NULL;
	if (!v) {
		free(copy);
		return NULL;
	}
	p->files = v;
	p->files[p->n_files++] = copy;
	return copy;
}

/* ---- scalars: duplicates, overrides, conflicts ---------------------------- */

static slot *slot_get(parser *ps, const char *key)
{
	bool added;
	map_entry *e = map_add(&ps->slot_map, 0, key, ps->n_slots, &added);
	slot **v, *s;

	if (!e)
		return NULL;
	if (!added)
		return ps->slots[e->val];
	v = array_grow(ps->slots, &ps->cap_slots, ps->n_slots, sizeof(*v));
	if (!v)
		return NULL;
	ps->slots = v;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->index = SIZE_MAX;
	ps->slots[ps->n_slots++] = s;
	return s;
}

/* Record that the current line sets scalar KEY (WHAT names it in messages).
 * *APPLY tells whether this rule takes effect now. */
static int claim(parser *ps, frame *f, unsigned col, const char *key, const char *what,
                 slot **out, bool *apply)
{
	osb_origin o = origin_here(f);
	bool added;
	map_entry *seen = map_add(&ps->seen_map, f->inst, key, f->line, &added);
	slot *s;

	if (!seen)
		return nomem(ps->err);
	if (!added)
		return perr(ps, f, col, "duplicate \"%s\" (first set at %s:%zu)", what, f->file, seen->val);
	s = slot_get(ps, key);
	if (!s)
		return nomem(ps->err);
	*out = s;
	*apply = false;
	if (!s->win.file || o.depth < s->win.depth) {
		/* First, or an including file overriding what it included. */
		*apply = true;
		s->win = o;
		s->conflict = false;
	} else if (o.depth == s->win.depth && !same_rule(&o, &s->win) && !s->conflict) {
		s->conflict = true;
		s->c_at = o;
		s->c_col = col;
		s->c_other = s->win;
		free(s->c_what);
		s->c_what = strdup(what);
		if (!s->c_what)
			return nomem(ps->err);
	}
	return 0;
}

static int check_conflicts(parser *ps)
{
	for (size_t i = 0; i < ps->n_slots; i++) {
		const slot *s = ps->slots[i];

		if (s->conflict)
			return osb_err_set(ps->err, OSB_E_POLICY, 0, "policy",
			                   "%s:%u:%u: \"%s\" conflicts with %s:%u", s->c_at.file,
			                   s->c_at.line, s->c_col, s->c_what, s->c_other.file,
			                   s->c_other.line);
	}
	return 0;
}

/* ---- directives ---------------------------------------------------------- */

typedef int (*directive_fn)(parser *ps, frame *f, int n, tok *t);

static int arity(parser *ps, frame *f, int n, const tok *t, int min, int max, const char *usage)
{
	clipbuf cb;

	if (n - 1 < min)
		return perr(ps, f, t[0].col, "missing argument: usage is \"%s\"", usage);
	if (max >= 0 && n - 1 > max)
		return perr(ps, f, t[max + 1].col, "unexpected argument \"%s\" (usage is \"%s\")",
		            clip(t[max + 1].s, &cb), usage);
	return 0;
}

/* Index of T among WORDS, or an error naming the closest word. */
static int keyword(parser *ps, frame *f, const tok *t, const char *const *words, size_t n,
                   const char *what, size_t *idx)
{
	const char *near;
	char list[256];
	clipbuf cb;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(t->s, words[i]) == 0) {
			*idx = i;
			return 0;
		}
	}
	near = policy_suggest(t->s, words, n);
	if (near)
		return perr(ps, f, t->col, "unknown argument \"%s\" to \"%s\" (did you mean \"%s\"?)",
		            clip(t->s, &cb), what, near);
	join_words(words, n, list, sizeof(list));
	return perr(ps, f, t->col, "unknown argument \"%s\" to \"%s\" (expected %s)",
	            clip(t->s, &cb), what, list);
}

static int check_path_tok(parser *ps, frame *f, const tok *t)
{
	const char *why = policy_path_problem(t->s, false);
	clipbuf cb;

	if (why)
		return perr(ps, f, t->col, "%s: \"%s\"", why, clip(t->s, &cb));
	return 0;
}

static int d_version_again(parser *ps, frame *f, int n, tok *t)
{
	(void)n;
	return perr(ps, f, t[0].col, "duplicate \"osb-policy\" (first set at %s:%u)", f->file,
	            f->version_line);
}

static int d_root(parser *ps, frame *f, int n, tok *t)
{
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "root host-ro|none")) < 0 ||
	    (r = keyword(ps, f, &t[1], root_names, ARRAY_SIZE(root_names), "root", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "root", "root", &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->root = (enum root_kind)k;
		ps->p->root_set = (pol_set){ true, s->win };
	}
	return 0;
}

static int d_network(parser *ps, frame *f, int n, tok *t)
{
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "network none|host")) < 0 ||
	    (r = keyword(ps, f, &t[1], net_names, ARRAY_SIZE(net_names), "network", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "network", "network", &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->net = (enum net_mode)k;
		ps->p->net_set = (pol_set){ true, s->win };
	}
	return 0;
}

static int d_identity(parser *ps, frame *f, int n, tok *t)
{
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "identity auto|userns|root")) < 0 ||
	    (r = keyword(ps, f, &t[1], id_names, ARRAY_SIZE(id_names), "identity", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "identity", "identity", &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->id_mode = (enum id_mode)k;
		ps->p->id_mode_set = (pol_set){ true, s->win };
	}
	return 0;
}

static int d_workspace(parser *ps, frame *f, int n, tok *t)
{
	static const char usage[] = "workspace rw|ro|none [DEST]";
	char *dest = NULL;
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 2, usage)) < 0 ||
	    (r = keyword(ps, f, &t[1], ws_names, ARRAY_SIZE(ws_names), "workspace", &k)) < 0)
		return r;
	if (k == WS_NONE && n > 2)
		return arity(ps, f, n, t, 1, 1, usage);
	if (n > 2 && (r = check_path_tok(ps, f, &t[2])) < 0)
		return r;
	if ((r = claim(ps, f, t[0].col, "workspace", "workspace", &s, &apply)) < 0 || !apply)
		return r;
	if (n > 2 && !(dest = strdup(t[2].s)))
		return nomem(ps->err);
	free(ps->p->ws_dest);
	ps->p->ws_dest = dest;
	ps->p->ws_mode = (enum ws_mode)k;
	ps->p->ws_set = (pol_set){ true, s->win };
	return 0;
}

/* A path named by a mount, write or read-only rule (T[0] the directive, T[1]
 * the path): one rule per path across all files, so that no two rules
 * disagree about what a place is. *FRESH is false when this very rule was
 * already read (a file included twice), or when another file of the policy
 * already says the same thing (a team policy repeating a rule of the policy
 * it includes): the first one is kept, with its origin. */
static int claim_path(parser *ps, frame *f, const tok *t, bool *fresh)
{
	osb_origin here = origin_here(f);
	bool added;
	map_entry *e = map_add(&ps->path_map, 0, t[1].s, ps->n_path_o, &added);
	osb_origin *v;
	char **k;

	*fresh = false;
	if (!e)
		return nomem(ps->err);
	if (!added) {
		const osb_origin *o = &ps->path_o[e->val];
		clipbuf cb;

		if (same_rule(&here, o) ||
		    (strcmp(o->file, here.file) != 0 && strcmp(ps->path_kind[e->val], t[0].s) == 0))
			return 0;
		return perr(ps, f, t[1].col, "duplicate path \"%s\" (first set at %s:%u)",
		            clip(t[1].s, &cb), o->file, o->line);
	}
	v = array_grow(ps->path_o, &ps->cap_path_o, ps->n_path_o, sizeof(*v));
	if (!v)
		return nomem(ps->err);
	ps->path_o = v;
	k = array_grow(ps->path_kind, &ps->cap_path_kind, ps->n_path_o, sizeof(*k));
	if (!k)
		return nomem(ps->err);
	ps->path_kind = k;
	if (!(k[ps->n_path_o] = strdup(t[0].s)))
		return nomem(ps->err);
	v[ps->n_path_o++] = here;
	*fresh = true;
	return 0;
}

static int d_mount(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	size_t kind;
	char usage[32];
	bool fresh;
	pol_mount *v;
	int r;

	for (kind = 0; strcmp(t[0].s, mount_names[kind]) != 0; kind++)
		;
	snprintf(usage, sizeof(usage), "%s PATH", mount_names[kind]);
	if ((r = arity(ps, f, n, t, 1, 1, usage)) < 0 || (r = check_path_tok(ps, f, &t[1])) < 0 ||
	    (r = claim_path(ps, f, t, &fresh)) < 0 || !fresh)
		return r;
	v = array_grow(p->mounts, &ps->cap_mounts, p->n_mounts, sizeof(*v));
	if (!v)
		return nomem(ps->err);
	p->mounts = v;
	v[p->n_mounts] = (pol_mount){ (enum mount_kind)kind, strdup(t[1].s), origin_here(f), NULL };
	if (!v[p->n_mounts].path)
		return nomem(ps->err);
	p->n_mounts++;
	return 0;
}

/* symlink TARGET PATH: TARGET is what the link says, absolute or relative
 * to the link's directory ("usr/bin" for /bin), normalized like a path and
 * without "..": a reader sees where it leads without resolving anything.
 * The link grants nothing; what it points at must be in the view. */
static int d_symlink(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	_cleanup_free_ char *abs = NULL;
	const char *why;
	tok link[2];
	bool fresh;
	pol_mount *v;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 2, 2, "symlink TARGET PATH")) < 0 ||
	    (r = check_path_tok(ps, f, &t[2])) < 0)
		return r;
	if (strcmp(t[2].s, "/") == 0)
		return perr(ps, f, t[2].col, "symlink: \"/\" cannot be a symlink");
	if (asprintf(&abs, "%s%s", t[1].s[0] == '/' ? "" : "/", t[1].s) < 0)
		return nomem(ps->err);
	why = policy_path_problem(abs, false);
	if (why || strcmp(abs, "/") == 0)
		return perr(ps, f, t[1].col, "symlink target: %s: \"%s\"",
		            why ? why : "the target must name a file or directory", clip(t[1].s, &cb));
	link[0] = t[0];
	link[1] = t[2];
	if ((r = claim_path(ps, f, link, &fresh)) < 0 || !fresh)
		return r;
	v = array_grow(p->mounts, &ps->cap_mounts, p->n_mounts, sizeof(*v));
	if (!v)
		return nomem(ps->err);
	p->mounts = v;
	v[p->n_mounts] = (pol_mount){ MNT_SYMLINK, strdup(t[2].s), origin_here(f), strdup(t[1].s) };
	if (!v[p->n_mounts].path || !v[p->n_mounts].target) {
		free(v[p->n_mounts].path);
		free(v[p->n_mounts].target);
		return nomem(ps->err);
	}
	p->n_mounts++;
	return 0;
}

/* env pass / env deny: a set of patterns, duplicates folded. */
static int env_patterns(parser *ps, frame *f, int n, tok *t, void **map, pol_str **list,
                        size_t *len, size_t *cap)
{
	clipbuf cb;

	for (int i = 2; i < n; i++) {
		bool added;
		pol_str *v;

		if (strchr(t[i].s, '='))
			return perr(ps, f, t[i].col,
			            "environment variable name must not contain \"=\": \"%s\"",
			            clip(t[i].s, &cb));
		if (!map_add(map, 0, t[i].s, 0, &added))
			return nomem(ps->err);
		if (!added)
			continue;
		v = array_grow(*list, cap, *len, sizeof(*v));
		if (!v)
			return nomem(ps->err);
		*list = v;
		v[*len] = (pol_str){ strdup(t[i].s), origin_here(f) };
		if (!v[*len].s)
			return nomem(ps->err);
		(*len)++;
	}
	return 0;
}

/* env set NAME=VALUE: VALUE is the rest of the line as written, '#'
 * included, trailing blanks dropped. */
static int env_set(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	const char *eq;
	size_t name_len, off, end;
	char key[sizeof("env set ") + POLICY_MAX_LINE], *val = NULL;
	slot *s;
	bool apply;
	clipbuf cb;
	int r;

	if (n < 3)
		return perr(ps, f, t[0].col, "missing argument: usage is \"env set NAME=VALUE\"");
	eq = strchr(t[2].s, '=');
	if (!eq)
		return perr(ps, f, t[2].col, "expected NAME=VALUE after \"env set\", not \"%s\"",
		            clip(t[2].s, &cb));
	name_len = (size_t)(eq - t[2].s);
	if (!policy_env_name_ok(t[2].s, name_len))
		return perr(ps, f, t[2].col,
		            "invalid environment variable name \"%.*s\" (letters, digits and \"_\", "
		            "not starting with a digit)", (int)(name_len > CLIP_LEN ? CLIP_LEN : name_len),
		            t[2].s);
	snprintf(key, sizeof(key), "env set %.*s", (int)name_len, t[2].s);
	if ((r = claim(ps, f, t[0].col, key, key, &s, &apply)) < 0 || !apply)
		return r;
	off = t[2].col - 1 + name_len + 1;
	for (end = f->raw_len; end > off && (f->raw[end - 1] == ' ' || f->raw[end - 1] == '\t'); end--)
		;
	if (asprintf(&val, "%.*s=%.*s", (int)name_len, t[2].s, (int)(end - off), f->raw + off) < 0)
		return nomem(ps->err);
	if (s->index == SIZE_MAX) {
		pol_str *v = array_grow(p->env_set, &ps->cap_set, p->n_env_set, sizeof(*v));

		if (!v) {
			free(val);
			return nomem(ps->err);
		}
		p->env_set = v;
		s->index = p->n_env_set++;
	} else {
		free(p->env_set[s->index].s);
	}
	p->env_set[s->index] = (pol_str){ val, s->win };
	return 0;
}

static int env_base(parser *ps, frame *f, int n, tok *t, size_t k)
{
	char what[32];
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n - 1, t + 1, 0, 0, "env clear|inherit")) < 0)
		return r;
	snprintf(what, sizeof(what), "env %s", env_base_names[k]);
	if ((r = claim(ps, f, t[0].col, "env clear|inherit", what, &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->env_base = (enum env_base)k;
		ps->p->env_base_set = (pol_set){ true, s->win };
	}
	return 0;
}

static int d_env(parser *ps, frame *f, int n, tok *t)
{
	static const char *const subs[] = { "clear", "inherit", "pass", "deny", "set" };
	osb_policy *p = ps->p;
	size_t k = 0;
	int r;

	if ((r = arity(ps, f, n, t, 1, -1, "env clear|inherit|pass|deny|set ...")) < 0 ||
	    (r = keyword(ps, f, &t[1], subs, ARRAY_SIZE(subs), "env", &k)) < 0)
		return r;
	switch (k) {
	case 0: case 1:
		return env_base(ps, f, n, t, k == 0 ? ENV_CLEAR : ENV_INHERIT);
	case 2:
		if (n < 3)
			return perr(ps, f, t[0].col, "missing argument: usage is \"env pass NAME...\"");
		return env_patterns(ps, f, n, t, &ps->pass_map, &p->env_pass, &p->n_env_pass,
		                    &ps->cap_pass);
	case 3:
		if (n < 3)
			return perr(ps, f, t[0].col, "missing argument: usage is \"env deny PATTERN...\"");
		return env_patterns(ps, f, n, t, &ps->deny_map, &p->env_deny, &p->n_env_deny,
		                    &ps->cap_deny);
	default:
		return env_set(ps, f, n, t);
	}
}

static int id_arg(parser *ps, frame *f, const tok *t, const char *what, uint32_t *out)
{
	clipbuf cb;
	int r = parse_id(t->s, out);

	if (r == -ERANGE)
		return perr(ps, f, t->col, "%s \"%s\" is out of range (0 to 4294967294)", what,
		            clip(t->s, &cb));
	if (r < 0)
		return perr(ps, f, t->col, "invalid %s \"%s\" (a decimal number from 0 to 4294967294)",
		            what, clip(t->s, &cb));
	return 0;
}

static int d_user(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	uint32_t uid, gid;
	char *name;
	slot *s;
	bool apply;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 3, 3, "user NAME UID GID")) < 0)
		return r;
	if (!user_name_ok(t[1].s))
		return perr(ps, f, t[1].col, "invalid user name \"%s\" (lower-case letters, digits, "
		            "\"_\" and \"-\", starting with a letter or \"_\", at most 32 bytes)",
		            clip(t[1].s, &cb));
	if ((r = id_arg(ps, f, &t[2], "uid", &uid)) < 0 ||
	    (r = id_arg(ps, f, &t[3], "gid", &gid)) < 0 ||
	    (r = claim(ps, f, t[0].col, "user", "user", &s, &apply)) < 0 || !apply)
		return r;
	name = strdup(t[1].s);
	if (!name)
		return nomem(ps->err);
	free(p->user_name);
	p->user_name = name;
	p->uid = uid;
	p->gid = gid;
	p->user_set = (pol_set){ true, s->win };
	return 0;
}

/* host-ids UID GID: pinned host ids for root callers (never 0; whether
 * they belong to an account is lint's concern, W-codes in lib/audit.c). */
static int d_host_ids(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	uint32_t uid, gid;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 2, 2, "host-ids UID GID")) < 0 ||
	    (r = id_arg(ps, f, &t[1], "uid", &uid)) < 0 ||
	    (r = id_arg(ps, f, &t[2], "gid", &gid)) < 0)
		return r;
	if (uid == 0)
		return perr(ps, f, t[1].col, "invalid host uid 0: a sandbox never runs as host root");
	if (gid == 0)
		return perr(ps, f, t[2].col, "invalid host gid 0: a sandbox never runs as host root");
	if ((r = claim(ps, f, t[0].col, "host-ids", "host-ids", &s, &apply)) < 0 || !apply)
		return r;
	p->host_uid = uid;
	p->host_gid = gid;
	p->host_ids_set = (pol_set){ true, s->win };
	return 0;
}

static int d_hostname(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	char *name;
	slot *s;
	bool apply;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "hostname NAME")) < 0)
		return r;
	if (!hostname_ok(t[1].s))
		return perr(ps, f, t[1].col, "invalid hostname \"%s\" (dot-separated labels of letters, "
		            "digits and inner \"-\", at most 64 bytes)", clip(t[1].s, &cb));
	if ((r = claim(ps, f, t[0].col, "hostname", "hostname", &s, &apply)) < 0 || !apply)
		return r;
	name = strdup(t[1].s);
	if (!name)
		return nomem(ps->err);
	free(p->hostname);
	p->hostname = name;
	p->hostname_set = (pol_set){ true, s->win };
	return 0;
}

static int limit_value(parser *ps, frame *f, enum limit_id id, const tok *t, uint64_t *out)
{
	const unit *units = NULL;
	size_t n_units = 0;
	const char *expect = "a plain number";
	const char *name = osb_limit_names[id];
	enum qerr q;
	clipbuf cb;

	if (strcmp(t->s, "unlimited") == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	if (id == LIM_WALL || id == LIM_CPU) {
		units = duration_units;
		n_units = ARRAY_SIZE(duration_units);
		expect = "ms, s, m or h";
	} else if (id == LIM_AS || id == LIM_FSIZE || id == LIM_OUTPUT) {
		units = size_units;
		n_units = ARRAY_SIZE(size_units);
		expect = "B, KiB, MiB, GiB, TiB, K, M or G";
	}
	q = parse_quantity(t->s, units, n_units, out);
	switch (q) {
	case Q_OK:
		break;
	case Q_NEGATIVE:
		return perr(ps, f, t->col, "\"limit %s\" must not be negative: \"%s\"", name, clip(t->s, &cb));
	case Q_MISSING_UNIT:
		return perr(ps, f, t->col, "missing unit in \"%s\" (use %s)", clip(t->s, &cb), expect);
	case Q_BAD_UNIT:
		return perr(ps, f, t->col, "unknown unit in \"%s\" (use %s)", clip(t->s, &cb), expect);
	case Q_RANGE:
		return perr(ps, f, t->col, "\"limit %s\" value \"%s\" is out of range", name, clip(t->s, &cb));
	default:
		return perr(ps, f, t->col, "invalid value \"%s\" for \"limit %s\" (expected %s%s or \"unlimited\")",
		            clip(t->s, &cb), name, n_units ? "a whole number with a unit: " : "", expect);
	}
	if ((id == LIM_WALL || id == LIM_CPU) && *out == 0)
		return perr(ps, f, t->col, "\"limit %s\" must be greater than zero", name);
	if (id == LIM_CPU) {
		if (*out % 1000 != 0)
			return perr(ps, f, t->col, "\"limit cpu\" must be whole seconds: \"%s\"", clip(t->s, &cb));
		*out /= 1000;
	}
	return 0;
}

static int d_limit(parser *ps, frame *f, int n, tok *t)
{
	char key[32];
	size_t k = 0;
	uint64_t v;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 2, 2, "limit wall|cpu|as|nofile|fsize|nproc|output VALUE")) < 0 ||
	    (r = keyword(ps, f, &t[1], osb_limit_names, LIM__COUNT, "limit", &k)) < 0 ||
	    (r = limit_value(ps, f, (enum limit_id)k, &t[2], &v)) < 0)
		return r;
	snprintf(key, sizeof(key), "limit %s", osb_limit_names[k]);
	if ((r = claim(ps, f, t[0].col, key, key, &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->limits[k] = v;
		ps->p->limit_set[k] = (pol_set){ true, s->win };
	}
	return 0;
}

/* ---- write paths ---------------------------------------------------------- */

/* Append a copy of STR to a pol_str list; with COLS, remember COL beside it
 * (COLS grows with its own capacity, in step with the list). */
static int push_str(parser *ps, pol_str **list, size_t *len, size_t *cap, const char *str,
                    osb_origin o, unsigned **cols, size_t *cols_cap, unsigned col)
{
	pol_str *v = array_grow(*list, cap, *len, sizeof(*v));

	if (!v)
		return nomem(ps->err);
	*list = v;
	if (cols) {
		unsigned *c = array_grow(*cols, cols_cap, *len, sizeof(*c));

		if (!c)
			return nomem(ps->err);
		*cols = c;
		c[*len] = col;
	}
	v[*len] = (pol_str){ strdup(str), o };
	if (!v[*len].s)
		return nomem(ps->err);
	(*len)++;
	return 0;
}

static int d_write_root(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	bool added;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "write-root PATH")) < 0 || (r = check_path_tok(ps, f, &t[1])) < 0)
		return r;
	if (strcmp(t[1].s, "/") == 0)
		return perr(ps, f, t[1].col, "\"write-root /\" would let any path be granted; declare "
		            "the directories under which writable paths are expected");
	/* A declaration, not a grant: repeating one is harmless. */
	if (!map_add(&ps->root_map, 0, t[1].s, 0, &added))
		return nomem(ps->err);
	if (!added)
		return 0;
	return push_str(ps, &p->write_roots, &p->n_write_roots, &ps->cap_roots, t[1].s,
	                origin_here(f), NULL, NULL, 0);
}

/* read-root PATH: a caller may add read-only binds of paths beneath it
 * (run --ro, a request's "read_only", osb_policy_add_readonly). */
static int d_read_root(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	bool added;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "read-root PATH")) < 0 || (r = check_path_tok(ps, f, &t[1])) < 0)
		return r;
	if (strcmp(t[1].s, "/") == 0)
		return perr(ps, f, t[1].col, "\"read-root /\" would let callers bind any path; declare "
		            "the directories under which read-only paths are expected");
	/* A declaration, not a grant: repeating one is harmless. Instance 1
	 * keeps these apart from write-roots in the same map. */
	if (!map_add(&ps->root_map, 1, t[1].s, 0, &added))
		return nomem(ps->err);
	if (!added)
		return 0;
	return push_str(ps, &p->read_roots, &p->n_read_roots, &ps->cap_read_roots, t[1].s,
	                origin_here(f), NULL, NULL, 0);
}

/* allow-caller network: a caller may turn the host network on (run --net,
 * a request's "network": "host", osb_policy_set_network). */
static int d_allow_caller(parser *ps, frame *f, int n, tok *t)
{
	static const char *const what[] = { "network" };
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "allow-caller network")) < 0 ||
	    (r = keyword(ps, f, &t[1], what, ARRAY_SIZE(what), "allow-caller", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "allow-caller network", "allow-caller network", &s, &apply)) < 0)
		return r;
	if (apply)
		ps->p->caller_net = (pol_set){ true, s->win };
	return 0;
}

static int d_write(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	bool fresh;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "write PATH")) < 0 || (r = check_path_tok(ps, f, &t[1])) < 0 ||
	    (r = claim_path(ps, f, t, &fresh)) < 0 || !fresh)
		return r;
	return push_str(ps, &p->writes, &p->n_writes, &ps->cap_writes, t[1].s, origin_here(f),
	                &ps->write_cols, &ps->cap_write_cols, t[1].col);
}

static int d_read_only(parser *ps, frame *f, int n, tok *t)
{
	static const char ws_prefix[] = "workspace:";
	osb_policy *p = ps->p;
	bool fresh;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "read-only PATH|workspace:REL")) < 0)
		return r;
	if (strncmp(t[1].s, ws_prefix, strlen(ws_prefix)) == 0) {
		const char *why = rel_problem(t[1].s + strlen(ws_prefix));

		if (why)
			return perr(ps, f, t[1].col, "%s: \"%s\"", why, clip(t[1].s, &cb));
	} else if (t[1].s[0] != '/') {
		return perr(ps, f, t[1].col, "path must be absolute, or \"workspace:REL\" for a path in "
		            "the workspace: \"%s\"", clip(t[1].s, &cb));
	} else if ((r = check_path_tok(ps, f, &t[1])) < 0) {
		return r;
	}
	if ((r = claim_path(ps, f, t, &fresh)) < 0 || !fresh)
		return r;
	return push_str(ps, &p->read_only, &p->n_read_only, &ps->cap_ro, t[1].s, origin_here(f),
	                &ps->ro_cols, &ps->cap_ro_cols, t[1].col);
}

/* "/data, /srv/jobs" (the declared write-roots, in declaration order). */
void policy_roots_list(const osb_policy *p, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n_write_roots && used < size; i++) {
		int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", p->write_roots[i].s);

		if (w < 0)
			return;
		used += (size_t)w;
	}
}

static const pol_str *root_of(const osb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_write_roots; i++)
		if (policy_path_beneath(p->write_roots[i].s, path))
			return &p->write_roots[i];
	return NULL;
}

/* The absolute read-only rule whose path contains PATH, or NULL: a write
 * there would be covered by the re-protection and silently lost. */
static const pol_str *read_only_over(const osb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_read_only; i++)
		if (p->read_only[i].s[0] == '/' && (strcmp(p->read_only[i].s, path) == 0 ||
		                                    policy_path_beneath(p->read_only[i].s, path)))
			return &p->read_only[i];
	return NULL;
}

/* Why a write grant of PATH is refused by the declarations of P, written
 * into BUF, or NULL. The same lexical check for policy lines and for the
 * API; the plan repeats it by fd, which is the check that holds. */
const char *policy_write_problem(const osb_policy *p, const char *path, char *buf, size_t size)
{
	const pol_str *ro;
	char o[POLICY_ORIGIN_MAX];

	for (size_t i = 0; i < p->n_write_roots; i++) {
		if (strcmp(p->write_roots[i].s, path) == 0) {
			policy_origin_format(&p->write_roots[i].o, o, sizeof(o));
			snprintf(buf, size, "a write-root itself (%s); only paths beneath a root may be "
			         "granted", o);
			return buf;
		}
	}
	if (!root_of(p, path)) {
		char roots[768];

		policy_roots_list(p, roots, sizeof(roots));
		if (p->n_write_roots)
			snprintf(buf, size, "not beneath a declared write-root (declared: %s)", roots);
		else
			snprintf(buf, size, "not beneath a declared write-root (the policy declares none; "
			         "add \"write-root DIR\" for a directory above it)");
		return buf;
	}
	ro = read_only_over(p, path);
	if (ro) {
		policy_origin_format(&ro->o, o, sizeof(o));
		snprintf(buf, size, "under \"read-only %s\" (%s), which would cover it", ro->s, o);
		return buf;
	}
	return NULL;
}

/* Once every file is read: each write lies beneath a declared root, none
 * under a read-only path, and each absolute read-only path lies inside
 * something writable, or it would restrict nothing. */
static int check_write_rules(parser *ps)
{
	const osb_policy *p = ps->p;
	char why[900];
	clipbuf cb;

	for (size_t i = 0; i < p->n_writes; i++) {
		const pol_str *w = &p->writes[i];

		if (policy_write_problem(p, w->s, why, sizeof(why)))
			return perr_at(ps, &w->o, ps->write_cols[i], "write path \"%s\" is %s",
			               clip(w->s, &cb), why);
	}
	for (size_t i = 0; i < p->n_read_only; i++) {
		const pol_str *ro = &p->read_only[i];
		bool inside = root_of(p, ro->s) != NULL;

		for (size_t j = 0; !inside && j < p->n_writes; j++)
			inside = policy_path_beneath(p->writes[j].s, ro->s);
		if (ro->s[0] == '/' && !inside)
			return perr_at(ps, &ro->o, ps->ro_cols[i], "read-only path \"%s\" is not beneath a "
			               "write path or write-root, so it would protect nothing (use "
			               "\"read-only workspace:REL\" for paths in the workspace)",
			               clip(ro->s, &cb));
	}
	return 0;
}

/* ---- seccomp and landlock -------------------------------------------------- */

static int unknown_syscall(parser *ps, frame *f, const tok *t)
{
	const struct scmp_version *v = seccomp_version();
	char *names[1024];
	size_t n = 0;
	const char *near;
	clipbuf cb;
	int r;

	/* Every name the native table knows, for the suggestion. */
	for (int nr = 0; nr < (int)ARRAY_SIZE(names); nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (name)
			names[n++] = name;
	}
	near = policy_suggest(t->s, (const char *const *)names, n);
	if (near)
		r = perr(ps, f, t->col, "unknown system call \"%s\" (did you mean \"%s\"?)",
		         clip(t->s, &cb), near);
	else
		r = perr(ps, f, t->col, "unknown system call \"%s\" (libseccomp %u.%u.%u does not "
		         "know it; check the spelling)", clip(t->s, &cb), v->major, v->minor, v->micro);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return r;
}

static int errno_arg(parser *ps, frame *f, const tok *t, int *out)
{
	const char *val = t->s + strlen("errno=");
	unsigned col = t->col + (unsigned)strlen("errno=");
	const char *near;
	clipbuf cb;
	int e = policy_errno_parse(val);

	if (e > 0) {
		*out = e;
		return 0;
	}
	if (e == -ERANGE)
		return perr(ps, f, col, "errno \"%s\" is out of range (1 to 4095)", clip(val, &cb));
	near = *val && !ascii_digit(*val) ? errno_suggest(val) : NULL;
	if (near)
		return perr(ps, f, col, "unknown errno \"%s\" (did you mean \"%s\"?)", clip(val, &cb), near);
	return perr(ps, f, col, "invalid errno \"%s\" (a name such as EPERM, ENOSYS or EACCES, or a "
	            "number from 1 to 4095)", clip(val, &cb));
}

/* One rule for NAME, a scalar of its own: a file may turn a deny it
 * includes into an allow, and two rules for one name in a file are a
 * duplicate. */
static int sc_rule_set(parser *ps, frame *f, const tok *t, bool allow, int errnum)
{
	osb_policy *p = ps->p;
	char key[sizeof("seccomp call ") + POLICY_MAX_LINE], what[sizeof("seccomp allow ") + POLICY_MAX_LINE];
	char *name;
	slot *s;
	bool apply;
	int r;

	snprintf(key, sizeof(key), "seccomp call %s", t->s);
	snprintf(what, sizeof(what), "seccomp %s %s", allow ? "allow" : "deny", t->s);
	if ((r = claim(ps, f, t->col, key, what, &s, &apply)) < 0 || !apply)
		return r;
	if (!(name = strdup(t->s)))
		return nomem(ps->err);
	if (s->index == SIZE_MAX) {
		pol_sc *v = array_grow(p->sc_rules, &ps->cap_sc, p->n_sc_rules, sizeof(*v));
		unsigned *c = v ? array_grow(ps->sc_cols, &ps->cap_sc_cols, p->n_sc_rules, sizeof(*c)) : NULL;

		if (v)
			p->sc_rules = v;
		if (!c) {
			free(name);
			return nomem(ps->err);
		}
		ps->sc_cols = c;
		s->index = p->n_sc_rules++;
	} else {
		free(p->sc_rules[s->index].name);
	}
	p->sc_rules[s->index] = (pol_sc){ name, allow, allow ? 0 : errnum, s->win };
	ps->sc_cols[s->index] = t->col;
	return 0;
}

/* seccomp deny NAME... [errno=E] / seccomp allow NAME... */
static int sc_names(parser *ps, frame *f, int n, tok *t, bool allow)
{
	const char *usage = allow ? "seccomp allow NAME..." : "seccomp deny NAME... [errno=E]";
	int end = n, errnum = EPERM, r;

	for (int i = 2; i < n; i++) {
		if (strncmp(t[i].s, "errno=", strlen("errno=")) != 0)
			continue;
		if (allow)
			return perr(ps, f, t[i].col, "\"errno=\" belongs to \"seccomp deny\", not "
			            "\"seccomp allow\"");
		if (i != n - 1)
			return perr(ps, f, t[i].col, "\"errno=\" must come after the system call names "
			            "(usage is \"%s\")", usage);
		if ((r = errno_arg(ps, f, &t[i], &errnum)) < 0)
			return r;
		end = i;
	}
	if (end < 3)
		return perr(ps, f, t[0].col, "missing argument: usage is \"%s\"", usage);
	for (int i = 2; i < end; i++)
		if (seccomp_syscall_resolve_name(t[i].s) == __NR_SCMP_ERROR)
			return unknown_syscall(ps, f, &t[i]);
	for (int i = 2; i < end; i++)
		if ((r = sc_rule_set(ps, f, &t[i], allow, errnum)) < 0)
			return r;
	return 0;
}

/* "seccomp GROUP": a name of lib/filter.h's table, else an error that
 * says which groups this version has (a policy written for a newer one). */
static int sc_group_arg(parser *ps, frame *f, const tok *t, const sc_group **out)
{
	static const char prefix[] = "osb-default-";
	size_t n;
	const sc_group *g = seccomp_groups(&n);
	char list[256] = "";
	clipbuf cb;

	*out = seccomp_group_find(t->s);
	if (*out || strncmp(t->s, prefix, strlen(prefix)) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
		         i ? (i + 1 < n ? ", " : " and ") : "", g[i].name);
	return perr(ps, f, t->col, "unknown seccomp group \"%s\" (this osb-isolate has %s)",
	            clip(t->s, &cb), list);
}

static int d_seccomp(parser *ps, frame *f, int n, tok *t)
{
	static const char *const subs[] = { "default", "none", "deny", "allow" };
	const sc_group *g = NULL;
	char what[64];
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, -1, "seccomp default|none|GROUP|deny|allow ...")) < 0 ||
	    (r = sc_group_arg(ps, f, &t[1], &g)) < 0 ||
	    (!g && (r = keyword(ps, f, &t[1], subs, ARRAY_SIZE(subs), "seccomp", &k)) < 0))
		return r;
	if (!g && k >= 2)
		return sc_names(ps, f, n, t, k == 3);
	if ((r = arity(ps, f, n - 1, t + 1, 0, 0, "seccomp default|none|GROUP")) < 0)
		return r;
	snprintf(what, sizeof(what), "seccomp %s", g ? g->name : sc_mode_names[k]);
	if ((r = claim(ps, f, t[0].col, "seccomp default|none", what, &s, &apply)) < 0)
		return r;
	if (apply) {
		/* "default" is the newest group; the policy records which. */
		if (!g && k == SC_DEFAULT)
			g = seccomp_policy_group(NULL);
		ps->p->sc_mode = g ? SC_DEFAULT : SC_NONE;
		ps->p->sc_group = g ? g->version : 0;
		ps->p->sc_mode_set = (pol_set){ true, s->win };
	}
	return 0;
}

/* "seccomp none" and a deny rule cannot both hold: refuse rather than drop
 * a restriction the reviewer can see. */
static int check_seccomp_rules(parser *ps)
{
	const osb_policy *p = ps->p;

	if (p->sc_mode != SC_NONE)
		return 0;
	for (size_t i = 0; i < p->n_sc_rules; i++) {
		const pol_sc *r = &p->sc_rules[i];

		if (!r->allow)
			return perr_at(ps, &r->o, ps->sc_cols[i], "\"seccomp deny %s\" cannot take effect: "
			               "\"seccomp none\" (%s:%u) loads no filter", r->name,
			               p->sc_mode_set.o.file, p->sc_mode_set.o.line);
	}
	return 0;
}

static int d_landlock(parser *ps, frame *f, int n, tok *t)
{
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "landlock auto|required|off")) < 0 ||
	    (r = keyword(ps, f, &t[1], ll_names, ARRAY_SIZE(ll_names), "landlock", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "landlock", "landlock", &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->landlock = (enum ll_mode)k;
		ps->p->landlock_set = (pol_set){ true, s->win };
	}
	return 0;
}

/* ---- files and includes -------------------------------------------------- */

static int parse_file(parser *ps, const char *text, size_t len, const char *file,
                      unsigned depth, const struct stat *id);

static int include_read_error(parser *ps, frame *f, const tok *t, const char *path, int r)
{
	clipbuf cb;

	if (r == -ENOMEM)
		return nomem(ps->err);
	if (r == -EFBIG)
		return perr_errno(ps, f, t->col, EFBIG, "cannot include \"%s\": %s is larger than 1 MiB",
		                  clip(t->s, &cb), path);
	if (r == -EINVAL)
		return perr_errno(ps, f, t->col, EINVAL, "cannot include \"%s\": %s is not a regular file",
		                  clip(t->s, &cb), path);
	return perr_errno(ps, f, t->col, -r, "cannot include \"%s\": %s: %s", clip(t->s, &cb), path,
	                  strerror(-r));
}

/* "NAME" is a shipped policy: it is read from policy_dir() only, so a file
 * of that name beside the including policy (which may sit where untrusted
 * code can write) cannot take its place. "./NAME" names that sibling. */
static int include_find(parser *ps, frame *f, const tok *t, bool sibling, char **path,
                        char **text, size_t *len)
{
	const char *name = sibling ? t->s + 2 : t->s;
	_cleanup_free_ char *fname = policy_file_name(name);
	const char *slash = strrchr(f->file, '/');
	int r;

	if (!fname)
		return nomem(ps->err);
	if (sibling && slash)
		r = asprintf(path, "%.*s/%s", (int)(slash - f->file), f->file, fname);
	else if (sibling)
		r = asprintf(path, "%s", fname);
	else
		r = asprintf(path, "%s/%s", policy_dir(), fname);
	if (r < 0) {
		*path = NULL;
		return nomem(ps->err);
	}
	r = read_file_bounded(*path, POLICY_MAX_BYTES, text, len);
	if (r == -ENOENT && !sibling) {
		clipbuf cb;

		return perr_errno(ps, f, t->col, ENOENT, "cannot include \"%s\": %s does not exist "
		                  "(a bare name is a shipped policy; write \"./%s\" for a file beside "
		                  "this one)", clip(t->s, &cb), *path, clip(t->s, &cb));
	}
	return r < 0 ? include_read_error(ps, f, t, *path, r) : 0;
}

static int include_cycle(parser *ps, frame *f, const tok *t, const char *path, const struct stat *st)
{
	char chain[sizeof(((osb_error *)0)->message)];
	size_t used = 0, i;

	for (i = 0; i < ps->n_stack; i++)
		if (ps->stack[i]->has_id && ps->stack[i]->dev == st->st_dev &&
		    ps->stack[i]->ino == st->st_ino)
			break;
	if (i == ps->n_stack)
		return 0;
	chain[0] = '\0';
	for (; i < ps->n_stack && used < sizeof(chain); i++) {
		int w = snprintf(chain + used, sizeof(chain) - used, "%s -> ", ps->stack[i]->file);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return perr(ps, f, t->col, "include cycle: %s%s", chain, path);
}

static int d_include(parser *ps, frame *f, int n, tok *t)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	bool sibling;
	const char *file;
	size_t len = 0;
	struct stat st;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "include NAME|./NAME|/PATH")) < 0)
		return r;
	sibling = strncmp(t[1].s, "./", 2) == 0;
	if (t[1].s[0] == '/') {
		if ((r = check_path_tok(ps, f, &t[1])) < 0)
			return r;
		if (!(path = strdup(t[1].s)))
			return nomem(ps->err);
		r = read_file_bounded(path, POLICY_MAX_BYTES, &text, &len);
		if (r < 0)
			return include_read_error(ps, f, &t[1], path, r);
	} else if (strchr(sibling ? t[1].s + 2 : t[1].s, '/')) {
		return perr(ps, f, t[1].col, "include takes a bare name, \"./NAME\" or an absolute "
		            "path, not a relative path: \"%s\"", clip(t[1].s, &cb));
	} else if (!bare_name_ok(sibling ? t[1].s + 2 : t[1].s)) {
		return perr(ps, f, t[1].col, "invalid include name \"%s\" (letters, digits, \"_\", "
		            "\".\" and \"-\", \"./\" and such a name, or an absolute path)",
		            clip(t[1].s, &cb));
	} else if ((r = include_find(ps, f, &t[1], sibling, &path, &text, &len)) < 0) {
		return r;
	}
	if (stat(path, &st) < 0)
		return include_read_error(ps, f, &t[1], path, -errno);
	if ((r = include_cycle(ps, f, &t[1], path, &st)) < 0)
		return r;
	if (f->depth + 1 > OSB_INCLUDE_MAX_DEPTH)
		return perr(ps, f, t[1].col, "include nested too deeply: \"%s\" would be at depth %u "
		            "(at most %d levels of include)", clip(t[1].s, &cb), f->depth + 1,
		            OSB_INCLUDE_MAX_DEPTH);
	if (!(file = files_add(ps->p, path)))
		return nomem(ps->err);
	return parse_file(ps, text, len, file, f->depth + 1, &st);
}

/* ---- lines --------------------------------------------------------------- */

static const struct directive {
	const char *name;
	directive_fn fn;
} directives[] = {
	{ "osb-policy", d_version_again }, { "include", d_include }, { "root", d_root },
	{ "ro-bind", d_mount }, { "tmpfs", d_mount }, { "hide", d_mount }, { "dev", d_mount },
	{ "proc", d_mount }, { "symlink", d_symlink }, { "workspace", d_workspace },
	{ "network", d_network },
	{ "env", d_env }, { "user", d_user }, { "identity", d_identity },
	{ "host-ids", d_host_ids },
	{ "hostname", d_hostname }, { "limit", d_limit }, { "write-root", d_write_root },
	{ "write", d_write }, { "read-only", d_read_only }, { "seccomp", d_seccomp },
	{ "landlock", d_landlock }, { "read-root", d_read_root }, { "allow-caller", d_allow_caller },
};

/* Whole-file checks before any directive is acted on: the text is UTF-8,
 * lines are bounded, and nothing in it is invisible to a reader. */
static int prescan(parser *ps, frame *f, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t start = 0, i = 0;

	f->line = 1;
	while (i < len) {
		unsigned col = (unsigned)(i - start + 1);
		uint32_t cp;
		size_t n;

		if (s[i] == '\n') {
			f->line++;
			start = ++i;
			continue;
		}
		if (col > POLICY_MAX_LINE)
			return perr(ps, f, POLICY_MAX_LINE + 1, "line longer than %d bytes", POLICY_MAX_LINE);
		if (s[i] == '\0')
			return perr(ps, f, col, "NUL byte in policy text");
		if (s[i] == '\r')
			return perr(ps, f, col, "carriage return in policy text (use Unix line endings)");
		if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return perr(ps, f, col, "control character 0x%02x in policy text", s[i]);
		n = utf8_decode(s + i, len - i, &cp);
		if (n == 0)
			return perr(ps, f, col, "invalid UTF-8 in policy text");
		if (cp == 0xfeff && i == 0)
			return perr(ps, f, col, "UTF-8 byte order mark (save the file without one)");
		if (invisible(cp))
			return perr(ps, f, col, "invisible or bidirectional control character U+%04X "
			            "(not allowed in policy text)", (unsigned)cp);
		if (col - 1 + n > POLICY_MAX_LINE)   /* a character straddling the limit */
			return perr(ps, f, POLICY_MAX_LINE + 1, "line longer than %d bytes", POLICY_MAX_LINE);
		i += n;
	}
	return 0;
}

/* Split the current line into blank-separated tokens; '#' at the start of
 * a token starts a comment. */
static int tokenize(frame *f)
{
	size_t i = 0;
	int n = 0;

	memcpy(f->buf, f->raw, f->raw_len);
	f->buf[f->raw_len] = '\0';
	while (i < f->raw_len) {
		if (f->buf[i] == ' ' || f->buf[i] == '\t') {
			i++;
			continue;
		}
		if (f->buf[i] == '#')
			break;
		f->toks[n].s = f->buf + i;
		f->toks[n].col = (unsigned)i + 1;
		n++;
		while (i < f->raw_len && f->buf[i] != ' ' && f->buf[i] != '\t')
			i++;
		f->buf[i++] = '\0';
	}
	return n;
}

static int version_line(parser *ps, frame *f, int n, tok *t)
{
	clipbuf cb;
	int r;

	if (strcmp(t[0].s, "osb-policy") != 0)
		return perr(ps, f, t[0].col, "expected version line \"osb-policy 1\" first");
	if ((r = arity(ps, f, n, t, 1, 1, "osb-policy 1")) < 0)
		return r;
	if (strcmp(t[1].s, "1") != 0)
		return perr(ps, f, t[1].col, "unsupported policy version \"%s\" (supported: \"osb-policy 1\")",
		            clip(t[1].s, &cb));
	f->version_line = f->line;
	return 0;
}

static int parse_line(parser *ps, frame *f)
{
	int n = tokenize(f);
	const char *names[ARRAY_SIZE(directives)];
	const char *near;
	clipbuf cb;

	if (n == 0)
		return 0;
	if (!f->version_line)
		return version_line(ps, f, n, f->toks);
	for (size_t i = 0; i < ARRAY_SIZE(directives); i++) {
		if (strcmp(f->toks[0].s, directives[i].name) == 0)
			return directives[i].fn(ps, f, n, f->toks);
		names[i] = directives[i].name;
	}
	near = policy_suggest(f->toks[0].s, names, ARRAY_SIZE(names));
	if (near)
		return perr(ps, f, f->toks[0].col, "unknown directive \"%s\" (did you mean \"%s\"?)",
		            clip(f->toks[0].s, &cb), near);
	return perr(ps, f, f->toks[0].col, "unknown directive \"%s\"", clip(f->toks[0].s, &cb));
}

static int parse_lines(parser *ps, frame *f, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	unsigned line = 0;
	int r;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		f->line = ++line;
		f->raw = s;
		f->raw_len = (size_t)((nl ? nl : end) - s);
		if ((r = parse_line(ps, f)) < 0)
			return r;
		if (!nl)
			break;
		s = nl + 1;
	}
	if (!f->version_line) {
		f->line = len == 0 || text[len - 1] == '\n' ? line + 1 : line;
		return perr(ps, f, 1, "missing version line \"osb-policy 1\" (the file has no directives)");
	}
	return 0;
}

/* ID: the file's identity for cycle detection, or NULL when the text has
 * no file behind it. */
static int parse_file(parser *ps, const char *text, size_t len, const char *file,
                      unsigned depth, const struct stat *id)
{
	frame f = { .file = file, .depth = depth, .inst = ps->n_inst++ };
	int r;

	if (ps->n_stack >= ARRAY_SIZE(ps->stack))
		return osb_err_set(ps->err, OSB_E_INTERNAL, 0, "policy", "include stack overflow");
	if (id) {
		f.has_id = true;
		f.dev = id->st_dev;
		f.ino = id->st_ino;
	}
	f.buf = malloc(POLICY_MAX_LINE + 1);
	f.toks = calloc(MAX_TOKENS, sizeof(*f.toks));
	if (!f.buf || !f.toks) {
		r = nomem(ps->err);
	} else {
		ps->stack[ps->n_stack++] = &f;
		r = prescan(ps, &f, text, len);
		if (r == 0)
			r = parse_lines(ps, &f, text, len);
		ps->n_stack--;
	}
	free(f.buf);
	free(f.toks);
	return r;
}

/* ---- defaults and entry points ------------------------------------------- */

/* Unset rules get the safe value: nothing visible, nothing reachable. */
static int apply_defaults(osb_policy *p)
{
	const pol_set d = { true, { origin_default, 0, 0 } };

	if (!p->root_set.set) {
		p->root = ROOT_NONE;
		p->root_set = d;
	}
	if (!p->ws_set.set) {
		p->ws_mode = WS_NONE;
		p->ws_set = d;
	}
	if (!p->net_set.set) {
		p->net = NET_NONE;
		p->net_set = d;
	}
	if (!p->env_base_set.set) {
		p->env_base = ENV_CLEAR;
		p->env_base_set = d;
	}
	if (!p->user_set.set) {
		if (!(p->user_name = strdup("sandbox")))
			return -ENOMEM;
		p->uid = p->gid = 1000;
		p->user_set = d;
	}
	if (!p->id_mode_set.set) {
		p->id_mode = ID_AUTO;
		p->id_mode_set = d;
	}
	if (!p->hostname_set.set) {
		if (!(p->hostname = strdup("sandbox")))
			return -ENOMEM;
		p->hostname_set = d;
	}
	if (!p->limit_set[LIM_OUTPUT].set) {
		p->limits[LIM_OUTPUT] = 1ULL << 20;
		p->limit_set[LIM_OUTPUT] = d;
	}
	if (!p->sc_mode_set.set) {
		p->sc_mode = SC_DEFAULT;
		p->sc_group = seccomp_policy_group(NULL)->version;
		p->sc_mode_set = d;
	}
	if (!p->landlock_set.set) {
		p->landlock = LL_AUTO;
		p->landlock_set = d;
	}
	return 0;
}

static osb_policy *parse_top(const char *text, size_t len, const char *filename,
                             const struct stat *id, osb_error *err)
{
	parser ps = { .err = err };
	const char *file;
	int r;

	ps.p = calloc(1, sizeof(*ps.p));
	if (!ps.p || !(file = files_add(ps.p, filename))) {
		nomem(err);
		osb_policy_free(ps.p);
		return NULL;
	}
	if (len > POLICY_MAX_BYTES)
		r = osb_err_set(err, OSB_E_POLICY, EFBIG, "policy", "%s: policy is larger than 1 MiB", file);
	else
		r = parse_file(&ps, text, len, file, 0, id);
	if (r == 0)
		r = check_conflicts(&ps);
	if (r == 0)
		r = check_write_rules(&ps);
	if (r == 0)
		r = check_seccomp_rules(&ps);
	if (r == 0 && apply_defaults(ps.p) < 0)
		r = nomem(err);
	parser_free(&ps);
	if (r < 0) {
		osb_policy_free(ps.p);
		return NULL;
	}
	ps.p->version = OSB_POLICY_VERSION;
	return ps.p;
}

osb_policy *osb_policy_parse(const char *text, size_t len, const char *filename, osb_error *err)
{
	struct stat st;

	if (!text && len > 0) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "osb_policy_parse: text is NULL");
		return NULL;
	}
	if (!filename)
		filename = "<string>";
	/* The file need not exist; if it does, an include of it is a cycle. */
	return parse_top(text ? text : "", len, filename, stat(filename, &st) == 0 ? &st : NULL, err);
}

osb_policy *osb_policy_load(const char *name_or_path, osb_error *err)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	size_t len = 0;
	struct stat st;
	int r;

	if (!name_or_path || !*name_or_path) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "no policy named: pass a policy name or a path");
		return NULL;
	}
	if (strchr(name_or_path, '/')) {
		path = strdup(name_or_path);
	} else if (!bare_name_ok(name_or_path)) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "invalid policy name \"%s\" (letters, "
		            "digits, \"_\", \".\" and \"-\"; use a path with a \"/\" for other files)",
		            name_or_path);
		return NULL;
	} else {
		_cleanup_free_ char *fname = policy_file_name(name_or_path);

		if (fname && asprintf(&path, "%s/%s", policy_dir(), fname) < 0)
			path = NULL;
	}
	if (!path) {
		nomem(err);
		return NULL;
	}
	r = read_file_bounded(path, POLICY_MAX_BYTES, &text, &len);
	if (r == 0 && stat(path, &st) < 0)
		r = -errno;
	if (r == -ENOMEM)
		nomem(err);
	else if (r == -EFBIG)
		osb_err_set(err, OSB_E_POLICY, EFBIG, "policy", "%s: policy file is larger than 1 MiB", path);
	else if (r == -EINVAL)
		osb_err_set(err, OSB_E_POLICY, EINVAL, "policy", "%s: not a regular file", path);
	else if (r < 0)
		osb_err_set(err, OSB_E_POLICY, -r, "policy", "%s: cannot read policy: %s", path, strerror(-r));
	if (r < 0)
		return NULL;
	return parse_top(text, len, path, &st, err);
}

static void free_strs(pol_str *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].s);
	free(v);
}

void osb_policy_free(osb_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_mounts; i++) {
		free(p->mounts[i].path);
		free(p->mounts[i].target);
	}
	free(p->mounts);
	for (size_t i = 0; i < p->n_env_pass; i++)
		free(p->env_pass[i].s);
	free(p->env_pass);
	for (size_t i = 0; i < p->n_env_deny; i++)
		free(p->env_deny[i].s);
	free(p->env_deny);
	for (size_t i = 0; i < p->n_env_set; i++)
		free(p->env_set[i].s);
	free(p->env_set);
	free_strs(p->write_roots, p->n_write_roots);
	free_strs(p->writes, p->n_writes);
	free_strs(p->read_only, p->n_read_only);
	free_strs(p->read_roots, p->n_read_roots);
	for (size_t i = 0; i < p->n_ws_roots; i++)
		free(p->ws_roots[i]);
	free(p->ws_roots);
	free(p->ws_roots_from);
	for (size_t i = 0; i < p->n_sc_rules; i++)
		free(p->sc_rules[i].name);
	free(p->sc_rules);
	free(p->ws_dest);
	free(p->ws_path);
	free(p->user_name);
	free(p->hostname);
	for (size_t i = 0; i < p->n_files; i++)
		free(p->files[i]);
	free(p->files);
	free(p);
}

/* ---- caller adjustments -------------------------------------------------- */

const osb_origin policy_api_origin = { origin_api, 0, 0 };

/* RENDERED: the path becomes a rule of the canonical form (a workspace
 * directory does not, and may hold any character a directory name can). */
static int api_path(const char *what, const char *path, bool rendered, osb_error *err)
{
	const char *why;

	if (!path)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "%s: path is NULL", what);
	/* A path that becomes a rule must parse back: no glob, as in a policy
	 * file (the fuzzer found an ro path with a star breaking the canonical form). */
	why = policy_path_problem(path, !rendered);
	if (why)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "%s: %s: \"%s\" (pass a "
		                   "canonical absolute path, e.g. from realpath(3))", what, why, path);
	why = rendered ? policy_text_problem(path, true) : NULL;
	if (why)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "%s: path %s: \"%s\"", what,
		                   why, path);
	return 0;
}

int osb_policy_set_workspace(osb_policy *p, const char *dir, osb_error *err)
{
	char *copy;
	int r;

	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "set_workspace: policy is NULL");
	if ((r = api_path("workspace", dir, false, err)) < 0)
		return r;
	if (!(copy = strdup(dir)))
		return nomem(err);
	free(p->ws_path);
	p->ws_path = copy;
	p->ws_path_o = policy_api_origin;
	return 0;
}

/* The declared read-root PATH lies beneath, or NULL. */
static const pol_str *read_root_of(const osb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_read_roots; i++)
		if (policy_path_beneath(p->read_roots[i].s, path))
			return &p->read_roots[i];
	return NULL;
}

/* The policy's own name in messages: the file it was loaded from. */
static const char *policy_name(const osb_policy *p)
{
	return p->n_files ? p->files[0] : "(api)";
}

/* Why PATH may not be bound read-only by a caller (not beneath a read-root,
 * or already another rule's path), into ERR; 1 if it already is; 0 if it
 * may. */
static int read_only_grant_problem(const osb_policy *p, const char *path, osb_error *err)
{
	char o[POLICY_ORIGIN_MAX], list[768];

	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];

		if (strcmp(m->path, path) != 0)
			continue;
		if (m->kind == MNT_RO_BIND)
			return 1;
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "read-only path \"%s\" refused: "
		                   "the policy already has \"%s %s\" (%s:%u)", path,
		                   mount_names[m->kind], m->path, m->o.file, m->o.line);
	}
	for (size_t i = 0; i < p->n_writes; i++) {
		if (strcmp(p->writes[i].s, path) != 0)
			continue;
		policy_origin_format(&p->writes[i].o, o, sizeof(o));
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "read-only path \"%s\" refused: "
		                   "the policy already has \"write %s\" (%s)", path, path, o);
	}
	if (read_root_of(p, path))
		return 0;
	if (!p->n_read_roots)
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "read-only path \"%s\" refused: "
		                   "not beneath a declared read-root (the policy %s declares none; a "
		                   "policy grants read-only paths with \"read-root DIR\")", path,
		                   policy_name(p));
	list[0] = '\0';
	for (size_t i = 0, used = 0; i < p->n_read_roots && used < sizeof(list); i++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
		                 p->read_roots[i].s);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return osb_err_set(err, OSB_E_POLICY, 0, "policy", "read-only path \"%s\" refused: not "
	                   "beneath a declared read-root (the policy %s declares: %s)", path,
	                   policy_name(p), list);
}

int policy_check_read_only(const osb_policy *p, const char *path, osb_error *err)
{
	int r = api_path("read-only path", path, true, err);

	return r < 0 ? r : read_only_grant_problem(p, path, err);
}

int policy_add_read_only(osb_policy *p, const char *path, osb_error *err)
{
	pol_mount *v;
	int r;

	if ((r = policy_check_read_only(p, path, err)) != 0)
		return r < 0 ? r : 0;
	v = reallocarray(p->mounts, p->n_mounts + 1, sizeof(*v));
	if (!v)
		return nomem(err);
	p->mounts = v;
	v[p->n_mounts] = (pol_mount){ MNT_RO_BIND, strdup(path), policy_api_origin, NULL };
	if (!v[p->n_mounts].path)
		return nomem(err);
	p->n_mounts++;
	return 0;
}

int osb_policy_add_readonly(osb_policy *p, const char *path, osb_error *err)
{
	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "add_readonly: policy is NULL");
	return policy_add_read_only(p, path, err);
}

int policy_check_writable(const osb_policy *p, const char *path, const char *what, int usage_code,
                          osb_error *err)
{
	char why[900];
	const char *problem;

	if (!path)
		return osb_err_set(err, usage_code, EINVAL, "policy", "%s: path is NULL", what);
	if (strlen(path) >= PATH_MAX)
		return osb_err_set(err, usage_code, ENAMETOOLONG, "policy", "%s: path is longer than "
		                   "%d bytes", what, PATH_MAX - 1);
	problem = policy_path_problem(path, false);
	if (problem)
		return osb_err_set(err, usage_code, EINVAL, "policy", "%s: %s: \"%s\" (pass a "
		                   "canonical absolute path, e.g. from realpath(3))", what, problem, path);
	problem = policy_text_problem(path, true);
	if (problem)
		return osb_err_set(err, usage_code, EINVAL, "policy", "%s: path %s: \"%s\"", what,
		                   problem, path);
	for (size_t i = 0; i < p->n_writes; i++)
		if (strcmp(p->writes[i].s, path) == 0)
			return 1;
	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];
		char o[POLICY_ORIGIN_MAX];

		if (strcmp(m->path, path) != 0)
			continue;
		policy_origin_format(&m->o, o, sizeof(o));
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s: \"%s\" already has the rule "
		                   "\"%s %s\" (%s); a path takes one rule", what, path,
		                   mount_names[m->kind], m->path, o);
	}
	problem = policy_write_problem(p, path, why, sizeof(why));
	if (problem)
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s: \"%s\" is %s", what, path, problem);
	return 0;
}

int policy_add_writable(osb_policy *p, const char *path, const char *what, int usage_code,
                        osb_error *err)
{
	pol_str *v;
	int r = policy_check_writable(p, path, what, usage_code, err);

	if (r != 0)
		return r < 0 ? r : 0;
	v = reallocarray(p->writes, p->n_writes + 1, sizeof(*v));
	if (!v)
		return nomem(err);
	p->writes = v;
	v[p->n_writes] = (pol_str){ strdup(path), policy_api_origin };
	if (!v[p->n_writes].s)
		return nomem(err);
	p->n_writes++;
	return 0;
}

int osb_policy_add_writable(osb_policy *p, const char *path, osb_error *err)
{
	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "add_writable: policy is NULL");
	return policy_add_writable(p, path, "add_writable", OSB_E_USAGE, err);
}

int policy_check_network(const osb_policy *p, osb_error *err)
{
	char o[POLICY_ORIGIN_MAX];

	if (p->net == NET_HOST || p->caller_net.set)
		return 0;
	policy_origin_format(&p->net_set.o, o, sizeof(o));
	return osb_err_set(err, OSB_E_POLICY, 0, "policy", "the host network is refused: the policy "
	                   "%s has \"network none\" (%s) and does not grant callers the host network "
	                   "(a policy grants it with \"allow-caller network\")", policy_name(p), o);
}

int osb_policy_set_network(osb_policy *p, int host, osb_error *err)
{
	int r;

	if (!p || (host != 0 && host != 1))
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "set_network: expected a policy and 0 (none) or 1 (host)");
	if (host && (r = policy_check_network(p, err)) < 0)
		return r;
	if (p->net == (host ? NET_HOST : NET_NONE))
		return 0;
	p->net = host ? NET_HOST : NET_NONE;
	p->net_set = (pol_set){ true, policy_api_origin };
	return 0;
}

int osb_policy_set_host_ids(osb_policy *p, uint32_t uid, uint32_t gid, osb_error *err)
{
	if (!p || uid == 0 || gid == 0 || uid == UINT32_MAX || gid == UINT32_MAX)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "set_host_ids: expected a policy and ids from 1 to 4294967294 "
		                   "(a sandbox never runs as host uid 0 or gid 0)");
	p->host_uid = uid;
	p->host_gid = gid;
	p->host_ids_set = (pol_set){ true, policy_api_origin };
	return 0;
}

int osb_policy_set_wall_ms(osb_policy *p, uint64_t ms, osb_error *err)
{
	if (!p || ms == 0)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "set_wall_ms: expected a policy and a limit greater than zero");
	if (p->limit_set[LIM_WALL].set && p->limits[LIM_WALL] <= ms)
		return 0;
	p->limits[LIM_WALL] = ms;
	p->limit_set[LIM_WALL] = (pol_set){ true, policy_api_origin };
	return 0;
}

/* ---- canonical form, hash, explain --------------------------------------- */

static int mount_cmp(const void *a, const void *b)
{
	const pol_mount *x = *(const pol_mount *const *)a, *y = *(const pol_mount *const *)b;
	int c = strcmp(x->path, y->path);

	return c ? c : (int)x->kind - (int)y->kind;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp((*(const pol_str *const *)a)->s, (*(const pol_str *const *)b)->s);
}

/* env set entries sort by NAME alone: "A1=" must not sort before "A=". */
static int env_set_cmp(const void *a, const void *b)
{
	const char *x = (*(const pol_str *const *)a)->s, *y = (*(const pol_str *const *)b)->s;
	size_t lx = strcspn(x, "="), ly = strcspn(y, "=");
	int c = memcmp(x, y, lx < ly ? lx : ly);

	return c ? c : (lx > ly) - (lx < ly);
}

static void rule(FILE *out, const osb_origin *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void rule(FILE *out, const osb_origin *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	if (o && o->line)
		fprintf(out, "  # %s:%u", o->file, o->line);
	else if (o)
		fprintf(out, "  # %s", o->file ? o->file : origin_default);
	fputc('\n', out);
}

/* Sorted view of N elements of SIZE bytes at BASE. */
static const void **sorted(const void *base, size_t n, size_t size,
                           int (*cmp)(const void *, const void *))
{
	const void **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = (const char *)base + i * size;
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

static void render_strs(FILE *out, bool origins, const char *prefix, const pol_str *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rule(out, origins ? &v[i]->o : NULL, "%s %s", prefix, v[i]->s);
}

static int sc_cmp(const void *a, const void *b)
{
	return strcmp((*(const pol_sc *const *)a)->name, (*(const pol_sc *const *)b)->name);
}

/* One name a line, with its errno always spelled out by name: "deny x" and
 * "deny x errno=1" are the same rule and render alike. */
static void render_sc(FILE *out, bool origins, const pol_sc *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char e[32];

		if (v[i]->allow) {
			rule(out, origins ? &v[i]->o : NULL, "seccomp allow %s", v[i]->name);
			continue;
		}
		policy_errno_format(v[i]->err ? v[i]->err : EPERM, e, sizeof(e));
		rule(out, origins ? &v[i]->o : NULL, "seccomp deny %s errno=%s", v[i]->name, e);
	}
}

static void render_scalars(const osb_policy *p, FILE *out, bool origins)
{
#define O(x) (origins ? &(x).o : NULL)
	rule(out, O(p->root_set), "root %s", root_names[p->root]);
	if (p->ws_dest)
		rule(out, O(p->ws_set), "workspace %s %s", ws_names[p->ws_mode], p->ws_dest);
	else
		rule(out, O(p->ws_set), "workspace %s", ws_names[p->ws_mode]);
	rule(out, O(p->net_set), "network %s", net_names[p->net]);
	if (p->caller_net.set)
		rule(out, O(p->caller_net), "allow-caller network");
	rule(out, O(p->env_base_set), "env %s", env_base_names[p->env_base]);
	rule(out, O(p->user_set), "user %s %u %u", p->user_name ? p->user_name : "", p->uid, p->gid);
	rule(out, O(p->id_mode_set), "identity %s", id_names[p->id_mode]);
	if (p->host_ids_set.set)
		rule(out, O(p->host_ids_set), "host-ids %u %u", p->host_uid, p->host_gid);
	if (p->sc_mode == SC_NONE)
		rule(out, O(p->sc_mode_set), "seccomp none");
	else   /* the group, never "default": the hash changes with the filter */
		rule(out, O(p->sc_mode_set), "seccomp osb-default-%u",
		     p->sc_group ? p->sc_group : seccomp_policy_group(NULL)->version);
	rule(out, O(p->landlock_set), "landlock %s", ll_names[p->landlock]);
	rule(out, O(p->hostname_set), "hostname %s", p->hostname ? p->hostname : "");
	for (size_t i = 0; i < LIM__COUNT; i++) {
		char v[32];

		if (!p->limit_set[i].set)
			continue;
		format_limit((enum limit_id)i, p->limits[i], v, sizeof(v));
		rule(out, O(p->limit_set[i]), "limit %s %s", osb_limit_names[i], v);
	}
#undef O
}

/* The effective policy in a fixed order, one rule a line: scalars, then
 * mounts by path, write paths, env lists and seccomp rules, each sorted.
 * Layout, comments, includes and the order of list directives leave no
 * trace; every semantic choice does. */
static int render(const osb_policy *p, FILE *out, bool origins)
{
	_cleanup_free_ const void **mounts = sorted(p->mounts, p->n_mounts, sizeof(*p->mounts), mount_cmp);
	_cleanup_free_ const void **pass = sorted(p->env_pass, p->n_env_pass, sizeof(*p->env_pass), str_cmp);
	_cleanup_free_ const void **deny = sorted(p->env_deny, p->n_env_deny, sizeof(*p->env_deny), str_cmp);
	_cleanup_free_ const void **set = sorted(p->env_set, p->n_env_set, sizeof(*p->env_set), env_set_cmp);
	_cleanup_free_ const void **roots = sorted(p->write_roots, p->n_write_roots,
	                                           sizeof(*p->write_roots), str_cmp);
	_cleanup_free_ const void **read_roots = sorted(p->read_roots, p->n_read_roots,
	                                                sizeof(*p->read_roots), str_cmp);
	_cleanup_free_ const void **writes = sorted(p->writes, p->n_writes, sizeof(*p->writes), str_cmp);
	_cleanup_free_ const void **ro = sorted(p->read_only, p->n_read_only, sizeof(*p->read_only), str_cmp);
	_cleanup_free_ const void **sc = sorted(p->sc_rules, p->n_sc_rules, sizeof(*p->sc_rules), sc_cmp);

	if (!mounts || !pass || !deny || !set || !roots || !read_roots || !writes || !ro || !sc)
		return -ENOMEM;
	fprintf(out, "osb-policy %d\n", OSB_POLICY_VERSION);
	render_scalars(p, out, origins);
	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = mounts[i];

		if (m->kind == MNT_SYMLINK)
			rule(out, origins ? &m->o : NULL, "symlink %s %s", m->target, m->path);
		else
			rule(out, origins ? &m->o : NULL, "%s %s", mount_names[m->kind], m->path);
	}
	render_strs(out, origins, "write-root", (const pol_str *const *)roots, p->n_write_roots);
	render_strs(out, origins, "read-root", (const pol_str *const *)read_roots, p->n_read_roots);
	render_strs(out, origins, "write", (const pol_str *const *)writes, p->n_writes);
	render_strs(out, origins, "read-only", (const pol_str *const *)ro, p->n_read_only);
	render_strs(out, origins, "env pass", (const pol_str *const *)pass, p->n_env_pass);
	render_strs(out, origins, "env deny", (const pol_str *const *)deny, p->n_env_deny);
	render_strs(out, origins, "env set", (const pol_str *const *)set, p->n_env_set);
	render_sc(out, origins, (const pol_sc *const *)sc, p->n_sc_rules);
	return 0;
}

static int render_string(const osb_policy *p, bool origins, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return -ENOMEM;
	r = render(p, f, origins);
	if (ferror(f))
		r = -ENOMEM;
	if (fclose(f) != 0)
		r = -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

int policy_canonical(const osb_policy *p, char **out)
{
	return render_string(p, false, out);
}

int osb_policy_hash(const osb_policy *p, char out[72])
{
	static const char hex[] = "0123456789abcdef";
	_cleanup_free_ char *text = NULL;
	uint8_t d[SHA256_DIGEST_LEN];

	if (!p || !out)
		return -OSB_E_USAGE;
	if (policy_canonical(p, &text) < 0)
		return -OSB_E_NOMEM;
	sha256(text, strlen(text), d);
	memcpy(out, "sha256:", 7);
	for (size_t i = 0; i < sizeof(d); i++) {
		out[7 + 2 * i] = hex[d[i] >> 4];
		out[8 + 2 * i] = hex[d[i] & 0xf];
	}
	out[71] = '\0';
	return 0;
}

char *osb_policy_explain(const osb_policy *p, unsigned flags)
{
	char *s = NULL;

	(void)flags;
	if (!p || render_string(p, true, &s) < 0)
		return NULL;
	return s;
}
