/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-caps.h — the capability sets of osb-isolate-init's own process, read
 * and lowered with capget(2), capset(2) and prctl(2) (helper/init-caps.c),
 * so that the static init needs no libcap. The init uses them for stage
 * "init:caps": drop the bounding set and empty every set in root mode, then
 * verify that nothing is left, naming what is (lib/init-proto.h).
 */
#ifndef OSB_INIT_CAPS_H
#define OSB_INIT_CAPS_H

#include <stddef.h>
#include <stdint.h>

/* The three per-process sets, one bit per capability (bit N = capability N). */
struct caps_sets {
	uint64_t eff, prm, inh;
};

/* How many capabilities the running kernel knows (cap_last_cap + 1), found
 * the way libcap's cap_max_bits() finds it: the lowest N the kernel's
 * PR_CAPBSET_READ refuses. */
unsigned caps_count(void);

/* "cap_chown" ... "cap_checkpoint_restore", or the decimal number of a
 * capability newer than the table, written into BUF. Returns BUF. */
const char *caps_name(unsigned cap, char *buf, size_t size);

/* The process's effective, permitted and inheritable sets (capget v3). 0 or
 * -errno. */
int caps_read(struct caps_sets *s);

/* Empties the effective, permitted and inheritable sets (capset v3); the
 * kernel then empties the ambient set too. Needs no privilege. 0 or -errno. */
int caps_clear(void);

/* 1 when CAP is in the bounding (caps_bound) or ambient (caps_ambient) set,
 * 0 when not, -errno when the kernel cannot say. */
int caps_bound(unsigned cap);
int caps_ambient(unsigned cap);

/* Drops CAP from the bounding set (needs CAP_SETPCAP). 0 or -errno. */
int caps_drop_bound(unsigned cap);

/* S in the text form of cap_to_text(3) (what capsh --print calls "Current"),
 * with COUNT named capabilities: "=ep cap_sys_resource-ep", "=" for empty
 * sets. Truncated to SIZE - 1 bytes if longer. */
void caps_text(const struct caps_sets *s, unsigned count, char *buf, size_t size);

#endif
