/*
 * selection.c - the hosts, cores and modules --host, --core and --module
 * keep (selection.h). One reading of each option for every command:
 * before, memory, ops and trace each had a copy of these tests, and they
 * disagreed (ops took no "TPU:0", memory took any 8-character prefix off
 * a name, the messages differed).
 */
#include "tpuprof/analyze/common/selection.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/decode/hlo.h"
#include "tpuprof/util/util.h"

bool tp_plane_is_core(const struct tp_plane *pl)
{
	return pl->kind == TP_PLANE_TPU || pl->kind == TP_PLANE_TPU_SPARSECORE ||
	       pl->kind == TP_PLANE_GPU;
}

bool tp_core_matches(const struct tp_plane *pl, const char *want)
{
	char ord[24];

	if (!want)
		return true;
	if (tp_str_eq(pl->name, want))
		return true;
	if (tp_str_has_prefix(pl->name, "/device:") &&
	    tp_str_eq(tp_str_make(pl->name.ptr + 8, pl->name.len - 8), want))
		return true;
	snprintf(ord, sizeof(ord), "%d", pl->device_ordinal);
	return pl->device_ordinal >= 0 && strcmp(ord, want) == 0;
}

bool tp_module_label_is(const char *want, const char *name, size_t name_len, const char *id)
{
	const char *hash = strrchr(want, '#');

	return hash && id && *id && hash > want && hash[-1] == ' ' &&
	       (size_t)(hash - 1 - want) == name_len && memcmp(want, name, name_len) == 0 &&
	       strcmp(hash + 1, id) == 0;
}

bool tp_module_matches(const struct tp_module *m, const char *want)
{
	char id[32];
	struct tp_str name;

	if (!want)
		return true;
	snprintf(id, sizeof(id), "%" PRIu64, m->program_id);
	name = tp_module_name(m);
	return tp_str_eq(name, want) || strcmp(id, want) == 0 ||
	       tp_module_label_is(want, name.ptr, name.len, id);
}

bool tp_plane_is_device(const struct tp_plane *pl)
{
	return tp_plane_is_core(pl) || pl->kind == TP_PLANE_CUSTOM;
}

bool tp_selection_core(const struct tp_selection *sel, const struct tp_plane *pl)
{
	return !sel->core || (tp_plane_is_device(pl) && tp_core_matches(pl, sel->core));
}

bool tp_selection_plane(const struct tp_selection *sel, size_t h,
			const struct tp_plane *pl)
{
	return tp_selection_host(sel, h) && tp_selection_core(sel, pl);
}

static bool module_host_kept(const struct tp_selection *sel,
			     const struct tp_module *m)
{
	/* a standalone HloProto or dump module belongs to no host */
	return m->host < 0 || tp_selection_host(sel, (size_t)m->host);
}

static enum tp_err keep_modules(struct tp_selection *sel, struct tp_capture *cap,
				struct tp_error *err)
{
	bool found = !sel->module;

	for (size_t i = 0; i < cap->n_modules; i++) {
		struct tp_module *m = &cap->modules[i];
		enum tp_err rc;

		if (!module_host_kept(sel, m))
			continue;
		/* a name or id to match: decoded first, for the name the HLO
		 * gives and the program id of a bare file */
		if (sel->module && (rc = tp_capture_decode_module(cap, m, err)) != TP_OK)
			return rc;
		sel->module_kept[i] = !m->damaged && tp_module_matches(m, sel->module);
		found |= sel->module_kept[i];
	}
	if (!found)
		return tp_error_set(err, TP_ERR_USAGE,
				    "no module '%s' in the capture (give a module name or program id)",
				    sel->module);
	return TP_OK;
}

static void count_cores(struct tp_selection *sel, const struct tp_capture *cap)
{
	for (size_t h = 0; h < cap->n_hosts; h++) {
		if (!sel->host_kept[h])
			continue;
		for (size_t p = 0; p < cap->hosts[h].xs.n_planes; p++) {
			const struct tp_plane *pl = &cap->hosts[h].xs.planes[p];

			sel->n_cores += tp_plane_is_core(pl);
			sel->n_cores_kept += tp_plane_is_device(pl) && tp_selection_core(sel, pl);
		}
	}
}

