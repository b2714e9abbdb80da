/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_bwrap.c — the bwrap argv builder and feature detection.
 *
 * The argv must come out in fixed segment order whatever the order of the
 * policy's directives, and features must be read from --help text exactly
 * (an option that is a prefix of another must not count).
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <sys/sysmacros.h>

#include "bwrap.h"
#include "layer.h"
#include "helpcache.h"
#include "host.h"

static char *join(const strv *v)
{
	size_t n = 1;
	char *s, *p;

	for (size_t i = 0; i < v->n; i++)
		n += strlen(v->v[i]) + 1;
	s = p = malloc(n);
	for (size_t i = 0; i < v->n; i++)
		p += snprintf(p, n - (size_t)(p - s), "%s%s", i ? " " : "", v->v[i]);
	*p = '\0';
	return s;
}

#define TRUE_CMD ((const char *const[]){ "true", NULL })

static osb_origin O(unsigned line) { return (osb_origin){ "t.policy", line, 0 }; }

START_TEST(test_argv_segment_order_independent_of_file_order)
{
	pol_mount mounts[] = {
		{ MNT_HIDE, "/srv", O(2), NULL, 0 },     /* hides come last */
		{ MNT_TMPFS, "/tmp", O(3), NULL, 0 },
		{ MNT_RO_BIND, "/usr", O(4), NULL, 0 },
		{ MNT_PROC, "/proc", O(5), NULL, 0 },
		{ MNT_DEV, "/dev", O(6), NULL, 0 },
		{ MNT_TMPFS, "/run", O(7), NULL, 1048576 },
	};
	osb_policy p = { 0 };
	plan_bind binds[] = {
		{ .fd = -1, .target = 11, .dest = "/usr", .writable = false },
		{ .fd = -1, .target = 12, .dest = "/home/u/ws", .writable = true },
	};
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s;

	p.root = ROOT_HOST_RO;
	/* Every bind is audited by the inode verified on the host. */
	binds[1].dev = makedev(254, 1);
	binds[1].ino = 4242;
	p.mounts = mounts;
	p.n_mounts = 6;
	p.net = NET_NONE;
	p.uid = 1000;
	p.gid = 1000;
	p.hostname = "sandbox";
	p.limits[LIM_NOFILE] = 64;
	p.limit_set[LIM_NOFILE].set = true;
	pl.p = &p;
	pl.bwrap = "/usr/bin/bwrap";
	pl.userns = true;
	pl.uid = pl.gid = 1000;
	pl.feat.disable_userns = true;
	pl.binds = binds;
	pl.n_binds = 2;
	pl.cwd = "/home/u/ws";
	pl.wall_ms = 5000;   /* kept by the init as well */

	ck_assert_int_eq(bwrap_argv_run(&pl, (const char *const[]){ "id", "-u", NULL }, &argv, &err), 0);
	s = join(&argv);
	ck_assert_str_eq(s,
		"/usr/bin/bwrap --as-pid-1 --unshare-user --disable-userns --uid 1000 --gid 1000 "
		"--unshare-pid --unshare-ipc --unshare-uts --unshare-net --hostname sandbox "
		"--die-with-parent --new-session --json-status-fd 3 "
		"--ro-bind / / "
		"--dev /dev --perms 1777 --size 67108864 --tmpfs /dev/shm "
		"--perms 1777 --size 1048576 --tmpfs /run --perms 1777 --tmpfs /tmp --proc /proc "
		"--ro-bind-fd 11 /usr "
		"--bind-fd 12 /home/u/ws "
		"--perms 0555 --size 4096 --tmpfs /srv --remount-ro /srv "
		"--perms 0644 --ro-bind-data 8 /etc/passwd --perms 0644 --ro-bind-data 9 /etc/group "
		"--remount-ro /dev "
		"--chdir / -- /proc/self/fd/6 --error-fd 5 --proto 9 --stderr-fd 4 --seccomp-fd 7 "
		"--audit-mounts --writable /home/u/ws --writable /tmp --writable /proc --writable /dev/shm "
		"--writable /run "
		"--expect-bind 0:0:0:/usr --expect-bind 254:1:4242:/home/u/ws "
		"--dev-mount /dev --landlock auto --landlock-rw /home/u/ws --landlock-rw /tmp "
		"--landlock-rw /proc --landlock-rw /dev/shm --landlock-rw /run --landlock-rw /dev "
		"--rlimit=nofile=64 --expect-uid 1000 --expect-gid 1000 --chdir /home/u/ws "
		"--watch-full /run --env-fd 10 --deadline-ms=5000 -- id -u");
	free(s);
	strv_free(&argv);
}
END_TEST

