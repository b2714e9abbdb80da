/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_overlay.c — unit tests for lib/overlay-diff.c: what an overlay's
 * upper layer changed over the workspace, with both layers built by hand in
 * the form overlayfs gives them (whiteouts are character devices 0:0, opaque
 * directories carry user.overlay.opaque "y"), so each case can hold what a
 * hostile sandbox could leave: symlinks to outside in either layer, a
 * symlinked directory under a real one, xattrs overlayfs was told not to
 * make, deep trees. tests/integration/overlay.sh checks the same lists made
 * by a real overlay in a real session. The broker's answer that hands the
 * upper layer over (lib/session-overlay.c) is read here from a socketpair,
 * in every shape a broken broker could send it.
 */
#include "overlay-diff.h"
#include "overlay-export.h"
#include "overlay-commit.h"
#include "sha256.h"
#include "session-overlay.h"
#include "init-proto.h"
#include "fd-count.h"
#include "util.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>

static char T[64];

__attribute__((format(printf, 1, 2)))
static const char *P(const char *fmt, ...)
{
	static char ring[8][PATH_MAX];
	static unsigned next;
	char *buf = ring[next++ % 8];
	int n = snprintf(buf, PATH_MAX, "%s/", T);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, PATH_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

static void mk_dir(const char *rel, mode_t mode)
{
	ck_assert_msg(mkdir(P("%s", rel), mode) == 0, "mkdir %s: %m", rel);
	ck_assert_int_eq(chmod(P("%s", rel), mode), 0);
}

static void mk_file(const char *rel, const char *content, mode_t mode)
{
	int fd = open(P("%s", rel), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	ck_assert_msg(fd >= 0, "create %s: %m", rel);
	ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	ck_assert_int_eq(chmod(P("%s", rel), mode), 0);
}

static void mk_link(const char *target, const char *rel)
{
	ck_assert_msg(symlink(target, P("%s", rel)) == 0, "symlink %s: %m", rel);
}

/* What overlayfs leaves for a deletion (mknod 0:0 needs no privilege). */
static void mk_whiteout(const char *rel)
{
	ck_assert_msg(mknod(P("%s", rel), S_IFCHR | 0, makedev(0, 0)) == 0, "whiteout %s: %m", rel);
}

static void mk_opaque(const char *rel)
{
	ck_assert_msg(setxattr(P("%s", rel), "user.overlay.opaque", "y", 1, 0) == 0,
	              "opaque %s: %m", rel);
}

static void setup(void)
{
	snprintf(T, sizeof(T), "/tmp/check_overlay.XXXXXX");
	ck_assert(mkdtemp(T) != NULL);
	mk_dir("lower", 0755);
	mk_dir("upper", 0755);
	mk_dir("outside", 0755);
	mk_file("outside/secret", "s\n", 0644);
}

static void teardown(void)
{
	char *argv[] = { "rm", "-rf", T, NULL };
	pid_t p = fork();

	if (p == 0) {
		execvp("rm", argv);
		_exit(127);
	}
	waitpid(p, NULL, 0);
}

/* The list as lines "K path [what] type/old_type mode/old_mode [-> target] [= link]". */
static void put(FILE *f, const osb_change *c)
{
	fprintf(f, "%c %s", "?AMD"[c->kind & 3], c->path);
	if (c->what)
		fprintf(f, " [%s%s%s%s]", c->what & OSB_CHANGED_TYPE ? "T" : "",
		        c->what & OSB_CHANGED_CONTENT ? "C" : "", c->what & OSB_CHANGED_TARGET ? "L" : "",
		        c->what & OSB_CHANGED_MODE ? "M" : "");
	fprintf(f, " %s/%s %04o/%04o", ovl_type_name(c->type) ? ovl_type_name(c->type) : "-",
	        ovl_type_name(c->old_type) ? ovl_type_name(c->old_type) : "-", c->mode, c->old_mode);
	if (c->target || c->old_target)
		fprintf(f, " -> %s/%s", c->target ? c->target : "-", c->old_target ? c->old_target : "-");
	if (c->hardlink)
		fprintf(f, " = %s", c->hardlink);
	fputc('\n', f);
}

/* Diff T/upper over T/lower; the list, or "error CODE ERRNO: message". */
static char *diff_text(void)
{
	int u = open(P("upper"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int l = open(P("lower"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	osb_diff *d = NULL;
	osb_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	ck_assert(u >= 0 && l >= 0 && f);
	r = ovl_diff(u, l, true, &d, &err);
	if (r < 0)
		fprintf(f, "error %d %d: %s", -r, err.sys_errno, err.message);
	for (size_t i = 0; r == 0 && i < osb_diff_count(d); i++)
		put(f, osb_diff_get(d, i));
	fclose(f);
	osb_diff_free(d);
	close(u);
	close(l);
	return buf;
}

static void expect(const char *want)
{
	char *got = diff_text();

	ck_assert_msg(strcmp(got, want) == 0, "want:\n%s\ngot:\n%s", want, got);
	free(got);
}

START_TEST(test_each_kind_of_change_is_listed_in_walk_order)
{
	mk_file("lower/a", "alpha\n", 0644);
	mk_file("lower/c", "gamma\n", 0644);
	mk_file("lower/e", "epsilon\n", 0644);
	mk_dir("lower/sub", 0755);
	mk_file("lower/sub/b", "beta\n", 0644);
	mk_dir("lower/dir", 0755);
	mk_file("lower/dir/x", "x\n", 0644);
	mk_dir("lower/opq", 0755);
	mk_file("lower/opq/p", "p\n", 0644);
	mk_file("lower/opq/y", "y\n", 0644);
	mk_link("a", "lower/link");
	/* append to a, hard-link it, rename c, chmod e, delete sub/b, replace
	 * dir by a file, replace opq by a new directory, retarget link. */
	mk_file("upper/a", "alpha\nmore\n", 0644);
	ck_assert_int_eq(link(P("upper/a"), P("upper/hard")), 0);
	mk_whiteout("upper/c");
	mk_file("upper/c2", "gamma\n", 0644);
	mk_file("upper/e", "epsilon\n", 0600);
	mk_dir("upper/sub", 0755);
	mk_whiteout("upper/sub/b");
	mk_file("upper/dir", "now-a-file\n", 0644);
	mk_dir("upper/opq", 0755);
	mk_opaque("upper/opq");
	mk_file("upper/opq/y", "y\n", 0644);
	mk_file("upper/opq/z", "z\n", 0640);
	mk_link("c2", "upper/link");
	ck_assert_int_eq(mkfifo(P("upper/fifo"), 0600), 0);
	expect("M a [C] file/file 0644/0644\n"
	       "D c -/file 0000/0644\n"
	       "A c2 file/- 0644/0000\n"
	       "M dir [T] file/dir 0644/0755\n"
	       "M e [M] file/file 0600/0644\n"
	       "A fifo fifo/- 0600/0000\n"
	       "A hard file/- 0644/0000 = a\n"
	       "M link [L] symlink/symlink 0777/0777 -> c2/a\n"
	       "D opq/p -/file 0000/0644\n"
	       "A opq/z file/- 0640/0000\n"
	       "D sub/b -/file 0000/0644\n");
}
END_TEST

START_TEST(test_copy_up_without_change_is_no_change)
{
	mk_file("lower/same", "data\n", 0644);
	mk_dir("lower/d", 0750);
	mk_file("upper/same", "data\n", 0644);
	mk_dir("upper/d", 0750);
	/* A whiteout of what the workspace does not have hides nothing. */
	mk_whiteout("upper/never");
	expect("");
}
END_TEST

START_TEST(test_same_size_other_bytes_is_a_content_change)
{
	mk_file("lower/f", "aaaa", 0644);
	mk_file("upper/f", "aaab", 0644);
	expect("M f [C] file/file 0644/0644\n");
}
END_TEST

/* A symlink in the workspace where the session made a directory, and one in
 * the upper layer where the workspace has a directory: neither is followed,
 * so nothing of "outside" is listed or read. */
START_TEST(test_symlinks_in_either_layer_are_never_followed)
{
	mk_link(P("outside"), "lower/lx");
	mk_dir("upper/lx", 0755);
	mk_file("upper/lx/secret", "mine\n", 0644);
	mk_dir("lower/ly", 0755);
	mk_file("lower/ly/f", "f\n", 0644);
	mk_link(P("outside"), "upper/ly");
	mk_link("/etc/passwd", "upper/pw");
	{
		char want[1024];

		snprintf(want, sizeof(want),
		         "M lx [T] dir/symlink 0755/0777 -> -/%s\n"
		         "A lx/secret file/- 0644/0000\n"
		         "M ly [T] symlink/dir 0777/0755 -> %s/-\n"
		         "A pw symlink/- 0777/0000 -> /etc/passwd/-\n", P("outside"), P("outside"));
		expect(want);
	}
	/* "outside" is untouched */
	ck_assert_int_eq(access(P("outside/secret"), F_OK), 0);
}
END_TEST

START_TEST(test_redirect_and_metacopy_are_refused_not_misread)
{
	mk_dir("lower/d", 0755);
	mk_dir("upper/d", 0755);
	ck_assert_int_eq(setxattr(P("upper/d"), "user.overlay.redirect", "/x", 2, 0), 0);
	{
		char *got = diff_text();

		ck_assert_msg(strncmp(got, "error 4099 22: overlay workspace: d: a renamed directory "
		                      "with a redirect", 60) == 0, "%s", got);
		free(got);
	}
	ck_assert_int_eq(removexattr(P("upper/d"), "user.overlay.redirect"), 0);
	mk_file("lower/f", "ffff", 0644);
	mk_file("upper/f", "ffff", 0644);
	ck_assert_int_eq(setxattr(P("upper/f"), "user.overlay.metacopy", "", 0, 0), 0);
	{
		char *got = diff_text();

		ck_assert_msg(strstr(got, "error 4099 22: overlay workspace: f: a metadata-only "
		                     "copy-up") == got, "%s", got);
		free(got);
	}
}
END_TEST

START_TEST(test_odd_opaque_value_is_refused)
{
	mk_dir("upper/d", 0755);
	ck_assert_int_eq(setxattr(P("upper/d"), "user.overlay.opaque", "x", 1, 0), 0);
	{
		char *got = diff_text();

		ck_assert_msg(strstr(got, "error 4099 22: overlay workspace: d: an opaque directory "
		                     "of a kind") == got, "%s", got);
		free(got);
	}
}
END_TEST

START_TEST(test_deeper_than_the_limit_is_refused)
{
	char rel[PATH_MAX] = "upper";
	char *got;

	for (unsigned i = 0; i <= OVL_MAX_DEPTH; i++) {
		strcat(rel, "/d");
		mk_dir(rel, 0755);
	}
	got = diff_text();
	ck_assert_msg(strstr(got, "error 4099 40: ") == got && strstr(got, "more than 256 directory "
	              "levels"), "%.200s", got);
	free(got);
}
END_TEST

/* A layer path beyond PATH_MAX (twenty directories of 250 bytes, made
 * beneath one another by fd) is refused, and the message still says why: the
 * path is cut, with its length, so that the reason fits (it was cut off
 * after 1023 bytes of path, with no reason at all). */
START_TEST(test_a_path_beyond_path_max_is_refused_with_its_reason)
{
	char name[251], *got;
	int fd = open(P("upper"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	memset(name, 'y', 250);
	name[250] = '\0';
	for (int i = 0; i < 20; i++) {
		int next;

		ck_assert_int_eq(mkdirat(fd, name, 0755), 0);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ge(next, 0);
		close(fd);
		fd = next;
	}
	close(fd);
	got = diff_text();
	ck_assert_msg(strstr(got, "error 4099 36: ") == got, "%.200s", got);
	ck_assert_msg(strstr(got, "/... (") && strstr(got, " bytes in all): a path longer than "
	              "PATH_MAX: File name too long"), "%s", got + strlen(got) - (strlen(got) > 200 ? 200 : 0));
	free(got);
}
END_TEST

/* The archive read back with libarchive: "T name size [-> link | = hard]" lines. */
static char *read_archive(int fd)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert(a && f && lseek(fd, 0, SEEK_SET) == 0);
	archive_read_support_format_tar(a);
	ck_assert_int_eq(archive_read_open_fd(a, fd, 10240), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		mode_t t = archive_entry_filetype(e);

		fprintf(f, "%c %s %lld", t == AE_IFDIR ? 'd' : t == AE_IFLNK ? 'l' : t == AE_IFIFO ? 'p' :
		        archive_entry_hardlink(e) ? 'h' : 'f', archive_entry_pathname(e),
		        (long long)archive_entry_size(e));
		if (archive_entry_symlink(e))
			fprintf(f, " -> %s", archive_entry_symlink(e));
		if (archive_entry_hardlink(e))
			fprintf(f, " = %s", archive_entry_hardlink(e));
		fputc('\n', f);
	}
	archive_read_free(a);
	fclose(f);
	return buf;
}

/* Export T/upper's changes over T/lower to a memfd: the listing, or the error. */
static char *export_text(void)
{
	int u = open(P("upper"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int l = open(P("lower"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd = memfd_create("tar", MFD_CLOEXEC);
	osb_diff *d = NULL;
	osb_error err;
	char *out = NULL;
	int r;

	ck_assert(u >= 0 && l >= 0 && fd >= 0);
	ck_assert_int_eq(ovl_diff(u, l, true, &d, &err), 0);
	r = ovl_export(u, d, fd, &err);
	if (r < 0)
		ck_assert(asprintf(&out, "error %d %d: %s (%lld bytes written)", -r, err.sys_errno,
		                   err.message, (long long)lseek(fd, 0, SEEK_END)) > 0);
	else
		out = read_archive(fd);
	osb_diff_free(d);
	close(fd);
	close(u);
	close(l);
	return out;
}

START_TEST(test_export_is_the_change_list_as_a_tar_layer)
{
	char *got;

	mk_file("lower/a", "alpha\n", 0644);
	mk_file("lower/gone", "g\n", 0644);
	mk_dir("lower/d", 0755);
	mk_file("lower/d/x", "x\n", 0644);
	mk_file("upper/a", "alpha\nmore\n", 0644);
	ck_assert_int_eq(link(P("upper/a"), P("upper/b")), 0);
	mk_whiteout("upper/gone");
	mk_dir("upper/d", 0755);
	mk_whiteout("upper/d/x");
	mk_dir("upper/n", 0700);
	mk_link("../a", "upper/n/l");
	ck_assert_int_eq(mkfifo(P("upper/n/p"), 0600), 0);
	got = export_text();
	ck_assert_str_eq(got, "f a 11\n"
	                      "h b 0 = a\n"
	                      "f d/.wh.x 0\n"
	                      "f .wh.gone 0\n"
	                      "d n/ 0\n"
	                      "l n/l 0 -> ../a\n"
	                      "p n/p 0\n");
	free(got);
}
END_TEST

START_TEST(test_export_refuses_what_a_tar_layer_cannot_say_before_writing)
{
	char *got;

	mk_file("upper/ok", "fine\n", 0644);
	mk_file("upper/.wh.trick", "not a deletion\n", 0644);
	got = export_text();
	ck_assert_str_eq(got, "error 4099 22: overlay workspace: .wh.trick: a name starting with "
	                 "\".wh.\" cannot be exported (the archive spells deletions so); rename it "
	                 "in the session (0 bytes written)");
	free(got);
}
END_TEST

/* Commit T/upper over T/lower: "" when it worked, else "CODE ERRNO:
 * message"; *REPORT (may be NULL) the report's text. */
static char *commit_text(bool rm_after_diff, char **report)
{
	int u = open(P("upper"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int l = open(P("lower"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	json_object *rep = NULL;
	osb_diff *d = NULL;
	osb_error err;
	char *out = NULL;
	int r;

	ck_assert(u >= 0 && l >= 0);
	ck_assert_int_eq(ovl_diff(u, l, true, &d, &err), 0);
	if (rm_after_diff)
		ck_assert_int_eq(unlink(P("upper/b")), 0);
	r = ovl_commit(u, l, d, &rep, &err);
	ck_assert(asprintf(&out, "%s%d %d: %s", r ? "" : "ok ", -r, r ? err.sys_errno : 0,
	                   r ? err.message : "") > 0);
	if (report)
		*report = strdup(json_object_to_json_string_ext(rep, JSON_C_TO_STRING_PLAIN |
		                                                      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(rep);
	osb_diff_free(d);
	close(u);
	close(l);
	return out;
}

START_TEST(test_commit_makes_the_workspace_what_the_session_saw)
{
	struct stat a, h, e, dd;
	char *got, buf[32] = "";

	mk_file("lower/a", "alpha\n", 0644);
	mk_file("lower/gone", "g\n", 0644);
	mk_dir("lower/d", 0755);
	mk_file("lower/d/x", "x\n", 0644);
	mk_file("lower/e", "e\n", 0644);
	mk_file("upper/a", "alpha\nmore\n", 0644);
	ck_assert_int_eq(link(P("upper/a"), P("upper/h")), 0);
	mk_whiteout("upper/gone");
	mk_file("upper/d", "now a file\n", 0640);
	mk_file("upper/e", "e\n", 04755);
	mk_dir("upper/n", 0755);
	mk_dir("upper/n/ro", 0755);
	mk_file("upper/n/ro/f", "f\n", 0600);
	ck_assert_int_eq(chmod(P("upper/n/ro"), 0555), 0);
	mk_link("../a", "upper/n/l");
	ck_assert_int_eq(mkfifo(P("upper/n/p"), 0620), 0);
	got = commit_text(false, NULL);
	ck_assert_str_eq(got, "ok 0 0: ");
	free(got);
	/* The same again: nothing is left to do. */
	got = diff_text();
	ck_assert_msg(strcmp(got, "M e [M] file/file 4755/0755\n") == 0, "%s", got);
	free(got);
	ck_assert_int_eq(stat(P("lower/a"), &a), 0);
	ck_assert_int_eq(stat(P("lower/h"), &h), 0);
	ck_assert(a.st_ino == h.st_ino && a.st_nlink == 2);
	ck_assert_int_eq(stat(P("lower/e"), &e), 0);
	ck_assert_int_eq(e.st_mode & 07777, 0755);   /* never the setuid bit */
	ck_assert_int_eq(stat(P("lower/n/ro"), &dd), 0);
	ck_assert_int_eq(dd.st_mode & 07777, 0555);
	ck_assert_int_eq(access(P("lower/n/ro/f"), F_OK), 0);
	ck_assert_int_eq(access(P("lower/gone"), F_OK), -1);
	ck_assert_int_eq(readlink(P("lower/n/l"), buf, sizeof(buf) - 1), 4);
	ck_assert_str_eq(buf, "../a");
	chmod(P("lower/n/ro"), 0755);
	chmod(P("upper/n/ro"), 0755);
}
END_TEST

START_TEST(test_commit_never_follows_a_symlink_of_either_layer)
{
	struct stat st;
	char *got;

	mk_link(P("outside"), "lower/lx");
	mk_dir("upper/lx", 0755);
	mk_file("upper/lx/secret", "mine\n", 0644);
	mk_dir("lower/ly", 0755);
	mk_file("lower/ly/f", "f\n", 0644);
	mk_link(P("outside"), "upper/ly");
	mk_link(P("outside/secret"), "upper/evil");
	got = commit_text(false, NULL);
	ck_assert_str_eq(got, "ok 0 0: ");
	free(got);
	ck_assert_int_eq(lstat(P("lower/lx"), &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(lstat(P("lower/ly"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(lstat(P("lower/evil"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	/* outside: its one file, unchanged */
	ck_assert_int_eq(stat(P("outside/secret"), &st), 0);
	ck_assert_int_eq(st.st_size, 2);
	ck_assert_int_eq(access(P("outside/f"), F_OK), -1);
}
END_TEST

START_TEST(test_commit_refused_before_the_first_write_applies_nothing)
{
	char *got, *rep = NULL;

	mk_file("upper/a", "a\n", 0644);
	mk_dir("upper/z", 0755);
	ck_assert_int_eq(mknod(P("upper/z/dev"), S_IFIFO | 0644, 0), 0);
	ck_assert_int_eq(unlink(P("upper/z/dev")), 0);
	{
		/* a socket: what a commit cannot make */
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", P("upper/z/sock"));
		ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
		close(s);
	}
	got = commit_text(false, &rep);
	ck_assert_str_eq(got, "4099 22: commit refused, nothing was applied: z/sock: a socket "
	                 "cannot be committed; remove it in the session");
	ck_assert_msg(strstr(rep, "\"committed\":false,\"changes\":3,\"applied\":[],"
	                     "\"not_applied\":[\"a\",\"z\",\"z/sock\"],\"failed\":{\"path\":"
	                     "\"z/sock\"") != NULL, "%s", rep);
	ck_assert_int_eq(access(P("lower/a"), F_OK), -1);
	ck_assert_int_eq(access(P("lower/z"), F_OK), -1);
	free(got);
	free(rep);
}
END_TEST

/* A step that fails after others were applied: the report says which. */
START_TEST(test_commit_stopped_late_says_what_was_and_was_not_applied)
{
	char *got, *rep = NULL;

	mk_file("upper/a", "a\n", 0644);
	mk_file("upper/b", "b\n", 0644);
	mk_file("upper/c", "c\n", 0644);
	got = commit_text(true, &rep);   /* b goes before the commit reads it */
	ck_assert_msg(strstr(got, "4099 2: commit stopped: ") == got &&
	              strstr(got, "; 1 of 3 changes were applied, 2 were not (the report lists "
	                     "them)"), "%s", got);
	ck_assert_msg(strstr(rep, "\"committed\":false,\"changes\":3,\"applied\":[\"a\"],"
	                     "\"not_applied\":[\"b\",\"c\"],\"failed\":{\"path\":\"b\"") != NULL,
	              "%s", rep);
	ck_assert_int_eq(access(P("lower/a"), F_OK), 0);
	ck_assert_int_eq(access(P("lower/c"), F_OK), -1);
	free(got);
	free(rep);
}
END_TEST

/* ---- what was reviewed is what is applied ----------------------------------------- */

/* Overwrite REL's bytes in place (same inode, same size). */
static void rewrite_in_place(const char *rel, off_t at, const char *bytes)
{
	int fd = open(P("%s", rel), O_WRONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "open %s: %m", rel);
	ck_assert_int_eq(pwrite(fd, bytes, strlen(bytes), at), (ssize_t)strlen(bytes));
	close(fd);
}

static void mk_big(const char *rel, size_t size)
{
	int fd = open(P("%s", rel), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	ck_assert_msg(fd >= 0, "create %s: %m", rel);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	close(fd);
}

/* The fingerprint of T/upper over T/lower now. */
static void fingerprint_now(uint8_t out[SHA256_DIGEST_LEN])
{
	int u = open(P("upper"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int l = open(P("lower"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	osb_diff *d = NULL;
	osb_error err;

	ck_assert(u >= 0 && l >= 0);
	ck_assert_int_eq(ovl_diff(u, l, true, &d, &err), 0);
	ovl_fingerprint(d, out);
	osb_diff_free(d);
	close(u);
	close(l);
}

/* The fingerprint a diff leaves is that of the list and of every added or
 * modified file's bytes: the same layer gives the same one, and bytes
 * changed in place (same size, same mode), a mode or a new name each give
 * another. */
START_TEST(test_fingerprint_covers_the_list_and_the_bytes)
{
	uint8_t a[SHA256_DIGEST_LEN], b[SHA256_DIGEST_LEN];

	mk_file("lower/m", "old\n", 0644);
	mk_file("upper/m", "new\n", 0644);
	mk_file("upper/n", "added\n", 0644);
	fingerprint_now(a);
	fingerprint_now(b);
	ck_assert(memcmp(a, b, sizeof(a)) == 0);
	rewrite_in_place("upper/n", 0, "ADDED");
	fingerprint_now(b);
	ck_assert_msg(memcmp(a, b, sizeof(a)) != 0, "an added file's bytes changed in place");
	memcpy(a, b, sizeof(a));
	rewrite_in_place("upper/m", 0, "NEW");
	fingerprint_now(b);
	ck_assert_msg(memcmp(a, b, sizeof(a)) != 0, "a modified file's bytes changed in place");
	memcpy(a, b, sizeof(a));
	ck_assert_int_eq(chmod(P("upper/n"), 0600), 0);
	fingerprint_now(b);
	ck_assert_msg(memcmp(a, b, sizeof(a)) != 0, "a mode changed");
	memcpy(a, b, sizeof(a));
	mk_file("upper/o", "", 0644);
	fingerprint_now(b);
	ck_assert_msg(memcmp(a, b, sizeof(a)) != 0, "a name added");
}
END_TEST

/* Commit what a diff listed after REL changed in place meanwhile. */
static char *commit_after_rewrite(const char *rel, off_t at, const char *bytes)
{
	int u = open(P("upper"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int l = open(P("lower"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	json_object *rep = NULL;
	osb_diff *d = NULL;
	osb_error err;
	char *out = NULL;
	int r;

	ck_assert(u >= 0 && l >= 0);
	ck_assert_int_eq(ovl_diff(u, l, true, &d, &err), 0);
	rewrite_in_place(rel, at, bytes);
	r = ovl_commit(u, l, d, &rep, &err);
	ck_assert(asprintf(&out, "%d %d: %s", -r, r ? err.sys_errno : 0, r ? err.message : "") > 0);
	json_object_put(rep);
	osb_diff_free(d);
	close(u);
	close(l);
	return out;
}

/* Bytes that change between the list and the commit (here after the diff
 * the commit was given) are caught as they are copied, small files read
 * whole and large ones streamed alike: that file is not applied, and no
 * temporary is left. */
START_TEST(test_commit_applies_only_the_bytes_the_list_hashed)
{
	char *got;
	DIR *dir;
	struct dirent *de;
	int names = 0;

	mk_file("upper/a", "reviewed\n", 0644);
	got = commit_after_rewrite("upper/a", 0, "EVIL!!!!");
	ck_assert_str_eq(got, "4105 116: commit stopped: a: changed while it was committed; 0 of 1 "
	                 "changes were applied, 1 were not (the report lists them)");
	free(got);
	ck_assert_int_eq(access(P("lower/a"), F_OK), -1);
	ck_assert_int_eq(unlink(P("upper/a")), 0);
	mk_big("upper/big", 3u << 20);
	got = commit_after_rewrite("upper/big", 2u << 20, "EVIL");
	ck_assert_str_eq(got, "4105 116: commit stopped: big: changed while it was committed; 0 of 1 "
	                 "changes were applied, 1 were not (the report lists them)");
	free(got);
	ck_assert_ptr_nonnull(dir = opendir(P("lower")));
	while ((de = readdir(dir)))
		names += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(dir);
	ck_assert_int_eq(names, 0);
}
END_TEST

/* An export checks the bytes it wrote against those the list hashed. */
START_TEST(test_export_refuses_bytes_changed_after_the_list)
{
	int u = open(P("upper"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int l = open(P("lower"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd = memfd_create("tar", MFD_CLOEXEC);
	osb_diff *d = NULL;
	osb_error err;

	ck_assert(u >= 0 && l >= 0 && fd >= 0);
	mk_file("upper/a", "reviewed\n", 0644);
	ck_assert_int_eq(ovl_diff(u, l, true, &d, &err), 0);
	rewrite_in_place("upper/a", 0, "EVIL!!!!");
	ck_assert_int_eq(ovl_export(u, d, fd, &err), -OSB_E_IO);
	ck_assert_str_eq(err.message, "overlay workspace: a: changed while it was exported");
	osb_diff_free(d);
	close(fd);
	close(u);
	close(l);
}
END_TEST

/* The names a list holds are bounded (128 MiB; a small bound here): a layer
 * with more is refused whole, whether its names are changes or copies that
 * change nothing, so a sandbox making millions of long names cannot make
 * the caller hold them all. */
START_TEST(test_names_beyond_the_bound_are_refused_not_held)
{
	char *got, rel[96];

	for (int i = 0; i < 100; i++) {
		snprintf(rel, sizeof(rel), "upper/a-rather-long-name-for-the-bound-%03d", i);
		mk_file(rel, "x", 0644);
	}
	ovl_set_test_name_limit(2048);
	got = diff_text();
	ck_assert_msg(strstr(got, "error 4099 7: overlay workspace: ") == got &&
	              strstr(got, ": more names than can be listed (2048 bytes of names at most)"),
	              "%.300s", got);
	free(got);
	for (int i = 0; i < 100; i++) {
		snprintf(rel, sizeof(rel), "upper/a-rather-long-name-for-the-bound-%03d", i);
		ck_assert_int_eq(unlink(P("%s", rel)), 0);
		snprintf(rel, sizeof(rel), "lower/same-%03d-a-rather-long-name-for-the-bound", i);
		mk_file(rel, "x", 0644);
		memcpy(rel, "upper", 5);
		mk_file(rel, "x", 0644);
	}
	got = diff_text();
	ck_assert_msg(strstr(got, "error 4099 7: overlay workspace: ") == got &&
	              strstr(got, ": more names than can be listed (2048 bytes of names at most)"),
	              "unchanged copies: %.300s", got);
	free(got);
	ovl_set_test_name_limit(0);
	expect("");
}
END_TEST

/* ---- the broker's answer ----------------------------------------------------------- */

/* Send a layer reply with error ERRNUM, LEN bytes of it (past a reply's
 * size: zeros), and NFDS fds of /dev/null (closed here once sent: only the
 * receiver holds them then). */
static void send_layer_reply(int sock, int32_t errnum, size_t len, int nfds)
{
	struct {
		struct session_layer_reply rp;
		char more[16];
	} m = { .rp = { .type = SESSION_LAYER_REPLY, .err = errnum } };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 4)]; } cm;
	struct iovec iov = { .iov_base = &m, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[4];

	ck_assert_int_le(nfds, 4);
	ck_assert_uint_le(len, sizeof(m));
	for (int i = 0; i < nfds; i++)
		ck_assert_int_ge(fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	if (nfds) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), fds, sizeof(int) * (size_t)nfds);
	}
	ck_assert_int_eq(sendmsg(sock, &mh, 0), (ssize_t)len);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}

#define NO_UPPER "the session's broker answered the layer request without exactly one fd " \
	"(the upper directory): the session is unusable; destroy it"
#define ENDED "the session ended before its broker answered"
#define STUCK "a process of the session did not end when it was killed; try again"
#define LONGER "the session's broker answered the layer request with more than a reply's " \
	"16 bytes: the session is unusable; destroy it"
#define MORE_FDS "the session's broker answered the layer request with more fds than fit " \
	"a reply: the session is unusable; destroy it"

/* A reply the library refuses closes every fd it brought: the caller is a
 * long-running daemon, and each would stay open in it. Three fds do not
 * fit the control buffer (MSG_CTRUNC): the two that arrive are closed too.
 * A packet longer than a reply (MSG_TRUNC) is not read as the reply its
 * first bytes make, for a get or a release. */
START_TEST(test_refused_layer_reply_closes_every_fd_it_brought)
{
	static const size_t size = sizeof(struct session_layer_reply);
	static const struct {
		int32_t err;
		size_t len;
		int nfds;
		bool want_fd;
		int code;
		const char *message;
	} cases[] = {
		{ 0, size, 2, true, OSB_E_SANDBOX, NO_UPPER },
		{ 0, size, 3, true, OSB_E_SANDBOX, MORE_FDS },
		{ 0, size, 3, false, OSB_E_SANDBOX, MORE_FDS },
		{ 0, size, 0, true, OSB_E_SANDBOX, NO_UPPER },
		{ EBUSY, size, 2, true, OSB_E_SANDBOX, STUCK },
		{ 0, size - 4, 2, true, OSB_E_SANDBOX, ENDED },
		{ 0, size + 1, 1, true, OSB_E_SANDBOX, LONGER },
		{ 0, size + 16, 1, true, OSB_E_SANDBOX, LONGER },
		{ 0, size + 16, 0, false, OSB_E_SANDBOX, LONGER },
		{ EBUSY, size + 16, 1, true, OSB_E_SANDBOX, LONGER },
	};

	ck_assert_uint_eq(size, 16);   /* as LONGER says */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		osb_error err = { 0 };
		int sv[2], fd = 7, before, r;

		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
		send_layer_reply(sv[0], cases[i].err, cases[i].len, cases[i].nfds);
		before = fd_count();
		r = session_layer_await(NULL, sv[1], cases[i].want_fd, &fd, &err);
		ck_assert_msg(fd_count() == before, "case %zu: %d fds open after the reply, %d "
		              "before", i, fd_count(), before);
		ck_assert_msg(r == -cases[i].code, "case %zu: %d (%s)", i, r, err.message);
		ck_assert_int_eq(fd, -1);
		ck_assert_str_eq(err.message, cases[i].message);
		close(sv[0]);
		close(sv[1]);
	}
}
END_TEST

/* The answers a broker gives: the upper directory for a get, nothing for
 * a release (where a stray fd is closed, not handed on). */
START_TEST(test_layer_reply_hands_over_exactly_the_upper_directory)
{
	osb_error err = { 0 };
	struct stat st;
	int sv[2], fd = -1, before;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	send_layer_reply(sv[0], 0, sizeof(struct session_layer_reply), 1);
	ck_assert_int_eq(session_layer_await(NULL, sv[1], true, &fd, &err), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
	close(fd);
	send_layer_reply(sv[0], 0, sizeof(struct session_layer_reply), 1);
	before = fd_count();
	ck_assert_int_eq(session_layer_await(NULL, sv[1], false, &fd, &err), 0);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(fd_count(), before);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

static Suite *overlay_suite(void)
{
	Suite *s = suite_create("overlay");
	TCase *tc = tcase_create("diff");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_each_kind_of_change_is_listed_in_walk_order);
	tcase_add_test(tc, test_copy_up_without_change_is_no_change);
	tcase_add_test(tc, test_same_size_other_bytes_is_a_content_change);
	tcase_add_test(tc, test_symlinks_in_either_layer_are_never_followed);
	tcase_add_test(tc, test_redirect_and_metacopy_are_refused_not_misread);
	tcase_add_test(tc, test_odd_opaque_value_is_refused);
	tcase_add_test(tc, test_deeper_than_the_limit_is_refused);
	tcase_add_test(tc, test_a_path_beyond_path_max_is_refused_with_its_reason);
	tcase_add_test(tc, test_export_is_the_change_list_as_a_tar_layer);
	tcase_add_test(tc, test_export_refuses_what_a_tar_layer_cannot_say_before_writing);
	tcase_add_test(tc, test_commit_makes_the_workspace_what_the_session_saw);
	tcase_add_test(tc, test_commit_never_follows_a_symlink_of_either_layer);
	tcase_add_test(tc, test_commit_refused_before_the_first_write_applies_nothing);
	tcase_add_test(tc, test_commit_stopped_late_says_what_was_and_was_not_applied);
	tcase_add_test(tc, test_fingerprint_covers_the_list_and_the_bytes);
	tcase_add_test(tc, test_commit_applies_only_the_bytes_the_list_hashed);
	tcase_add_test(tc, test_export_refuses_bytes_changed_after_the_list);
	tcase_add_test(tc, test_names_beyond_the_bound_are_refused_not_held);
	suite_add_tcase(s, tc);
	tc = tcase_create("reply");
	tcase_add_test(tc, test_refused_layer_reply_closes_every_fd_it_brought);
	tcase_add_test(tc, test_layer_reply_hands_over_exactly_the_upper_directory);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(overlay_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
