/* gen-default-filter.c — compile the default seccomp group at build time.
 *
 * Compiling osb-default-1 with libseccomp takes milliseconds of CPU (rule
 * translation for three ABIs, then BPF generation), and every policy without
 * seccomp rules — both shipped ones — loads exactly that program. The build
 * runs this program once: it compiles the group through the very code a
 * launch uses (lib/seccomp.c, seccomp_build_fd_from) and writes the program
 * as a C header, lib/seccomp-default.h, which lib/seccomp.c serves instead
 * of compiling it again. The libseccomp version is recorded with it: a
 * library that finds another version at run time compiles as before, and
 * tests/unit/check_seccomp.c proves the two programs equal.
 *
 *   gen-default-filter > lib/seccomp-default.h
 */
#include "internal.h"
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

int main(void)
{
	const struct scmp_version *v = seccomp_version();
	const sc_rule *rules;
	unsigned char *bpf = NULL;
	osb_error err;
	size_t n, len = 0;
	int fd = -1;

	rules = seccomp_default_group(&n);
	if (seccomp_build_fd_from(seccomp_group_name(), rules, n, &fd, &err) < 0) {
		fprintf(stderr, "gen-default-filter: %s\n", err.message);
		return 1;
	}
	if (read_all(fd, &bpf, &len) < 0) {
		fprintf(stderr, "gen-default-filter: cannot read the compiled program back\n");
		return 1;
	}
	printf("/* seccomp-default.h — generated at build time by lib/gen-default-filter:\n"
	       " * the %s group compiled by libseccomp %u.%u.%u (%zu BPF instructions).\n"
	       " * Do not edit; do not commit. */\n", seccomp_group_name(), v->major, v->minor,
	       v->micro, len / 8);
	printf("#define DEFAULT_BPF_LIBSECCOMP_MAJOR %u\n#define DEFAULT_BPF_LIBSECCOMP_MINOR %u\n"
	       "#define DEFAULT_BPF_LIBSECCOMP_MICRO %u\n", v->major, v->minor, v->micro);
	printf("static const unsigned char default_bpf[%zu] = {", len);
	for (size_t i = 0; i < len; i++)
		printf("%s0x%02x,", i % 12 ? " " : "\n\t", bpf[i]);
	printf("\n};\n");
	free(bpf);
	close(fd);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