/* A read-only rule inside the writable workspace is never a bwrap
 * destination (bwrap would resolve it by path through the workspace, which
 * another sandbox can change during setup, and create it on the host): the
 * init gets it (--reprotect, with the verified inode) and the capabilities
 * for its mount step, in both identity modes. */
START_TEST(test_read_only_rule_in_workspace_made_by_init_not_bwrap)
{
	osb_policy p = { 0 };
	plan_bind binds[] = {
		{ .fd = -1, .target = 11, .dest = "/ws", .writable = true, .dev = makedev(254, 1),
		  .ino = 7 },
		{ .fd = -1, .target = 12, .dest = "/ws/.git/hooks", .reprotect = true,
		  .dev = makedev(254, 1), .ino = 8 },
		{ .fd = -1, .target = 13, .dest = "/ws/.git/config", .reprotect = true,
		  .dev = makedev(254, 1), .ino = 9 },
	};
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s;

	p.uid = p.gid = 1000;
	p.ws_mode = WS_RW;
	p.root = ROOT_HOST_RO;
	pl.p = &p;
	pl.bwrap = "bwrap";
	pl.uid = pl.gid = 1000;
	pl.binds = binds;
	pl.n_binds = 3;
	pl.cwd = "/ws";
	for (int userns = 0; userns <= 1; userns++) {
		pl.userns = userns;
		ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
		s = join(&argv);
		ck_assert_ptr_null(strstr(s, "/ws/.git"
		                          " --"));   /* as a bwrap destination */
		ck_assert_ptr_null(strstr(s, "-fd 12 "));
		ck_assert_ptr_null(strstr(s, "-fd 13 "));
		ck_assert_ptr_nonnull(strstr(s, " --bind-fd 11 /ws --perms 0644 --ro-bind-data 8 "));
		ck_assert_ptr_nonnull(strstr(s, " --expect-bind 254:1:7:/ws "
		                             "--reprotect 254:1:8:/ws/.git/hooks "
		                             "--reprotect 254:1:9:/ws/.git/config "));
		ck_assert_ptr_nonnull(strstr(s, " --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP "));
		free(s);
		strv_free(&argv);
	}
}
END_TEST

/* A persisted overlay layer (lib/layer.h): bound writable by its fd after
 * the hides, in the dev mount, verified by the first audit (--expect-bind,
 * --overlay-layer) but neither a writable mount of the plan nor a Landlock
 * grant; "root none" without a dev mount puts it at the root, a policy
 * with neither and a host root in its first tmpfs, or nowhere. */
