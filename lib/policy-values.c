/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-values.c — the values of the policy language (policy-values.h).
 *
 * Quantities are whole numbers with a unit, paths are absolute and spelled
 * exactly one way, names are checked character by character, errno values
 * go by name; text must be UTF-8 with nothing invisible in it. Every rule
 * here serves the reviewer: two rules about the same thing always look the
 * same, and what the parser accepts is what a reader sees.
 */
#include "policy.h"
#include "utf8.h"

#include <stdarg.h>

#ifndef OSB_POLICY_DIR
#define OSB_POLICY_DIR "/usr/local/share/osb-isolate/policy"
#endif

#define SUGGEST_MAX_LEN 32   /* longer words get no "did you mean" */
#define ID_MAX 4294967294ULL /* (uint32_t)-1 means "no id" to the kernel */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *const osb_limit_names[LIM__COUNT] = {
	[LIM_WALL] = "wall", [LIM_CPUTIME] = "cputime", [LIM_AS] = "as",
	[LIM_NOFILE] = "nofile", [LIM_FSIZE] = "fsize", [LIM_NPROC] = "nproc",
	[LIM_OUTPUT] = "output", [LIM_MEMORY] = "memory", [LIM_PIDS] = "pids",
	[LIM_CPU] = "cpu",
};

/* Origins that are not a file; their line is 0 (policy.h). */
const char policy_origin_default[] = "default";
const char policy_origin_api[] = "api";

void policy_origin_format(const osb_origin *o, char *buf, size_t size)
{
	if (o->line)
		snprintf(buf, size, "%s:%u", o->file, o->line);
	else
		snprintf(buf, size, "%s", o->file ? o->file : policy_origin_default);
}

const char *const policy_root_names[2] = { [ROOT_HOST_RO] = "host-ro", [ROOT_NONE] = "none" };
const char *const policy_ws_names[4] = { [WS_NONE] = "none", [WS_RO] = "ro", [WS_RW] = "rw",
                                         [WS_OVERLAY] = "overlay" };
const char *const policy_net_names[3] = { [NET_NONE] = "none", [NET_HOST] = "host",
                                          [NET_ALLOW] = "allow" };