/* given names host as its capture file does: the profiler writes host
 * "10.0.0.2:6003" as 10.0.0.2_6003.xplane.pb, the name fetch lists. */
static bool file_form(const char *host, const char *given)
{
	for (; *host && *given; host++, given++)
		if (*host != *given && !(*host == ':' && *given == '_'))
			return false;
	return !*host && !*given;
}

static enum tp_err make(struct tp_selection *sel, struct tp_capture *cap,
			struct tp_error *err)
{
	bool host_found = !sel->host;
	enum tp_err rc;

	for (size_t h = 0; h < cap->n_hosts; h++) {
		sel->host_kept[h] = !sel->host || strcmp(cap->hosts[h].name, sel->host) == 0;
		host_found |= sel->host_kept[h];
	}
	/* no host of that name: one whose file bears it */
	for (size_t h = 0; !host_found && h < cap->n_hosts; h++)
		if (file_form(cap->hosts[h].name, sel->host))
			host_found = sel->host_kept[h] = true;
	if (!host_found)
		return tp_error_set(err, TP_ERR_USAGE, "no host '%s' in the capture",
				    sel->host);
	if ((rc = keep_modules(sel, cap, err)) != TP_OK)
		return rc;
	count_cores(sel, cap);
	if (sel->core && !sel->n_cores_kept)
		return tp_error_set(err, TP_ERR_USAGE,
				    "no core '%s' in the capture (%zu cores; give a device plane: /device:TPU:0, TPU:0, its number, or host and device plane as printed; a host plane such as /host:CPU is no core)",
				    sel->core, sel->n_cores);
	return TP_OK;
}

/* Whether some device plane of the capture is the one core names. */
static bool names_a_plane(const struct tp_capture *cap, const char *core)
{
	for (size_t h = 0; h < cap->n_hosts; h++)
		for (size_t p = 0; p < cap->hosts[h].xs.n_planes; p++) {
			const struct tp_plane *pl = &cap->hosts[h].xs.planes[p];

			if (tp_plane_is_device(pl) && tp_core_matches(pl, core))
				return true;
		}
	return false;
}

/* --core as the text prints a core, "HOST PLANE" (ops' and memory's
 * headers, "core: host0 /device:TPU:0"): taken back as --host HOST
 * --core PLANE when no plane has that name and a host is named HOST (and
 * --host, if given, names it too). */
static void core_as_printed(struct tp_selection *sel, const struct tp_capture *cap)
{
	const char *sp = sel->core ? strrchr(sel->core, ' ') : NULL;
	size_t n;

	if (!sp || !sp[1] || names_a_plane(cap, sel->core))
		return;
	n = (size_t)(sp - sel->core);
	for (size_t h = 0; h < cap->n_hosts; h++) {
		const char *name = cap->hosts[h].name;

		if (strlen(name) == n && memcmp(name, sel->core, n) == 0 &&
		    (!sel->host || strcmp(sel->host, name) == 0)) {
			sel->printed_host = tp_str_dup(tp_str_make(sel->core, n));
			sel->host = sel->printed_host;
			sel->core = sp + 1;
			return;
		}
	}
}

enum tp_err tp_selection_make(struct tp_selection *sel, struct tp_capture *cap,
			      const char *host, const char *core,
			      const char *module, struct tp_error *err)
{
	enum tp_err rc;

	memset(sel, 0, sizeof(*sel));
	sel->host = host;
	sel->core = core;
	sel->module = module;
	sel->n_hosts = cap->n_hosts;
	sel->n_modules = cap->n_modules;
	sel->host_kept = tp_xcalloc(cap->n_hosts + 1, sizeof(*sel->host_kept));
	sel->module_kept = tp_xcalloc(cap->n_modules + 1, sizeof(*sel->module_kept));
	core_as_printed(sel, cap);
	rc = make(sel, cap, err);
	if (rc != TP_OK)
		tp_selection_release(sel);
	return rc;
}

void tp_selection_release(struct tp_selection *sel)
{
	free(sel->host_kept);
	free(sel->module_kept);
	free(sel->printed_host);
	memset(sel, 0, sizeof(*sel));
}