START_TEST(test_persisted_layer_bound_last_at_a_hidden_place)
{
	pol_mount mounts[] = {
		{ .kind = MNT_DEV, .path = "/dev" }, { .kind = MNT_TMPFS, .path = "/tmp" },
		{ .kind = MNT_HIDE, .path = "/srv" },
	};
	osb_policy p = { 0 };
	plan_bind binds[] = {
		{ .fd = -1, .target = 11, .dest = "/ws", .dev = makedev(254, 1), .ino = 7 },
		{ .fd = -1, .target = 12, .dest = "/dev/.osb-layer", .writable = true, .layer = true,
		  .dev = makedev(254, 1), .ino = 9 },
	};
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s, *d;

	p.uid = p.gid = 1000;
	p.ws_mode = WS_OVERLAY;
	p.mounts = mounts;
	p.n_mounts = 3;
	pl.p = &p;
	pl.bwrap = "bwrap";
	pl.userns = true;
	pl.uid = pl.gid = 1000;
	pl.binds = binds;
	pl.n_binds = 1;
	pl.ws_dest = "/ws";
	pl.overlay_size = 65536;
	pl.cwd = "/ws";
	pl.seccomp_fd = -1;
	d = layer_hidden_dest(&pl);
	ck_assert_str_eq(d, "/dev/.osb-layer");
	free(d);
	pl.n_binds = 2;
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --ro-bind-fd 11 /ws --perms 0555 --size 4096 --tmpfs /srv "
	                             "--remount-ro /srv --bind-fd 12 /dev/.osb-layer --perms 0644 "));
	ck_assert_ptr_null(strstr(s, "--writable /dev/.osb-layer"));
	ck_assert_ptr_null(strstr(s, "--landlock-rw /dev/.osb-layer"));
	ck_assert_ptr_nonnull(strstr(s, " --expect-bind 254:1:7:/ws --expect-bind "
	                             "254:1:9:/dev/.osb-layer --dev-mount /dev --overlay 65536:user:/ws "
	                             "--overlay-layer /dev/.osb-layer --landlock "));
	free(s);
	strv_free(&argv);
	pl.n_binds = 1;
	p.mounts = mounts + 1;
	p.n_mounts = 2;
	p.root = ROOT_NONE;
	d = layer_hidden_dest(&pl);
	ck_assert_str_eq(d, "/.osb-layer");
	free(d);
	p.root = ROOT_HOST_RO;
	d = layer_hidden_dest(&pl);
	ck_assert_str_eq(d, "/tmp/.osb-layer");
	free(d);
	p.n_mounts = 0;
	ck_assert_ptr_null(layer_hidden_dest(&pl));
}
END_TEST

/* An overlay workspace: bound read-only, mounted by the init (its size, the
 * xattr namespace of the mode), writable for Landlock, and the capabilities
 * of the init's overlay step granted in both modes. */
START_TEST(test_overlay_workspace_bound_ro_and_mounted_by_init)
{
	osb_policy p = { 0 };
	plan_bind binds[] = { { .fd = -1, .target = 11, .dest = "/ws", .writable = false,
	                        .dev = makedev(254, 1), .ino = 7 } };
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s;

	p.uid = p.gid = 1000;
	p.ws_mode = WS_OVERLAY;
	pl.p = &p;
	pl.bwrap = "bwrap";
	pl.userns = true;
	pl.uid = pl.gid = 1000;
	pl.binds = binds;
	pl.n_binds = 1;
	pl.ws_dest = "/ws";
	pl.overlay_size = 65536;
	pl.cwd = "/ws";
	pl.seccomp_fd = -1;
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --gid 1000 --cap-add CAP_SYS_ADMIN --cap-add CAP_CHOWN "
	                             "--cap-add CAP_DAC_OVERRIDE --cap-add CAP_FOWNER --cap-add "
	                             "CAP_FSETID --cap-add CAP_SETPCAP --unshare-pid "));
	ck_assert_ptr_nonnull(strstr(s, " --ro-bind-fd 11 /ws "));
	ck_assert_ptr_null(strstr(s, "--writable /ws"));
	ck_assert_ptr_nonnull(strstr(s, " --expect-bind 254:1:7:/ws --overlay 65536:user:/ws "
	                             "--landlock auto --landlock-rw /ws "));
	free(s);
	strv_free(&argv);
	pl.userns = false;
	pl.host.uid = pl.host.gid = 600000;
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --cap-add CAP_DAC_READ_SEARCH --cap-add CAP_SYS_ADMIN "));
	ck_assert_ptr_nonnull(strstr(s, " --overlay 65536:trusted:/ws "));
	free(s);
	strv_free(&argv);
}
END_TEST

/* Parents of a bind inside a fresh tmpfs are made 0755 (bwrap would make
 * them 0700, unreachable for a real uid in root mode); nothing is created
 * outside a tmpfs the plan mounts. */
