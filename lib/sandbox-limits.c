/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* sandbox-limits.c — the launch step that turns "limit memory", "limit pids" and
 * "limit cpu" into a cgroup of the sandbox's own (sandbox-limits.h).
 *
 * It runs in launch.c after the policy's own refusals and before bwrap
 * starts, so that bwrap and everything it starts enter the cgroup first
 * (proc.c's child writes the cgroup.procs files it is handed). The rule is
 * fail-closed: a limit this host cannot enforce refuses the launch with the
 * cgroup module's reason and remedy, unless the policy marked it
 * best-effort; then the launch goes on without it and the result names it
 * (osb-isolate.policy(5), "limit"). The cgroup module itself (cgroup.c)
 * finds where cgroups can be made and removes what killed callers left.
 */
#include "sandbox-limits.h"

static const enum limit_id ctrl_limit[CG__NCTRL] = {
	[CG_MEMORY] = LIM_MEMORY, [CG_PIDS] = LIM_PIDS, [CG_CPU] = LIM_CPU,
};

static bool limit_on(const osb_policy *p, enum limit_id id)
{
	return p->limit_set[id].set && p->limits[id] != UINT64_MAX;
}

bool limits_wanted(const osb_policy *p)
{
	for (int c = 0; c < CG__NCTRL; c++)
		if (limit_on(p, ctrl_limit[c]))
			return true;
	return false;
}

void limits_of_policy(const osb_policy *p, cgroup_limits *out)
{
	memset(out, 0, sizeof(*out));
	if (limit_on(p, LIM_MEMORY))
		out->memory_max = p->limits[LIM_MEMORY];   /* and no swap beyond it */
	if (limit_on(p, LIM_PIDS))
		out->pids_max = p->limits[LIM_PIDS];
	if (limit_on(p, LIM_CPU))
		out->cpu_millis = (uint32_t)p->limits[LIM_CPU];
}

void limits_names(unsigned mask, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < CG__NCTRL && used < size; c++) {
		int w;

		if (!(mask & CG_BIT(c)))
			continue;
		w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", cgroup_ctrl_names[c]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* Leave controller C out of LS->want. */
static void skip_ctrl(limits_state *ls, enum cg_ctrl c, const char *why)
{
	if (!ls->skipped)
		snprintf(ls->skipped_why, sizeof(ls->skipped_why), "limit %s: %s", cgroup_ctrl_names[c],
		         why);
	ls->skipped |= CG_BIT(c);
	if (c == CG_MEMORY)
		ls->want.memory_max = ls->want.swap_max = 0;
	else if (c == CG_PIDS)
		ls->want.pids_max = 0;
	else
		ls->want.cpu_millis = 0;
}

/* The refusal of limit ID, with where the policy set it. */
static int refuse(const osb_policy *p, enum limit_id id, const char *why, osb_error *err)
{
	_cleanup_free_ char *where = malloc(POLICY_ORIGIN_MAX);
	char v[32];

	if (!where)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "cgroup", "out of memory");
	policy_origin_format(&p->limit_set[id].o, where, POLICY_ORIGIN_MAX);
	policy_format_limit(id, p->limits[id], v, sizeof(v));
	return osb_err_set(err, OSB_E_HOST, ENODEV, "cgroup",
	                   "\"limit %s %s\" (%s) cannot be enforced on this host: %s; or mark it "
	                   "\"best-effort\" to run without it where it cannot hold",
	                   osb_limit_names[id], v, where, why);
}

int limits_decide(const osb_policy *p, const cgroup_host *h, limits_state *ls, osb_error *err)
{
	limits_of_policy(p, &ls->want);
	ls->skipped = 0;
	ls->skipped_why[0] = '\0';
	for (int c = 0; c < CG__NCTRL; c++) {
		enum limit_id id = ctrl_limit[c];
		const char *why = NULL;

		if (!limit_on(p, id) || cgroup_host_ctrl(h, (enum cg_ctrl)c, NULL, &why) > 0)
			continue;
		why = why && *why ? why : "no cgroup hierarchy here carries the controller";
		if (p->limit_best_effort & LIM_BIT(id)) {
			skip_ctrl(ls, (enum cg_ctrl)c, why);
			continue;
		}
		return refuse(p, id, why, err);
	}
	return 0;
}

int limits_prepare(const osb_policy *p, limits_state *ls, osb_error *err)
{
	cgroup_host *h = NULL;
	int r;

	if (!limits_wanted(p))
		return 0;
	if ((r = cgroup_host_probe(&(cgroup_probe_opts){ .parents = (const char *const *)p->cg_parents },
	                           &h, err)) < 0)
		return r;
	r = limits_decide(p, h, ls, err);
	if (r == 0 && (ls->want.memory_max || ls->want.pids_max || ls->want.cpu_millis))
		r = cgroup_create(h, &ls->want, &ls->cg, err);
	cgroup_host_free(h);
	return r;
}

void limits_release(limits_state *ls)
{
	if (ls->cg)
		cgroup_destroy(ls->cg, 5000);
	ls->cg = NULL;
}
