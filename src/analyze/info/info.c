/*
 * info.c - the `info` analysis (see info.h).
 */
#include "tpuprof/analyze/info.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void warn(struct tp_info *info, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct tp_info *info, const char *fmt, ...)
{
	va_list ap;
	char line[1024];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	info->warnings = tp_xgrow(info->warnings, &info->cap_warnings,
				  info->n_warnings + 1,
				  sizeof(*info->warnings));
	info->warnings[info->n_warnings++] = tp_xstrdup(line);
}

static bool is_version_stat(struct tp_str name)
{
	static const char suffix[] = "_version";
	size_t n = sizeof(suffix) - 1;

	return tp_str_eq(name, "device_type_string") ||
	       tp_str_eq(name, "device_vendor") ||
	       (name.len > n && memcmp(name.ptr + name.len - n, suffix, n) == 0);
}

/* A collective op execution: an op-line event whose HLO category names a
 * collective (TPU), or a TF-era host CollectiveReduce event. */
static bool is_collective_category(struct tp_str cat)
{
	static const char *const names[] = {
		"all-reduce", "all-gather", "reduce-scatter", "all-to-all",
		"collective-permute", "collective-broadcast",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (tp_str_has_prefix(cat, names[i]))
			return true;
	return false;
}

/* TF-era host collectives: TraceMe names "CollectiveReduce…", or TF op
 * names "<name>:<type>" whose type is a collective kernel. */
static bool is_tf_collective(struct tp_str name)
{
	size_t colon = name.len;
	struct tp_str type;

	if (tp_str_has_prefix(name, "CollectiveReduce"))
		return true;
	while (colon > 0 && name.ptr[colon - 1] != ':')
		colon--;
	if (colon == 0)
		return false;
	type = tp_str_make(name.ptr + colon, name.len - colon);
	return tp_str_has_prefix(type, "Collective") ||
	       tp_str_eq(type, "NcclAllReduce");
}

static bool is_op_line(const struct tp_plane *pl, const struct tp_line *ln)
{
	if (tp_str_eq(ln->name, "XLA Ops") ||
	    tp_str_eq(ln->name, "Framework Ops") ||
	    tp_str_eq(ln->name, "TensorFlow Ops"))
		return true;
	return pl->kind == TP_PLANE_GPU && tp_str_has_prefix(ln->name, "Stream #");
}

/* What an event of a given metadata counts as. */
enum event_kind { EK_NONE, EK_ALLOC, EK_DEALLOC, EK_COLLECTIVE };

static enum event_kind classify(const struct tp_plane *pl,
				const struct tp_event_meta *em, bool host_plane)
{
	const struct tp_stat *cat;
	struct tp_str s;

	if (host_plane) {
		if (tp_str_eq(em->name, "MemoryAllocation"))
			return EK_ALLOC;
		if (tp_str_eq(em->name, "MemoryDeallocation"))
			return EK_DEALLOC;
		return is_tf_collective(em->name) ? EK_COLLECTIVE : EK_NONE;
	}
	cat = tp_stats_find(pl, em->stats, em->n_stats, TP_SN_HLO_CATEGORY);
	return cat && tp_stat_str(pl, cat, &s) && is_collective_category(s) ?
		       EK_COLLECTIVE : EK_NONE;
}

static void add_kind(struct tp_info_host *ih, enum event_kind k, uint64_t n)
{
	if (k == EK_ALLOC)
		ih->memory_allocations += n;
	else if (k == EK_DEALLOC)
		ih->memory_deallocations += n;
	else if (k == EK_COLLECTIVE)
		ih->collective_events += n;
}

/* Events are classified by metadata, once per metadata entry (kinds[]:
 * kind + 1, 0 = not yet); lines whose scan counted events per metadata
 * are not read again. */
static void count_line(const struct tp_host *h, const struct tp_plane *pl,
		       const struct tp_line *ln, unsigned char *kinds,
		       struct tp_info_host *ih)
{
	bool host_plane = tp_str_eq(pl->name, "/host:CPU");
	bool op_line = pl->kind != TP_PLANE_HOST && is_op_line(pl, ln);
	struct tp_event_iter it;
	struct tp_event ev;

	if (!host_plane && !op_line)
		return;
	for (size_t m = 0; m < pl->n_event_meta && ln->meta_counts; m++)
		if (ln->meta_counts[m])
			add_kind(ih, classify(pl, &pl->event_meta[m], host_plane),
				 ln->meta_counts[m]);
	if (ln->meta_counts)
		return;
	tp_event_iter_init(&it, &h->xs, pl, ln);
	it.raw_times = true; /* counting only */
	while (tp_event_iter_next(&it, &ev) > 0) {
		size_t mi;

		if (!ev.meta)
			continue;
		mi = (size_t)(ev.meta - pl->event_meta);
		if (!kinds[mi])
			kinds[mi] = (unsigned char)(classify(pl, ev.meta, host_plane) + 1);
		add_kind(ih, (enum event_kind)(kinds[mi] - 1), 1);
	}
}

static void task_environment(const struct tp_plane *pl, struct tp_info_host *ih)
{
	const struct tp_stat *s;
	int64_t v;

	ih->has_task_env = true;
	s = tp_stats_find_name(pl, pl->stats, pl->n_stats, "profile_start_time");
	if (s && tp_stat_int(s, &v))
		ih->profile_start_ns = (uint64_t)v;
	s = tp_stats_find_name(pl, pl->stats, pl->n_stats, "profile_stop_time");
	if (s && tp_stat_int(s, &v))
		ih->profile_stop_ns = (uint64_t)v;
	/* saturating: hostile times would overflow picoseconds */
	ih->has_capture_ps = ih->profile_stop_ns >= ih->profile_start_ns;
	if (ih->has_capture_ps) {
		uint64_t ns = ih->profile_stop_ns - ih->profile_start_ns;

		ih->capture_ps = ns > UINT64_MAX / 1000 ? UINT64_MAX : ns * 1000;
	}
}

/* device_type_string names TPUs; GPU planes carry only a vendor and a
 * compute capability, which make the description instead. */
static void device_type(const struct tp_plane *pl, struct tp_info_host *ih)
{
	const struct tp_stat *s, *major, *minor;
	struct tp_str v, vendor = TP_STR_NULL;
	int64_t ma, mi;

	if (ih->device_type)
		return;
	s = tp_stats_find_name(pl, pl->stats, pl->n_stats, "device_type_string");
	if (s && tp_stat_str(pl, s, &v) && v.len) {
		ih->device_type = tp_str_dup(v);
		return;
	}
	if (pl->kind != TP_PLANE_GPU)
		return;
	s = tp_stats_find_name(pl, pl->stats, pl->n_stats, "device_vendor");
	if (s)
		tp_stat_str(pl, s, &vendor);
	major = tp_stats_find_name(pl, pl->stats, pl->n_stats, "compute_cap_major");
	minor = tp_stats_find_name(pl, pl->stats, pl->n_stats, "compute_cap_minor");
	if (major && minor && tp_stat_int(major, &ma) && tp_stat_int(minor, &mi))
		ih->device_type = tp_xasprintf("%.*s%sGPU, compute capability %lld.%lld",
					       (int)vendor.len, vendor.ptr,
					       vendor.len ? " " : "",
					       (long long)ma, (long long)mi);
	else if (vendor.len)
		ih->device_type = tp_xasprintf("%.*s GPU", (int)vendor.len, vendor.ptr);
}

/* Plane stats naming software versions and the device, each name once. */
static void collect_versions(struct tp_strpool *pool, const struct tp_plane *pl,
			     struct tp_info_host *ih)
{
	for (size_t i = 0; i < pl->n_stats; i++) {
		struct tp_str name = tp_stat_name(pl, &pl->stats[i]);
		struct tp_str v;
		bool seen = false;

		if (!is_version_stat(name) || !tp_stat_str(pl, &pl->stats[i], &v))
			continue;
		for (size_t k = 0; k < ih->n_versions && !seen; k++)
			seen = ih->versions[k].name.len == name.len &&
			       memcmp(ih->versions[k].name.ptr, name.ptr, name.len) == 0;
		if (seen)
			continue;
		ih->versions = tp_xgrow(ih->versions, &ih->cap_versions,
					ih->n_versions + 1, sizeof(*ih->versions));
		ih->versions[ih->n_versions].name = tp_strpool_intern(pool, name);
		ih->versions[ih->n_versions++].value = tp_strpool_intern(pool, v);
	}
}

static struct tp_str *pooled_list(struct tp_strpool *pool, const struct tp_str *v,
				  size_t n)
{
	struct tp_str *out = tp_xcalloc(n ? n : 1, sizeof(*out));

	for (size_t i = 0; i < n; i++)
		out[i] = tp_strpool_intern(pool, v[i]);
	return out;
}

/* Every plane stat, copied for the writers (tp_info_stat). */
static void copy_plane_stats(struct tp_strpool *pool, const struct tp_plane *pl,
			     struct tp_info_plane *ip)
{
	ip->stats = tp_xcalloc(pl->n_stats ? pl->n_stats : 1, sizeof(*ip->stats));
	ip->n_stats = pl->n_stats;
	for (size_t i = 0; i < pl->n_stats; i++) {
		const struct tp_stat *st = &pl->stats[i];
		struct tp_info_stat *is = &ip->stats[i];
		struct tp_str v;

		is->name = tp_strpool_intern(pool, tp_stat_name(pl, st));
		is->metadata_id = st->metadata_id;
		is->kind = st->kind;
		if (st->kind == TP_STAT_DOUBLE)
			is->v.d = st->v.d;
		else if (st->kind == TP_STAT_UINT64 || st->kind == TP_STAT_REF)
			is->v.u = st->v.u;
		else if (st->kind == TP_STAT_INT64)
			is->v.i = st->v.i;
		else if (st->kind == TP_STAT_BYTES)
			is->v.bytes = st->v.s.len;
		if ((st->kind == TP_STAT_STR || st->kind == TP_STAT_REF) &&
		    tp_stat_str(pl, st, &v)) {
			is->has_str = true;
			is->str = tp_strpool_intern(pool, v);
		}
	}
	ip->line_display_names = tp_xcalloc(pl->n_lines ? pl->n_lines : 1,
					    sizeof(struct tp_str));
	for (size_t l = 0; l < pl->n_lines; l++)
		ip->line_display_names[l] = tp_strpool_intern(pool, pl->lines[l].display_name);
}

static void scan_host(struct tp_strpool *pool, const struct tp_host *h,
		      struct tp_info_host *ih)
{
	ih->planes = tp_xcalloc(h->xs.n_planes ? h->xs.n_planes : 1, sizeof(*ih->planes));
	ih->hostnames = pooled_list(pool, h->xs.hostnames, h->xs.n_hostnames);
	ih->errors = pooled_list(pool, h->xs.errors, h->xs.n_errors);
	ih->warnings = pooled_list(pool, h->xs.warnings, h->xs.n_warnings);
	for (size_t p = 0; p < h->xs.n_planes; p++) {
		const struct tp_plane *pl = &h->xs.planes[p];
		bool device = pl->kind == TP_PLANE_TPU || pl->kind == TP_PLANE_GPU ||
			      pl->kind == TP_PLANE_TPU_SPARSECORE ||
			      pl->kind == TP_PLANE_CUSTOM;
		uint64_t events = 0;
		unsigned char *kinds;

		if (pl->kind == TP_PLANE_TASK_ENV)
			task_environment(pl, ih);
		collect_versions(pool, pl, ih);
		copy_plane_stats(pool, pl, &ih->planes[p]);
		if (device)
			device_type(pl, ih);
		kinds = tp_xcalloc(pl->n_event_meta + 1, 1);
		for (size_t l = 0; l < pl->n_lines; l++) {
			events += pl->lines[l].n_events;
			if (device && pl->lines[l].n_events &&
			    is_op_line(pl, &pl->lines[l]))
				ih->has_op_line = true;
			count_line(h, pl, &pl->lines[l], kinds, ih);
		}
		free(kinds);
		/* classifying read every metadata entry: keep only what the
		 * output needs resident (see tp_xspace_drop) */
		tp_xspace_drop(&h->xs, pl->bytes.ptr, pl->bytes.len);
		ih->device_planes += device;
		ih->device_planes_with_events += device && events;
	}
}

static void host_warnings(struct tp_info *info, const struct tp_info_host *ih,
			  size_t n_modules_with_ba)
{
	const char *n = ih->host->name;

	if (!ih->n_modules)
		warn(info, "%s: no HLO modules: no compiler memory timeline, no fusion contents, no collective shapes or groups", n);
	else if (!n_modules_with_ba)
		warn(info, "%s: no HLO module has a buffer assignment: no compiler memory timeline", n);
	if (!ih->device_planes_with_events)
		warn(info, "%s: no device events: no op times, no device timeline", n);
	else if (!ih->has_op_line)
		warn(info, "%s: no op line (XLA Ops, Framework Ops or GPU kernels): no per-op device times", n);
	if (!ih->memory_allocations && !ih->memory_deallocations)
		warn(info, "%s: no MemoryAllocation/MemoryDeallocation events: no runtime memory timeline", n);
	if (!ih->has_task_env)
		warn(info, "%s: no Task Environment plane: capture start time unknown", n);
	if (ih->host->xs.n_errors)
		warn(info, "%s: the profiler recorded %zu collection error(s)", n, ih->host->xs.n_errors);
}

static enum tp_err add_modules(struct tp_info *info, struct tp_capture *cap,
			       int host, size_t *with_ba, struct tp_error *err)
{
	*with_ba = 0;
	for (size_t i = 0; i < cap->n_modules; i++) {
		struct tp_module *m = &cap->modules[i];
		struct tp_info_module *im;
		enum tp_err rc;

		if (m->host != host)
			continue;
		rc = tp_capture_decode_module(cap, m, err);
		if (rc != TP_OK)
			return rc;
		if (m->damaged)
			continue;   /* skipped: a warning says so */
		im = &info->modules[info->n_modules++];
		im->module = m;
		tp_hlo_count(m->hlo, &im->counts);
		*with_ba += im->counts.has_buffer_assignment;
	}
	return TP_OK;
}

static enum tp_err build(struct tp_info *info, struct tp_capture *cap,
			 struct tp_error *err)
{
	enum tp_err rc;
	size_t with_ba;

	memset(info, 0, sizeof(*info));
	tp_strpool_init(&info->pool);
	if ((rc = tp_capture_finish_scan(cap, err)) != TP_OK)
		return rc;
	info->hosts = tp_xcalloc(cap->n_hosts, sizeof(*info->hosts));
	info->modules = tp_xcalloc(cap->n_modules, sizeof(*info->modules));
	for (size_t h = 0; h < cap->n_hosts; h++) {
		struct tp_info_host *ih = &info->hosts[info->n_hosts++];

		ih->host = &cap->hosts[h];
		scan_host(&info->pool, ih->host, ih);
		ih->first_module = info->n_modules;
		rc = add_modules(info, cap, (int)h, &with_ba, err);
		if (rc != TP_OK)
			return rc;
		ih->n_modules = info->n_modules - ih->first_module;
		host_warnings(info, ih, with_ba);
		/* everything the writers print of this host is in the result */
		tp_capture_drop_host(cap, h);
	}
	/* Standalone HLO files and XLA dumps belong to no host. */
	rc = add_modules(info, cap, -1, &with_ba, err);
	if (rc != TP_OK)
		return rc;
	for (size_t i = 0; i < info->n_modules; i++)
		if (info->modules[i].module->host < 0 &&
		    !info->modules[i].counts.has_buffer_assignment)
			warn(info, "%s: no buffer assignment (an XLA dump before optimizations?): no compiler memory timeline",
			     info->modules[i].module->path);
	for (size_t i = 0; i < cap->n_damage; i++) {
		char line[1024];

		tp_damage_format(&cap->damage[i], line, sizeof(line));
		warn(info, "%s", line);
	}
	return TP_OK;
}

enum tp_err tp_info_build(struct tp_info *info, struct tp_capture *cap,
			  struct tp_error *err)
{
	enum tp_err rc = build(info, cap, err);

	if (rc != TP_OK)
		tp_info_release(info);
	return rc;
}

void tp_info_release(struct tp_info *info)
{
	for (size_t i = 0; i < info->n_hosts; i++) {
		free((char *)info->hosts[i].device_type);
		free(info->hosts[i].versions);
		for (size_t p = 0; info->hosts[i].planes &&
				   p < info->hosts[i].host->xs.n_planes; p++) {
			free(info->hosts[i].planes[p].stats);
			free(info->hosts[i].planes[p].line_display_names);
		}
		free(info->hosts[i].planes);
		free(info->hosts[i].hostnames);
		free(info->hosts[i].errors);
		free(info->hosts[i].warnings);
	}
	for (size_t i = 0; i < info->n_warnings; i++)
		free(info->warnings[i]);
	free(info->warnings);
	free(info->hosts);
	free(info->modules);
	tp_strpool_release(&info->pool);
	memset(info, 0, sizeof(*info));
}