START_TEST(test_bind_parents_created_only_inside_fresh_tmpfs)
{
	pol_mount mounts[] = { { MNT_TMPFS, "/tmp", O(3), NULL, 0 }, { MNT_PROC, "/proc", O(4), NULL, 0 } };
	osb_policy p = { 0 };
	plan_bind binds[] = {
		{ .fd = -1, .target = 11, .dest = "/tmp/a/b/ws", .writable = true },
		{ .fd = -1, .target = 12, .dest = "/srv/data/x", .writable = true },
	};
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s, *from, *to;

	p.mounts = mounts;
	p.n_mounts = 2;
	p.uid = p.gid = 1000;
	pl.p = &p;
	pl.bwrap = "bwrap";
	pl.binds = binds;
	pl.n_binds = 2;
	pl.cwd = "/";
	pl.seccomp_fd = -1;
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	from = strstr(s, "--proc /proc ");
	to = strstr(s, " --audit-mounts");
	ck_assert_ptr_nonnull(from);
	ck_assert_ptr_nonnull(to);
	*to = '\0';
	ck_assert_str_eq(from, "--proc /proc --perms 0755 --dir /tmp/a --perms 0755 --dir /tmp/a/b "
	                 "--bind-fd 11 /tmp/a/b/ws --bind-fd 12 /srv/data/x "
	                 "--perms 0644 --ro-bind-data 8 /etc/passwd --perms 0644 --ro-bind-data 9 "
	                 "/etc/group --chdir / -- /proc/self/fd/6 --error-fd 5 --proto 9 --stderr-fd 4");
	free(s);
	strv_free(&argv);
}
END_TEST

/* "root none": bwrap's root is a fresh tmpfs, so every missing parent of a
 * bind is made 0755 there (bwrap would make it 0700, unreachable for the
 * sandbox's uid in root mode), but never inside a bound host directory. */
START_TEST(test_root_none_bind_parents_made_reachable)
{
	pol_mount mounts[] = { { MNT_RO_BIND, "/usr", O(3), NULL, 0 }, { MNT_PROC, "/proc", O(4), NULL, 0 } };
	osb_policy p = { 0 };
	plan_bind binds[] = {
		{ .fd = -1, .target = 11, .dest = "/usr", .writable = false },
		{ .fd = -1, .target = 12, .dest = "/srv/w/ws", .writable = true },
		{ .fd = -1, .target = 13, .dest = "/usr/local/x/y", .writable = true },
	};
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s;

	p.root = ROOT_NONE;
	p.mounts = mounts;
	p.n_mounts = 2;
	pl.p = &p;
	pl.bwrap = "bwrap";
	pl.uid = pl.gid = 1879048193;
	pl.host = (hostid){ HOSTID_ALLOCATED, 1879048193, 1879048193, -1 };
	pl.binds = binds;
	pl.n_binds = 3;
	pl.cwd = "/srv/w/ws";
	pl.seccomp_fd = -1;
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --ro-bind-fd 11 /usr --perms 0755 --dir /srv "
	                             "--perms 0755 --dir /srv/w --bind-fd 12 /srv/w/ws "
	                             "--bind-fd 13 /usr/local/x/y "));
	/* Root mode: the init switches to the host ids, then enters the cwd. */
	ck_assert_ptr_nonnull(strstr(s, " --switch-ids=1879048193:1879048193 --chdir /srv/w/ws "
	                             "--env-fd 10 -- true"));
	ck_assert_ptr_nonnull(strstr(s, " --remount-ro / --chdir / -- "));
	free(s);
	strv_free(&argv);
}
END_TEST

/* A userns plan of policy P with a /proc cover to make: two read-only
 * entries, a masked file and a masked directory. */
static void proc_cover_plan(plan *pl, osb_policy *p)
{
	pl->p = p;
	pl->bwrap = "bwrap";
	pl->userns = true;
	pl->uid = pl->gid = 1000;
	pl->cwd = "/";
	pl->seccomp_fd = -1;
	pl->proc = (proc_facts){ .ro = { "sys", "sysrq-trigger" }, .n_ro = 2,
	                         .mask_files = { "kcore" }, .n_mask_files = 1,
	                         .mask_dirs = { "acpi" }, .n_mask_dirs = 1 };
}

/* /proc is covered as the OCI runtimes' defaults do, and the init is told
 * to audit each cover. Without a "dev /dev" (no /dev/null of the sandbox's
 * own) bwrap makes the cover. */
