/*
 * oom_families.c - the headlines and statistics of the families that are
 * not TPU HBM reports: XLA:GPU (`Out of memory while trying to allocate`,
 * `Failed to allocate request for`, BufferAssignment statistics), the BFC
 * allocator (`ran out of memory trying to allocate`, `Stats:`), and
 * scoped VMEM (`Scoped allocation with size`, E1001's `Allocation
 * (size=N) would exceed memory`).
 */
#include "oom_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* An integer after label ("Limit:  1234"), as an exact byte count. */
static void plain_bytes(struct tp_oom_report *r, enum tp_oom_fig f, const char *s,
			const char *end, const char *label)
{
	const char *e = tp_oom_find(s, end, label, NULL), *p;
	int64_t v = 0;

	if (!e)
		return;
	p = tp_oom_skip_ws(e, end);
	if (p >= end || !isdigit((unsigned char)*p))
		return;
	for (e = p; e < end && isdigit((unsigned char)*e) && e - p < 19; e++)
		v = v * 10 + (*e - '0');
	r->fig[f].present = r->fig[f].exact = true;
	r->fig[f].bytes = v;
	snprintf(r->fig[f].text, sizeof(r->fig[f].text), "%.*s", (int)(e - p), p);
}

void tp_oom_gpu(struct tp_oom_report *r, const char *s, const char *end)
{
	const char *e;
	double v;

	r->kind = TP_OOM_GPU;
	if ((e = tp_oom_find(s, end, "Out of memory while trying to allocate ", NULL))) {
		tp_oom_fig_at(r, TP_OOM_REQUEST, e, end);
	} else if ((e = tp_oom_find(s, end, "Failed to allocate request for ", NULL))) {
		if ((e = tp_oom_fig_at(r, TP_OOM_REQUEST, e, end)))
			e = tp_oom_exact_after(&r->fig[TP_OOM_REQUEST], e, end);
		if (e && (e = tp_oom_find(e, end < e + 40 ? end : e + 40, "device ordinal ", NULL)) &&
		    tp_oom_number_at(e, end, &v))
			r->device_ordinal = (int64_t)v;
	} else if ((e = tp_oom_find(s, end, "ran out of memory trying to allocate ", NULL))) {
		if ((e = tp_oom_fig_at(r, TP_OOM_REQUEST, e, end)))
			if (tp_oom_match(e, end, " (rounded to"))
				plain_bytes(r, TP_OOM_BFC_ROUNDED, e, end, "(rounded to");
	} else {
		/* a paste from a later part: BufferAssignment, Peak buffers,
		 * the BFC allocator's summary or Stats */
		r->headless = true;
	}
	if ((e = tp_oom_find(s, end, "BufferAssignment stats:", NULL))) {
		tp_oom_fig_at(r, TP_OOM_BA_PARAMETER, tp_oom_find(e, end, "parameter allocation:", NULL), end);
		tp_oom_fig_at(r, TP_OOM_BA_CONSTANT, tp_oom_find(e, end, "constant allocation:", NULL), end);
		tp_oom_fig_at(r, TP_OOM_BA_MAYBE_LIVE_OUT,
		       tp_oom_find(e, end, "maybe_live_out allocation:", NULL), end);
		tp_oom_fig_at(r, TP_OOM_BA_PREALLOCATED_TEMP,
		       tp_oom_find(e, end, "preallocated temp allocation:", NULL), end);
		tp_oom_fig_at(r, TP_OOM_BA_TOTAL, tp_oom_find(e, end, "total allocation:", NULL), end);
		if ((e = tp_oom_fig_at(r, TP_OOM_BA_TOTAL_FRAGMENTATION,
				tp_oom_find(e, end, "total fragmentation:", NULL), end)) &&
		    (e = tp_oom_match(e, end, " (")) && tp_oom_number_at(e, end, &v))
			tp_oom_set_pct(r, TP_OOM_PCT_BA_TOTAL_FRAGMENTATION, v);
	}
	if ((e = tp_oom_find(s, end, "Sum Total of in-use chunks: ", NULL)))
		tp_oom_fig_at(r, TP_OOM_BFC_IN_USE_CHUNKS, e, end);
	if ((e = tp_oom_find(s, end, "Stats:", NULL))) {
		plain_bytes(r, TP_OOM_BFC_LIMIT, e, end, "Limit:");
		plain_bytes(r, TP_OOM_BFC_IN_USE, e, end, "InUse:");
		plain_bytes(r, TP_OOM_BFC_MAX_IN_USE, e, end, "MaxInUse:");
	}
}

/* Scoped VMEM: "Scoped allocation with size X and limit Y exceeded scoped
 * vmem limit by Z"; E1001: "Allocation (size=N) would exceed memory
 * (size=N)". */
void tp_oom_scoped(struct tp_oom_report *r, const char *s, const char *end)
{
	const char *e;

	r->kind = TP_OOM_COMPILE;
	r->memory_space = tp_xstrdup("vmem");
	if ((e = tp_oom_find(s, end, "Scoped allocation with size ", NULL))) {
		if ((e = tp_oom_fig_at(r, TP_OOM_USED, e, end)) && (e = tp_oom_match(e, end, " and limit ")) &&
		    (e = tp_oom_fig_at(r, TP_OOM_CAPACITY, e, end)) &&
		    (e = tp_oom_find(e, end < e + 60 ? end : e + 60, "limit by ", NULL)))
			tp_oom_fig_at(r, TP_OOM_EXCEEDED, e, end);
	} else if ((e = tp_oom_find(s, end, "Allocation (size=", NULL))) {
		/* byte counts, plain ("size=33554432") or with a unit */
		if (!tp_oom_fig_at(r, TP_OOM_USED, e, end))
			plain_bytes(r, TP_OOM_USED, e - 5, end, "size=");
		if ((e = tp_oom_find(e, end < e + 60 ? end : e + 60, "memory (size=", NULL)) &&
		    !tp_oom_fig_at(r, TP_OOM_CAPACITY, e, end))
			plain_bytes(r, TP_OOM_CAPACITY, e - 5, end, "size=");
	}
}


const char *tp_oom_read_requires(const char *s, const char *end, struct tp_oom_size *need,
				 struct tp_oom_size *has)
{
	struct tp_oom_size a, b;
	const char *e = tp_oom_match(s, end, "Requires ");

	if (!e || !(e = tp_oom_size_read(e, end, &a)) || a.unknown ||
	    !(e = tp_oom_match(e, end, ", has ")) || !(e = tp_oom_size_read(e, end, &b)) ||
	    b.unknown || !(e = tp_oom_match(e, end, " available")))
		return NULL;
	if (need)
		*need = a;
	if (has)
		*has = b;
	return e;
}
