/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-caps.c — capabilities for osb-isolate-init without libcap: the init
 * is a static executable that must run in any view of the file system, and
 * its capability work is a handful of system calls (capget, capset and
 * prctl's PR_CAPBSET_READ, PR_CAPBSET_DROP and PR_CAP_AMBIENT). What libcap
 * still gave the init is the text a refusal names the capabilities in; it is
 * rebuilt here, in the form cap_to_text(3) and capsh print, so that the
 * messages read as they always did (tests/unit/check_initcaps.c compares the
 * two on many sets).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "init-caps.h"

/* The kernel's names, lower-case as libcap prints them (include/uapi/linux/
 * capability.h, Linux 5.9: CAP_CHECKPOINT_RESTORE is the last). */
static const char *const cap_names[] = {
	"cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner",
	"cap_fsetid", "cap_kill", "cap_setgid", "cap_setuid", "cap_setpcap",
	"cap_linux_immutable", "cap_net_bind_service", "cap_net_broadcast",
	"cap_net_admin", "cap_net_raw", "cap_ipc_lock", "cap_ipc_owner",
	"cap_sys_module", "cap_sys_rawio", "cap_sys_chroot", "cap_sys_ptrace",
	"cap_sys_pacct", "cap_sys_admin", "cap_sys_boot", "cap_sys_nice",
	"cap_sys_resource", "cap_sys_time", "cap_sys_tty_config", "cap_mknod",
	"cap_lease", "cap_audit_write", "cap_audit_control", "cap_setfcap",
	"cap_mac_override", "cap_mac_admin", "cap_syslog", "cap_wake_alarm",
	"cap_block_suspend", "cap_audit_read", "cap_perfmon", "cap_bpf",
	"cap_checkpoint_restore",
};
#define N_NAMES (sizeof(cap_names) / sizeof(cap_names[0]))
#define MAX_BITS 64u   /* two 32-bit words per set in capget v3 */

/* The flag bits of one capability's state, as the text form combines them. */
enum { ST_E = 1, ST_P = 2, ST_I = 4 };

unsigned caps_count(void)
{
	unsigned lo = 0, hi = MAX_BITS;

	/* The kernel answers for 0..cap_last_cap and refuses above: find the
	 * first refusal. No answer at all: assume the table's size. */
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (prctl(PR_CAPBSET_READ, (unsigned long)mid, 0, 0, 0) < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo == 0 || lo == MAX_BITS ? (unsigned)N_NAMES : lo;
}

const char *caps_name(unsigned cap, char *buf, size_t size)
{
	if (cap < N_NAMES)
		snprintf(buf, size, "%s", cap_names[cap]);
	else
		snprintf(buf, size, "%u", cap);
	return buf;
}

int caps_read(struct caps_sets *s)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return -errno;
	s->eff = (uint64_t)d[1].effective << 32 | d[0].effective;
	s->prm = (uint64_t)d[1].permitted << 32 | d[0].permitted;
	s->inh = (uint64_t)d[1].inheritable << 32 | d[0].inheritable;
	return 0;
}

int caps_clear(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	return syscall(SYS_capset, &h, d) == 0 ? 0 : -errno;
}

int caps_bound(unsigned cap)
{
	int r = prctl(PR_CAPBSET_READ, (unsigned long)cap, 0, 0, 0);

	return r < 0 ? -errno : r;
}

int caps_ambient(unsigned cap)
{
	int r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, (unsigned long)cap, 0, 0);

	return r < 0 ? -errno : r;
}

int caps_drop_bound(unsigned cap)
{
	return prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0, 0, 0) == 0 ? 0 : -errno;
}

/* ---- the text form --------------------------------------------------------- */

struct text {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len + 1 >= t->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n < t->size - t->len ? (size_t)n : t->size - t->len - 1;
}

static int state_of(const struct caps_sets *s, unsigned cap)
{
	uint64_t bit = 1ULL << cap;

	return ((s->eff & bit) ? ST_E : 0) | ((s->prm & bit) ? ST_P : 0) |
	       ((s->inh & bit) ? ST_I : 0);
}

/* The flags of a state in the text form's order: e, i, p. */
static void put_flags(struct text *t, char op, int st)
{
	put(t, "%c%s%s%s", op, (st & ST_E) ? "e" : "", (st & ST_I) ? "i" : "",
	    (st & ST_P) ? "p" : "");
}

/* " name,name,..." of the capabilities in [from, to) whose state is ST. */
static void put_names(struct text *t, const struct caps_sets *s, unsigned from, unsigned to,
		      int st)
{
	bool first = true;
	char name[24];

	for (unsigned c = from; c < to; c++) {
		if (state_of(s, c) != st)
			continue;
		put(t, "%s%s", first ? "" : ",", caps_name(c, name, sizeof(name)));
		first = false;
	}
}

/* The most common state among the named capabilities (the lowest state on a
 * tie): the text starts with it, "=ep", and lists only the exceptions. */
static int prevailing(const int histo[8])
{
	int m = 7;

	for (int st = 6; st >= 0; st--)
		if (histo[st] >= histo[m])
			m = st;
	return m;
}

void caps_text(const struct caps_sets *s, unsigned count, char *buf, size_t size)
{
	struct text t = { buf, size, 0 };
	int histo[8] = { 0 }, m;
	bool bare = true;   /* the text is still "=" with no flags and no group */

	if (size == 0)
		return;
	buf[0] = '\0';
	if (count > MAX_BITS)
		count = MAX_BITS;
	for (unsigned c = 0; c < count; c++)
		histo[state_of(s, c)]++;
	m = prevailing(histo);
	put_flags(&t, '=', m);
	bare = m == 0;
	for (int st = 7; st >= 0; st--) {
		if (st == m || histo[st] == 0)
			continue;
		/* "= cap_x+ep" is written "cap_x=ep" */
		if (bare && (st & ~m)) {
			t.len = 0;
			buf[0] = '\0';
		} else {
			put(&t, " ");
		}
		put_names(&t, s, 0, count, st);
		if (st & ~m)
			put_flags(&t, bare ? '=' : '+', st & ~m);
		if (m & ~st)
			put_flags(&t, '-', m & ~st);
		bare = false;
	}
	/* Bits above the kernel's last capability, by number, raised only. */
	for (int st = 7; st >= 1; st--) {
		bool any = false;

		for (unsigned c = count; c < MAX_BITS; c++)
			any = any || state_of(s, c) == st;
		if (!any)
			continue;
		put(&t, " ");
		put_names(&t, s, count, MAX_BITS, st);
		put_flags(&t, '+', st);
	}
}
