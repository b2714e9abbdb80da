/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* bpf-eval.h — a classic BPF interpreter for seccomp programs, for tests.
 *
 * The kernel runs a seccomp filter on struct seccomp_data (nr, arch,
 * instruction_pointer, args[6]). To test the rules of an ABI this host
 * cannot execute (i386 without IA-32 emulation, x32 without the x32 ABI),
 * tests/unit/check_seccomp.c runs the exact exported program here instead,
 * with the audit arch and syscall numbers of that ABI. The interpreter
 * accepts what the kernel's seccomp checker accepts (seccomp_check_filter:
 * 32-bit absolute loads inside seccomp_data, the classic ALU and jump
 * instructions, scratch memory, returns) and refuses anything else, so a
 * program it runs is one the kernel would load; the tests also check it
 * against the kernel's own answers on the native ABI.
 */
#ifndef OSB_TEST_BPF_EVAL_H
#define OSB_TEST_BPF_EVAL_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BPF_EVAL_BAD 0xdeadbeefU   /* not a seccomp return value */

static uint32_t bpf_eval_load(const struct seccomp_data *d, uint32_t k, const char **why)
{
	uint32_t v;

	if (k % 4 || k > sizeof(*d) - 4) {
		*why = "load outside struct seccomp_data";
		return 0;
	}
	memcpy(&v, (const char *)d + k, sizeof(v));
	return v;
}

static int bpf_eval_alu(uint16_t code, uint32_t *a, uint32_t src)
{
	switch (BPF_OP(code)) {
	case BPF_ADD: *a += src; return 0;
	case BPF_SUB: *a -= src; return 0;
	case BPF_MUL: *a *= src; return 0;
	case BPF_DIV: if (!src) return -1; *a /= src; return 0;
	case BPF_MOD: if (!src) return -1; *a %= src; return 0;
	case BPF_OR: *a |= src; return 0;
	case BPF_AND: *a &= src; return 0;
	case BPF_XOR: *a ^= src; return 0;
	case BPF_LSH: *a = src < 32 ? *a << src : 0; return 0;
	case BPF_RSH: *a = src < 32 ? *a >> src : 0; return 0;
	case BPF_NEG: *a = -*a; return 0;
	default: return -1;
	}
}

/* Taken or not; -1 for an unknown jump. */
static int bpf_eval_cond(uint16_t code, uint32_t a, uint32_t src)
{
	switch (BPF_OP(code)) {
	case BPF_JEQ: return a == src;
	case BPF_JGT: return a > src;
	case BPF_JGE: return a >= src;
	case BPF_JSET: return (a & src) != 0;
	default: return -1;
	}
}

/* The machine: accumulator, index register, scratch memory. */
typedef struct bpf_regs {
	uint32_t a, x, mem[BPF_MEMWORDS];
} bpf_regs;

/* BPF_LD, BPF_LDX, BPF_ST, BPF_STX: *WHY set for what the kernel refuses. */
static void bpf_eval_mem(const struct sock_filter *i, const struct seccomp_data *d, bpf_regs *r,
                         const char **why)
{
	uint16_t c = i->code;

	if (c == (BPF_LD | BPF_W | BPF_ABS))
		r->a = bpf_eval_load(d, i->k, why);
	else if (c == (BPF_LD | BPF_W | BPF_LEN))
		r->a = sizeof(*d);
	else if (c == (BPF_LD | BPF_IMM))
		r->a = i->k;
	else if (c == (BPF_LDX | BPF_W | BPF_LEN))
		r->x = sizeof(*d);
	else if (c == (BPF_LDX | BPF_IMM))
		r->x = i->k;
	else if (i->k >= BPF_MEMWORDS)
		*why = "scratch memory out of range";
	else if (c == (BPF_LD | BPF_MEM))
		r->a = r->mem[i->k];
	else if (c == (BPF_LDX | BPF_MEM))
		r->x = r->mem[i->k];
	else if (c == BPF_ST)
		r->mem[i->k] = r->a;
	else if (c == BPF_STX)
		r->mem[i->k] = r->x;
	else
		*why = "unknown load or store";
}

/* BPF_JMP: how far to skip (LEFT instructions remain after this one). */
static size_t bpf_eval_jmp(const struct sock_filter *i, const bpf_regs *r, size_t left,
                           const char **why)
{
	int t;

	if (BPF_OP(i->code) == BPF_JA) {
		if (i->k >= left)
			*why = "jump out of the program";
		return i->k;
	}
	t = bpf_eval_cond(i->code, r->a, BPF_SRC(i->code) == BPF_X ? r->x : i->k);
	if (t < 0)
		*why = "unknown jump";
	else if ((size_t)(t ? i->jt : i->jf) >= left)
		*why = "jump out of the program";
	return t > 0 ? i->jt : i->jf;
}

/* Run PROG[N] on D: the filter's return value, or BPF_EVAL_BAD with *WHY
 * set when the program is one the kernel would refuse. */
static uint32_t bpf_eval(const struct sock_filter *prog, size_t n, const struct seccomp_data *d,
                         const char **why)
{
	bpf_regs r;
	size_t pc = 0;

	memset(&r, 0, sizeof(r));
	*why = n == 0 || n > BPF_MAXINSNS ? "empty or too long" : NULL;
	while (!*why && pc < n) {
		const struct sock_filter *i = &prog[pc++];

		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
		case BPF_LDX:
		case BPF_ST:
		case BPF_STX:
			bpf_eval_mem(i, d, &r, why);
			break;
		case BPF_ALU:
			if (bpf_eval_alu(i->code, &r.a, BPF_SRC(i->code) == BPF_X ? r.x : i->k) < 0)
				*why = "unknown or faulting ALU instruction";
			break;
		case BPF_JMP:
			pc += bpf_eval_jmp(i, &r, n - pc, why);
			break;
		case BPF_RET:
			if (i->code == (BPF_RET | BPF_K))
				return i->k;
			if (i->code == (BPF_RET | BPF_A))
				return r.a;
			*why = "unknown return";
			break;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				r.x = r.a;
			else if (BPF_MISCOP(i->code) == BPF_TXA)
				r.a = r.x;
			else
				*why = "unknown misc instruction";
			break;
		default:
			*why = "unknown instruction class";
		}
	}
	if (!*why)
		*why = "ran off the end without a return";
	return BPF_EVAL_BAD;
}

#endif /* OSB_TEST_BPF_EVAL_H */