const char *const policy_env_base_names[2] = { [ENV_CLEAR] = "clear", [ENV_INHERIT] = "inherit" };
const char *const policy_id_names[3] = { [ID_AUTO] = "auto", [ID_USERNS] = "userns", [ID_ROOT] = "root" };
const char *const policy_sc_mode_names[2] = { [SC_DEFAULT] = "default", [SC_NONE] = "none" };
const char *const policy_ll_names[3] = { [LL_AUTO] = "auto", [LL_REQUIRED] = "required", [LL_OFF] = "off" };
const char *const policy_mount_names[6] = {
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

static char ascii_upper(char c)
{
	if (c >= 'a' && c <= 'z')
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[c - 'a'];
	return c;
}

static bool glob_match(const char *pattern, const char *name, bool nocase)
{
	const char *star = NULL, *resume = NULL;

	/* Greedy match with one backtrack point: linear in practice, and no
	 * recursion a hostile pattern could blow up. */
	while (*name) {
		if (*pattern == '*') {
			star = pattern++;
			resume = name;
		} else if (*pattern == '?' || *pattern == *name ||
		           (nocase && ascii_upper(*pattern) == ascii_upper(*name))) {
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

bool env_pattern_match(const char *pattern, const char *name)
{
	return glob_match(pattern, name, false);
}

/* Deny patterns ignore ASCII case (osb-isolate.policy(5), "env deny"): a
 * secret spelled in lower or mixed case is still a secret. */
bool env_deny_match(const char *pattern, const char *name)
{
	return glob_match(pattern, name, true);
}

const char *policy_clip(const char *s, clipbuf *b)
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
void policy_join_words(const char *const *words, size_t n, char *buf, size_t size)
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

const unit policy_duration_units[4] = {
	{ "ms", 1 }, { "s", 1000 }, { "m", 60 * 1000 }, { "h", 60 * 60 * 1000 },
};
const unit policy_size_units[8] = {
	{ "B", 1 }, { "KiB", 1ULL << 10 }, { "MiB", 1ULL << 20 }, { "GiB", 1ULL << 30 },
	{ "TiB", 1ULL << 40 }, { "K", 1ULL << 10 }, { "M", 1ULL << 20 }, { "G", 1ULL << 30 },
};

enum qerr policy_parse_quantity(const char *s, const unit *units, size_t n, uint64_t *out)
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
	return qerr_to_errno(policy_parse_quantity(s, policy_duration_units, ARRAY_SIZE(policy_duration_units), out));
}

int osb_parse_duration(const char *text, uint64_t *ms)
{
	uint64_t v;

	if (!text || !ms || parse_duration_ms(text, &v) < 0)
		return -OSB_E_USAGE;
	*ms = v;
	return 0;
}

int parse_size_bytes(const char *s, uint64_t *out)
{
	return qerr_to_errno(policy_parse_quantity(s, policy_size_units, ARRAY_SIZE(policy_size_units), out));
}

/* Digits with at most MAX_DEC decimals, scaled to thousandths (SCALE: 1000
 * for a fraction of a CPU, 10 for a percentage). */
static int parse_decimal(const char *s, size_t len, unsigned max_dec, uint64_t scale,
                         uint64_t *out)
{
	uint64_t whole = 0, frac = 0, div = 1;
	unsigned decimals = 0;
	size_t i = 0;

	if (len == 0 || !ascii_digit(s[0]))
		return -EINVAL;
	for (; i < len && ascii_digit(s[i]); i++) {
		if (whole > 100000000)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		if (++i == len)
			return -EINVAL;
		for (; i < len && ascii_digit(s[i]); i++) {
			if (++decimals > max_dec)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(s[i] - '0');
			div *= 10;
		}
	}
	if (i != len)
		return -EINVAL;
	*out = whole * scale + frac * scale / div;
	return 0;
}

int parse_cpu_share(const char *s, uint64_t *millis)
{
	size_t len = strlen(s);
	uint64_t q;
	int r;

	/* "2m", "90s": the seconds form of RLIMIT_CPU, spelt "limit cputime" now. */
	if (policy_parse_quantity(s, policy_duration_units, ARRAY_SIZE(policy_duration_units),
	                          &q) == Q_OK)
		return -EDOM;
	if (len > 0 && s[len - 1] == '%')
		r = parse_decimal(s, len - 1, 1, 10, millis);
	else
		r = parse_decimal(s, len, 3, 1000, millis);
	if (r == 0 && *millis > 1024 * 1000)
		r = -ERANGE;
	return r;
}

int policy_limit_parse(unsigned id, const char *s, uint64_t *out)
{
	int r;

	if (strcmp(s, "unlimited") == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	switch (id) {
	case LIM_CPU:
		return parse_cpu_share(s, out) < 0 ? -EINVAL : *out ? 0 : -EINVAL;
	case LIM_WALL:
		return parse_duration_ms(s, out) < 0 || *out == 0 ? -EINVAL : 0;
	case LIM_CPUTIME:
		if (parse_duration_ms(s, out) < 0 || *out == 0 || *out % 1000)
			return -EINVAL;
		*out /= 1000;
		return 0;
	case LIM_AS: case LIM_FSIZE: case LIM_OUTPUT: case LIM_MEMORY:
		r = parse_size_bytes(s, out);
		return r < 0 || (id == LIM_MEMORY && *out == 0) ? -EINVAL : 0;
	default:
		r = qerr_to_errno(policy_parse_quantity(s, NULL, 0, out));
		return r < 0 || (id == LIM_PIDS && *out == 0) ? -EINVAL : 0;
	}
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

void policy_format_limit(unsigned id, uint64_t v, char *buf, size_t size)
{
	switch (id) {
	case LIM_WALL:
		format_quantity(v, policy_duration_units, ARRAY_SIZE(policy_duration_units), buf, size);
		break;
	case LIM_CPUTIME:
		format_quantity(v == UINT64_MAX ? v : v * 1000, policy_duration_units,
		                ARRAY_SIZE(policy_duration_units), buf, size);
		break;
	case LIM_CPU:
		/* Thousandths of a CPU as a percentage: 500 is "50%", 125 "12.5%". */
		if (v == UINT64_MAX)
			snprintf(buf, size, "unlimited");
		else if (v % 10 == 0)
			snprintf(buf, size, "%llu%%", (unsigned long long)(v / 10));
		else
			snprintf(buf, size, "%llu.%llu%%", (unsigned long long)(v / 10),
			         (unsigned long long)(v % 10));
		break;
	case LIM_AS: case LIM_FSIZE: case LIM_OUTPUT: case LIM_MEMORY:
		/* K/M/G are input aliases; render the IEC names. */
		format_quantity(v, policy_size_units, 5, buf, size);
		break;
	default:
		format_quantity(v, NULL, 0, buf, size);
		break;
	}
}

/* ---- text checks --------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at S (0 if invalid); *CP its value. */
size_t policy_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
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
bool policy_invisible(uint32_t cp)
{
	return utf8_invisible(cp);
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
		n = policy_utf8_decode(u + i, len - i, &cp);
		if (n == 0)
			return "is not valid UTF-8";
		if (policy_invisible(cp))
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
const char *policy_rel_problem(const char *rel)
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
const char *policy_errno_suggest(const char *word)
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

bool policy_user_name_ok(const char *s)
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
bool policy_hostname_ok(const char *s)
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
int policy_parse_id(const char *s, uint32_t *out)
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

bool policy_bare_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(ascii_alpha(*s) || ascii_digit(*s) || *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

/* NAME.policy unless NAME already ends in ".policy". */
char *policy_file_name(const char *name)
{
	size_t len = strlen(name), sfx = strlen(".policy");
	char *s = NULL;

	if (len > sfx && strcmp(name + len - sfx, ".policy") == 0)
		return strdup(name);
	if (asprintf(&s, "%s.policy", name) < 0)
		return NULL;
	return s;
}