START_TEST(test_proc_cover_and_audit)
{
	pol_mount mounts[] = { { MNT_PROC, "/proc", O(4), NULL, 0 } };
	osb_policy p = { 0 };
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s;

	p.mounts = mounts;
	p.n_mounts = 1;
	proc_cover_plan(&pl, &p);
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --proc /proc --ro-bind /proc/sys /proc/sys "
	                             "--ro-bind /proc/sysrq-trigger /proc/sysrq-trigger "
	                             "--ro-bind /dev/null /proc/kcore --perms 0555 --size 4096 "
	                             "--tmpfs /proc/acpi --remount-ro /proc/acpi "));
	ck_assert_ptr_nonnull(strstr(s, " --proc-ro /proc/sys --proc-ro /proc/sysrq-trigger "
	                             "--proc-masked /proc/kcore --proc-masked /proc/acpi "));
	ck_assert_ptr_null(strstr(s, "--make-cover"));
	ck_assert_ptr_null(strstr(s, "--cap-add"));
	free(s);
	strv_free(&argv);
}
END_TEST

/* With "dev /dev" the init makes the cover (told to, and granted what it
 * needs for that step alone), not bwrap: no bind of bwrap's is left over
 * /proc. */
START_TEST(test_proc_cover_made_by_the_init)
{
	pol_mount mounts[] = { { MNT_PROC, "/proc", O(4), NULL, 0 }, { MNT_DEV, "/dev", O(5), NULL, 0 } };
	osb_policy p = { 0 };
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s;

	p.mounts = mounts;
	p.n_mounts = 2;
	proc_cover_plan(&pl, &p);
	strv_push(&pl.masks, "/etc/shadow");
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --unshare-user --uid 1000 --gid 1000 --cap-add "
	                             "CAP_SYS_ADMIN --cap-add CAP_SETPCAP --unshare-pid "));
	ck_assert_ptr_null(strstr(s, "/dev/null"));
	ck_assert_ptr_null(strstr(s, "--ro-bind /proc"));
	ck_assert_ptr_null(strstr(s, "--tmpfs /proc"));
	ck_assert_ptr_nonnull(strstr(s, " --make-cover --proc-ro /proc/sys --proc-ro "
	                             "/proc/sysrq-trigger --proc-masked /proc/kcore --proc-masked "
	                             "/proc/acpi --masked /etc/shadow "));
	free(s);
	strv_free(&argv);
	/* Root mode keeps root's CAP_SYS_ADMIN for the step (and CAP_SETPCAP,
	 * which it keeps anyway). */
	pl.userns = false;
	pl.host.uid = pl.host.gid = 70000;
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --cap-add CAP_DAC_READ_SEARCH --cap-add CAP_SYS_ADMIN "
	                             "--cap-add CAP_SETPCAP --unshare-pid "));
	ck_assert_ptr_nonnull(strstr(s, " --make-cover "));
	free(s);
	strv_free(&argv);
	/* Nothing to cover: nothing granted, nothing asked. */
	pl.userns = true;
	pl.proc = (proc_facts){ .n_ro = 0 };
	strv_free(&pl.masks);
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_null(strstr(s, "--cap-add"));
	ck_assert_ptr_null(strstr(s, "--make-cover"));
	free(s);
	strv_free(&argv);
}
END_TEST

/* The curated view: synthesized files and masks after every bind, the
 * symlinks last (nothing is ever mounted through one), then the root made
 * read-only; the init audits each mask and each synthesized file; the
 * synthesized files' fds follow the bind sources, and a session's socket
 * follows them. */
START_TEST(test_view_files_masks_and_symlinks)
{
	pol_mount mounts[] = {
		{ MNT_SYMLINK, "/bin", O(5), "usr/bin", 0 }, { MNT_RO_BIND, "/usr", O(3), NULL, 0 },
		{ MNT_PROC, "/proc", O(4), NULL, 0 },
	};
	osb_policy p = { 0 };
	plan_bind binds[] = { { .fd = -1, .target = 11, .dest = "/usr", .writable = false } };
	plan pl = { 0 };
	strv argv = { 0 };
	osb_error err;
	char *s;

	p.root = ROOT_NONE;
	p.mounts = mounts;
	p.n_mounts = 3;
	pl.p = &p;
	pl.bwrap = "bwrap";
	pl.userns = true;
	pl.uid = pl.gid = 1000;
	pl.binds = binds;
	pl.n_binds = 1;
	pl.cwd = "/";
	pl.seccomp_fd = -1;
	pl.data[0] = (plan_data){ -1, "/etc/hostname", false };
	pl.data[1] = (plan_data){ -1, "/proc/loadavg", true };
	pl.n_data = 2;
	strv_push(&pl.masks, "/etc/shadow");
	ck_assert_int_eq(plan_next_fd(&pl), 14);
	ck_assert_int_eq(bwrap_argv_run(&pl, TRUE_CMD, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --proc /proc --perms 0444 --ro-bind-data 13 /proc/loadavg "
	                             "--ro-bind-fd 11 /usr "));
	ck_assert_ptr_nonnull(strstr(s, " --ro-bind-data 9 /etc/group --perms 0644 --ro-bind-data 12 "
	                             "/etc/hostname --ro-bind /dev/null /etc/shadow "
	                             "--symlink usr/bin /bin --remount-ro / --chdir / -- "));
	ck_assert_ptr_nonnull(strstr(s, " --masked /etc/shadow --synthesized /etc/hostname "
	                             "--synthesized /proc/loadavg "));
	free(s);
	strv_free(&argv);
	ck_assert_int_eq(bwrap_argv_session(&pl, 0, &argv, &err), 0);
	s = join(&argv);
	ck_assert_ptr_nonnull(strstr(s, " --session-fd=14"));
	free(s);
	strv_free(&argv);
	strv_free(&pl.masks);
}
END_TEST

