/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* result-net.c — the "network" member of a result and its accessors
 * (result-net.h; osb-isolate(1), "RESULT").
 *
 * A user whose install failed should read "refused: pypi.org:443" rather
 * than a bare timeout: the proxy's decisions are read back from its log
 * once the sandbox has ended, the refusals counted by destination, and the
 * log itself kept so that the result carries every decision. The log is
 * bounded (NETPROXY_LOG_MAX): one that was full says how many lines it
 * dropped, and so does the result ("truncated", "dropped").
 */
#include "result-net.h"
#include "netallow.h"

#include <sys/stat.h>

int result_set_network(osb_result *r, const netproxy *np, long from, long dropped_from)
{
	struct stat st;
	size_t len = 0;
	ssize_t got;

	result_net_free(r);
	r->net_known = true;
	if (netproxy_read_log(np, from, &r->net_refused, &r->n_net_refused, &r->net_allowed) < 0)
		return -ENOMEM;
	if (np->log_fd >= 0 && fstat(np->log_fd, &st) == 0 && st.st_size > from)
		len = (size_t)(st.st_size - from) < NETPROXY_LOG_MAX ? (size_t)(st.st_size - from)
		                                                     : NETPROXY_LOG_MAX;
	if (!(r->net_log = malloc(len + 1)))
		return -ENOMEM;
	got = len ? pread(np->log_fd, r->net_log, len, from) : 0;
	r->net_log[got > 0 ? got : 0] = '\0';
	dropped_from = netproxy_log_dropped(np) - dropped_from;
	r->net_dropped = dropped_from > 0 ? (unsigned long)dropped_from : 0;
	return 0;
}

void result_net_free(osb_result *r)
{
	netproxy_refusals_free(r->net_refused, r->n_net_refused);
	free(r->net_log);
	r->net_refused = NULL;
	r->n_net_refused = 0;
	r->net_log = NULL;
	r->net_allowed = 0;
	r->net_dropped = 0;
	r->net_known = false;
}

static json_object *refused_json(const osb_result *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < r->n_net_refused; i++) {
		json_object *e = json_object_new_object();

		if (!e || json_object_array_add(a, e) < 0) {
			json_object_put(e);
			json_object_put(a);
			return NULL;
		}
		json_object_object_add(e, "host", json_object_new_string(r->net_refused[i].host));
		json_object_object_add(e, "port", json_object_new_int((int)r->net_refused[i].port));
		json_object_object_add(e, "count", json_object_new_uint64(r->net_refused[i].count));
	}
	return a;
}

/* Is O the marker of a full log rather than a decision? */
static bool is_marker(json_object *o)
{
	json_object *a;

	return json_object_object_get_ex(o, "action", &a) &&
	       strcmp(json_object_get_string(a), "truncated") == 0;
}

/* The log's lines as objects: the proxy writes one JSON object a decision,
 * and the marker, which the result says as "truncated" and "dropped". */
static json_object *log_json(const osb_result *r)
{
	json_object *a = json_object_new_array();
	char *copy = r->net_log ? strdup(r->net_log) : NULL, *save = NULL;

	if (r->net_log && !copy) {
		json_object_put(a);
		return NULL;
	}
	for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; a && l; l = strtok_r(NULL, "\n", &save)) {
		json_object *o = l[0] == '{' ? json_tokener_parse(l) : NULL;

		if (o && (is_marker(o) || json_object_array_add(a, o) < 0))
			json_object_put(o);
	}
	free(copy);
	return a;
}

json_object *result_net_json(const osb_result *r)
{
	json_object *o, *ref, *log;

	if (!r->net_known)
		return NULL;
	o = json_object_new_object();
	ref = refused_json(r);
	log = log_json(r);
	if (!o || !ref || !log) {
		json_object_put(o);
		json_object_put(ref);
		json_object_put(log);
		return NULL;
	}
	json_object_object_add(o, "allowed", json_object_new_uint64(r->net_allowed));
	json_object_object_add(o, "refused", ref);
	json_object_object_add(o, "connections", log);
	json_object_object_add(o, "truncated", json_object_new_boolean(r->net_dropped > 0));
	json_object_object_add(o, "dropped", json_object_new_uint64(r->net_dropped));
	return o;
}

long osb_result_network_allowed(const osb_result *r)
{
	return r && r->net_known ? (long)r->net_allowed : -1;
}

long osb_result_network_dropped(const osb_result *r)
{
	return r && r->net_known ? (long)r->net_dropped : -1;
}

int osb_result_network_refused_count(const osb_result *r)
{
	return r && r->net_known ? (int)r->n_net_refused : -1;
}

const char *osb_result_network_refused(const osb_result *r, size_t i, unsigned *port,
                                       unsigned long *count)
{
	if (!r || !r->net_known || i >= r->n_net_refused)
		return NULL;
	if (port)
		*port = r->net_refused[i].port;
	if (count)
		*count = r->net_refused[i].count;
	return r->net_refused[i].host;
}
