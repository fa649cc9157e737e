/*
 * fuzz_xspace.c - libFuzzer target for the capture decoder: sniffing,
 * XSpace decoding (which walks every event and stat), event iteration and
 * the embedded HLO modules. Any input must end in TP_OK or a clean error.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tpuprof/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };

	if (size > MAX_INPUT)
		return 0;
	(void)tp_sniff(data, size);
	tp_arena_init(&a);
	if (tp_xspace_decode(&xs, &a, data, size, "fuzz", &err) == TP_OK) {
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
	return 0;
}
