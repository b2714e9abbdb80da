/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* gen-default-filter.c — compile the seccomp groups at build time.
 *
 * Compiling a group with libseccomp takes milliseconds of CPU (rule
 * translation for three ABIs, then BPF generation), and every policy without
 * seccomp rules — both shipped ones — loads exactly one group's program. The
 * build runs this program once: it compiles every group through the very
 * code a launch uses (lib/filter.c, seccomp_build_fd_group) and writes the
 * programs as a C header, lib/seccomp-default.h, which lib/filter.c serves
 * instead of compiling them again. The libseccomp version is recorded with
 * them: a library that finds another version at run time compiles as
 * before, and tests/unit/check_seccomp.c proves the programs equal.
 *
 *   gen-default-filter > lib/seccomp-default.h
 */
#include "policy.h"
#include "filter.h"

#include <sys/stat.h>

static int read_all(int fd, unsigned char **out, size_t *len)
{
	struct stat st;
	size_t n = 0;

	if (fstat(fd, &st) < 0 || st.st_size <= 0)
		return -1;
	*out = malloc((size_t)st.st_size);
	if (!*out)
		return -1;
	while (n < (size_t)st.st_size) {
		ssize_t r = pread(fd, *out + n, (size_t)st.st_size - n, (off_t)n);

		if (r <= 0)
			return -1;
		n += (size_t)r;
	}
	*len = n;
	return 0;
}

/* One group's program as a C array named prebuilt_I. */
static int print_group(const sc_group *g, size_t i)
{
	unsigned char *bpf = NULL;
	osb_error err;
	size_t len = 0;
	int fd = -1;

	if (seccomp_build_fd_group(g, &fd, &err) < 0) {
		fprintf(stderr, "gen-default-filter: %s\n", err.message);
		return -1;
	}
	if (read_all(fd, &bpf, &len) < 0) {
		fprintf(stderr, "gen-default-filter: cannot read the %s program back\n", g->name);
		close(fd);
		free(bpf);
		return -1;
	}
	close(fd);
	printf("\n/* %s: %zu BPF instructions. */\nstatic const unsigned char prebuilt_%zu[%zu] = {",
	       g->name, len / 8, i, len);
	for (size_t k = 0; k < len; k++)
		printf("%s0x%02x,", k % 12 ? " " : "\n\t", bpf[k]);
	printf("\n};\n");
	free(bpf);
	return 0;
}

int main(void)
{
	const struct scmp_version *v = seccomp_version();
	size_t n;
	const sc_group *groups = seccomp_groups(&n);

	printf("/* seccomp-default.h — generated at build time by lib/gen-default-filter:\n"
	       " * every seccomp group compiled by libseccomp %u.%u.%u.\n"
	       " * Do not edit; do not commit. */\n", v->major, v->minor, v->micro);
	printf("#define PREBUILT_LIBSECCOMP_MAJOR %u\n#define PREBUILT_LIBSECCOMP_MINOR %u\n"
	       "#define PREBUILT_LIBSECCOMP_MICRO %u\n", v->major, v->minor, v->micro);
	for (size_t i = 0; i < n; i++)
		if (print_group(&groups[i], i) < 0)
			return 1;
	printf("\nstatic const prebuilt_program prebuilt_programs[] = {\n");
	for (size_t i = 0; i < n; i++)
		printf("\t{ \"%s\", prebuilt_%zu, sizeof(prebuilt_%zu) },\n", groups[i].name, i, i);
	printf("};\n");
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
