/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* identity.c — the /etc/passwd and /etc/group the sandbox sees.
 *
 * The plan mounts these synthesized files read-only over the host's, so the
 * sandbox learns nothing about host accounts and tools that look up their
 * own user (whoami, ssh, pip) still work. Each file names at most three
 * accounts: root, the sandbox user and nobody (nogroup). The
 * sandbox user's entry always wins a clash: a built-in line that shares its
 * id or its name is left out, so every id and every name appears once and a
 * lookup by either finds the account the command really runs as. When the
 * policy runs the command as uid 0 (a userns view), that account is root
 * (with a login shell and the sandbox's home); gid 0 is always group root.
 * /etc/hostname and /etc/hosts say the policy's host name, the one uname(2)
 * reports inside, so that nothing in /etc names the host.
 */
#include "identity.h"

#define NOBODY_ID 65534u
#define DEFAULT_USER "sandbox"

typedef struct account {
	const char *name;
	uint32_t id, gid;
	const char *home, *shell;
} account;

/* A passwd/group field must not split or add lines. */
static bool field_ok(const char *s)
{
	return s && s[0] && !strpbrk(s, ":\n");
}

static const char *sandbox_name(const osb_policy *p, uint32_t uid)
{
	if (uid == 0)
		return "root";
	return p->user_name ? p->user_name : DEFAULT_USER;
}

/* Write root, the sandbox account and nobody (ACCTS[0..2]) to a fresh
 * string, leaving out a built-in that clashes with the sandbox account
 * ACCTS[1]. GROUP selects the group(5) format instead of passwd(5). */
static int write_accounts(const account accts[3], bool group, char **out)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < 3; i++) {
		const account *a = &accts[i];

		if (i != 1 && (a->id == accts[1].id || strcmp(a->name, accts[1].name) == 0))
			continue;
		if (group)
			fprintf(f, "%s:x:%u:\n", a->name, a->id);
		else
			fprintf(f, "%s:x:%u:%u:%s:%s:%s\n", a->name, a->id, a->gid,
			        a->name, a->home, a->shell);
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return -ENOMEM;
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

int identity_passwd(const osb_policy *p, uint32_t uid, uint32_t gid, const char *home,
                    char **out)
{
	const char *name = sandbox_name(p, uid);
	account accts[3] = {
		{ "root", 0, 0, "/root", "/usr/sbin/nologin" },
		{ name, uid, gid, home, "/bin/sh" },
		{ "nobody", NOBODY_ID, NOBODY_ID, "/nonexistent", "/usr/sbin/nologin" },
	};

	if (!field_ok(name) || (home && !field_ok(home)))
		return -EINVAL;
	if (!home)
		accts[1].home = uid == 0 ? "/root" : "/";
	return write_accounts(accts, false, out);
}

int identity_group(const osb_policy *p, uint32_t uid, uint32_t gid, char **out)
{
	/* gid 0 is "root" for the same reason uid 0 is: tools expect it. */
	const char *name = gid == 0 ? "root" : sandbox_name(p, uid);
	const account accts[3] = {
		{ "root", 0, 0, NULL, NULL },
		{ name, gid, gid, NULL, NULL },
		{ "nogroup", NOBODY_ID, NOBODY_ID, NULL, NULL },
	};

	if (!field_ok(name))
		return -EINVAL;
	return write_accounts(accts, true, out);
}

static const char *host_name(const osb_policy *p)
{
	return p->hostname ? p->hostname : "sandbox";
}

int identity_hostname(const osb_policy *p, char **out)
{
	return asprintf(out, "%s\n", host_name(p)) < 0 ? -ENOMEM : 0;
}

/* Debian's layout: localhost, the host name on 127.0.1.1, the IPv6
 * loopback and multicast names. */
int identity_hosts(const osb_policy *p, char **out)
{
	return asprintf(out, "127.0.0.1\tlocalhost\n127.0.1.1\t%s\n"
	                "::1\tlocalhost ip6-localhost ip6-loopback\n"
	                "ff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n", host_name(p)) < 0
	       ? -ENOMEM : 0;
}