START_TEST(test_help_parsing_needs_exact_option_names)
{
	bwrap_features f;

	bwrap_parse_help("    --bind SRC DEST   Bind\n    --ro-bind SRC DEST  x\n"
	                 "    --json-status-fd FD  x\n", &f);
	ck_assert(!f.bind_fd);
	ck_assert(f.json_status_fd);
	ck_assert(!f.disable_userns);
	bwrap_parse_help("    --bind-fd FD DEST  x\n    --ro-bind-fd FD DEST  x\n"
	                 "    --disable-userns   x\n", &f);
	ck_assert(f.bind_fd);
	ck_assert(f.disable_userns);
	/* Only one of the pair is not enough. */
	bwrap_parse_help("    --bind-fd FD DEST  x\n", &f);
	ck_assert(!f.bind_fd);
	/* A longer option that starts with the name does not count. */
	bwrap_parse_help("    --disable-userns-now  x\n", &f);
	ck_assert(!f.disable_userns);
}
END_TEST

START_TEST(test_dest_within_is_component_wise)
{
	ck_assert(dest_within("/data/x", "/data"));
	ck_assert(dest_within("/data", "/data"));
	ck_assert(!dest_within("/database/x", "/data"));
	ck_assert(!dest_within("/dat", "/data"));
	ck_assert(dest_within("/anything", "/"));
}
END_TEST

/* Pins FACTS: Debian 12's bwrap 0.8.0 carries the --bind-fd backport. */
START_TEST(test_host_bwrap_features_detected_from_help)
{
	host_facts h;
	osb_error err;

	ck_assert_int_eq(host_facts_get(NULL, &h, &err), 0);
	ck_assert_int_eq(h.bwrap_state, BWRAP_OK);
	ck_assert(h.feat.bind_fd);
	ck_assert(h.feat.disable_userns);
	ck_assert(h.feat.json_status_fd);
	host_facts_free(&h);
	/* The second call is answered from the cache, identically. */
	ck_assert_int_eq(host_facts_get(NULL, &h, &err), 0);
	ck_assert(h.feat.bind_fd);
	host_facts_free(&h);
}
END_TEST

/* One lookup order: the configured path, which is not then looked for on
 * PATH. */
START_TEST(test_missing_bwrap_is_a_fact)
{
	host_facts h;
	osb_error err;

	ck_assert_int_eq(host_facts_get(&(host_paths){ .bwrap = (char *)"/nonexistent/bwrap" }, &h, &err), 0);
	ck_assert_int_eq(h.bwrap_state, BWRAP_MISSING);
	ck_assert_int_eq(h.bwrap_from, BWRAP_FROM_CONFIG);
	ck_assert_int_eq(h.bwrap_errno, ENOENT);
	ck_assert_str_eq(h.bwrap_tried, "/nonexistent/bwrap");
	ck_assert_ptr_null(h.bwrap);
	host_facts_free(&h);
}
END_TEST

/* The file kept between processes (helpcache.c): what is stored comes back
 * for the same path and key only; a file changed behind its back (cut
 * short, another path, another key, more bytes) is not trusted. */
