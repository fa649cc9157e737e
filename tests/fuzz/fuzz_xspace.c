/*
 * fuzz_xspace.c - libFuzzer target for the capture decoder: sniffing,
 * XSpace decoding (which walks every event and stat), event iteration and
 * the embedded HLO modules. Any input must end in TP_OK or a clean error.
 *
 * Then a differential check: decoded again the way report and ops open
 * captures (every device line deferred with its tail, read in bulk as
 * the ops pass reads it, then tp_xspace_finish_scan), the verdict, the
 * message and every line's counts and fields must be those of the full
 * decode; a difference aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/decode/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (4u << 20)

/* What a decoded capture says: the message, or each line's counts and
 * fields (hashed). */
static void summary(const struct tp_xspace *xs, enum tp_err rc,
		    const struct tp_error *err, char *out, size_t cap)
{
	uint64_t h = 1469598103934665603ULL;

	if (rc != TP_OK) {
		snprintf(out, cap, "%s", err->msg);
		return;
	}
	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			const struct tp_line *ln = &xs->planes[p].lines[l];
			uint64_t v[] = { (uint64_t)ln->id, (uint64_t)ln->display_id,
					 (uint64_t)ln->timestamp_ns,
					 (uint64_t)ln->duration_ps, ln->n_event_fields,
					 ln->n_events, ln->n_aggregated,
					 (uint64_t)ln->first_start_ps,
					 (uint64_t)ln->last_end_ps, ln->name.len,
					 ln->display_name.len };

			for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
				h = (h ^ v[i]) * 1099511628211ULL;
		}
	snprintf(out, cap, "ok %llx", (unsigned long long)h);
}

/* The ops pass's way: bulk where it can, one by one otherwise. */
static void read_in_bulk(const struct tp_xspace *xs)
{
	static struct tp_event_batch b;

	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			const struct tp_plane *pl = &xs->planes[p];
			struct tp_event_iter it;
			struct tp_event ev;

			if (pl->lines[l].scanned)
				continue;
			tp_event_iter_init_read(&it, xs, pl, &pl->lines[l]);
			while (tp_event_iter_batch(&it, &b) || tp_event_iter_next(&it, &ev) > 0)
				;
		}
}

static void same_as_deferred(const uint8_t *data, size_t size, const char *plain)
{
	struct tp_decode_opts o = { .defer_min_bytes = 1, .threads = 1 };
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };
	enum tp_err rc;
	char fast[4608];

	tp_xspace_framing_min_bytes = 0;
	tp_arena_init(&a);
	rc = tp_xspace_decode_ex(&xs, &a, data, size, "fuzz", &o, &err);
	if (rc == TP_OK) {
		read_in_bulk(&xs);
		rc = tp_xspace_finish_scan(&xs, &err);
	}
	summary(&xs, rc, &err, fast, sizeof(fast));
	tp_arena_release(&a);
	tp_xspace_framing_min_bytes = (size_t)1 << 20;
	if (strcmp(plain, fast) != 0) {
		fprintf(stderr, "deferred decode differs: '%s' vs '%s'\n", plain, fast);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char plain[4608];
	enum tp_err rc;
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };

	if (size > MAX_INPUT)
		return 0;
	(void)tp_sniff(data, size);
	tp_arena_init(&a);
	rc = tp_xspace_decode(&xs, &a, data, size, "fuzz", &err);
	summary(&xs, rc, &err, plain, sizeof(plain));
	if (rc == TP_OK) {
		for (size_t p = 0; p < xs.n_planes; p++) {
			const struct tp_plane *pl = &xs.planes[p];

			for (size_t l = 0; l < pl->n_lines; l++) {
				struct tp_event_iter it;
				struct tp_event ev;

				tp_event_iter_init(&it, &xs, pl, &pl->lines[l]);
				while (tp_event_iter_next(&it, &ev) > 0) {
					struct tp_stat st;

					(void)tp_event_stat(&xs, pl, &ev, TP_SN_HLO_CATEGORY, &st);
				}
			}
			for (size_t e = 0; e < pl->n_event_meta; e++) {
				const struct tp_event_meta *em = &pl->event_meta[e];
				const struct tp_stat *s = tp_stats_find(pl, em->stats, em->n_stats,
									TP_SN_HLO_PROTO);
				struct tp_module m = { 0 };

				if (!s || s->kind != TP_STAT_BYTES)
					continue;
				m.raw = s->v.s;
				m.path = "fuzz";
				(void)tp_module_decode(&m, &a, &err);
			}
		}
	}
	tp_arena_release(&a);
	same_as_deferred(data, size, plain);
	return 0;
}