START_TEST(test_help_cache_file_round_trip_and_refusals)
{
	char dir[] = "/tmp/osb-helpcache.XXXXXX", file[PATH_MAX];
	struct stat st = { .st_dev = 8, .st_ino = 42, .st_size = 1000 };
	helpcache_key k, other;
	char *text, *got, *cut;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	helpcache_set_dir(dir);
	st.st_mtim.tv_sec = 1700000000;
	st.st_ctim.tv_sec = 1700000001;
	st.st_ctim.tv_nsec = 5;
	helpcache_key_of(&st, &k);
	ck_assert_ptr_null(helpcache_load("/usr/bin/bwrap", &k));
	helpcache_store("/usr/bin/bwrap", &k, "usage: bwrap [OPTIONS...]\n    --help\n");
	got = helpcache_load("/usr/bin/bwrap", &k);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, "usage: bwrap [OPTIONS...]\n    --help\n");
	free(got);
	ck_assert_ptr_null(helpcache_load("/usr/local/bin/bwrap", &k));
	other = k;
	other.ctime.tv_nsec = 6;
	ck_assert(!helpcache_key_eq(&k, &other));
	ck_assert_ptr_null(helpcache_load("/usr/bin/bwrap", &other));
	other = k;
	other.size = 1001;
	ck_assert_ptr_null(helpcache_load("/usr/bin/bwrap", &other));
	/* Cut short by a byte, or a byte more: the length in the key line
	 * no longer matches. */
	file[0] = '\0';
	{
		DIR *d = opendir(dir);
		struct dirent *e;

		ck_assert_ptr_nonnull(d);
		while ((e = readdir(d)))
			if (strncmp(e->d_name, "bwrap-help.", 11) == 0)
				snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		closedir(d);
	}
	ck_assert_msg(file[0], "no bwrap-help.* file in %s", dir);
	ck_assert_int_eq(read_file_bounded(file, 1 << 20, &text, &(size_t){ 0 }), 0);
	cut = strndup(text, strlen(text) - 1);
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fputs(cut, f);
	fclose(f);
	ck_assert_ptr_null(helpcache_load("/usr/bin/bwrap", &k));
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%sx", text);
	fclose(f);
	ck_assert_ptr_null(helpcache_load("/usr/bin/bwrap", &k));
	/* A path with a newline is never stored (it would forge a line). */
	helpcache_store("/x\nbwrap", &k, "usage: x\n");
	ck_assert_ptr_null(helpcache_load("/x\nbwrap", &k));
	helpcache_forget("/usr/bin/bwrap");
	ck_assert_int_eq(access(file, F_OK), -1);
	helpcache_set_dir(NULL);
	free(text);
	free(cut);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *bwrap_suite(void)
{
	Suite *s = suite_create("bwrap");
	TCase *tc = tcase_create("core");
	TCase *host = tcase_create("host");

	tcase_add_test(tc, test_argv_segment_order_independent_of_file_order);
	tcase_add_test(tc, test_overlay_workspace_bound_ro_and_mounted_by_init);
	tcase_add_test(tc, test_persisted_layer_bound_last_at_a_hidden_place);
	tcase_add_test(tc, test_read_only_rule_in_workspace_made_by_init_not_bwrap);
	tcase_add_test(tc, test_help_parsing_needs_exact_option_names);
	tcase_add_test(tc, test_bind_parents_created_only_inside_fresh_tmpfs);
	tcase_add_test(tc, test_root_none_bind_parents_made_reachable);
	tcase_add_test(tc, test_proc_cover_and_audit);
	tcase_add_test(tc, test_proc_cover_made_by_the_init);
	tcase_add_test(tc, test_view_files_masks_and_symlinks);
	tcase_add_test(tc, test_dest_within_is_component_wise);
	tcase_add_test(tc, test_help_cache_file_round_trip_and_refusals);
	suite_add_tcase(s, tc);
	/* Gathers the host facts: a user-namespace attempt and bwrap --help,
	 * through pidfd_open, which valgrind 3.19 lacks. */
	tcase_set_tags(host, "sandbox");
	tcase_add_test(host, test_host_bwrap_features_detected_from_help);
	tcase_add_test(host, test_missing_bwrap_is_a_fact);
	suite_add_tcase(s, host);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bwrap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
