/*
 * diff_time.c - the time and traffic sections of `tpuprof diff`: op time
 * by module and op (summed over cores, so runs on different core counts
 * compare op by op), op self time by name scope (the op_scopes tree,
 * already merged over cores), each core's mean steady step (and by part,
 * diff_step_parts.c), and per
 * collective its ring bytes and payload bytes summed over executions and
 * its device time.
 */
#include "diff_internal.h"

#include "tpuprof/util/util.h"

#include <stdlib.h>

/* ops: total_ps (metric 0) and occurrences (metric 1). */
static void op_rows(struct diff_set *ops, int side, const json_t *doc)
{
	const json_t *cores = diff_path(doc, "ops", "cores");

	for (size_t c = 0; c < json_array_size(cores); c++) {
		const json_t *list = json_object_get(json_array_get(cores, c), "ops");

		for (size_t i = 0; i < json_array_size(list); i++) {
			const json_t *op = json_array_get(list, i);
			const char *module = diff_str(op, "module"), *name = diff_str(op, "name");
			char *label = diff_label(module, name);
			json_t *keys = json_object();
			struct diff_entry *e;
			int64_t v;

			json_object_set_new(keys, "module", json_string(module));
			json_object_set_new(keys, "op", json_string(name));
			e = diff_set_get(ops, label, keys);
			free(label);
			if (diff_int(op, "total_ps", &v))
				diff_entry_add(e, side, 0, v);
			if (diff_int(op, "occurrences", &v))
				diff_entry_add(e, side, 1, v);
		}
	}
}

/* op_scopes: inclusive_ps per path; the root ("") is the total. */
static void scope_rows(struct diff_set *scopes, struct diff_total *total, int side,
		       const json_t *doc)
{
	const json_t *list = diff_path(doc, "op_scopes", "scopes");

	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *sc = json_array_get(list, i);
		const char *path = diff_str(sc, "path");
		json_t *keys;
		int64_t v;

		if (!diff_int(sc, "inclusive_ps", &v))
			continue;
		if (!*path) {
			total->v[side] = tp_sat_add(total->v[side], v);
			total->has[side] = true;
			continue;
		}
		keys = json_object();
		json_object_set_new(keys, "path", json_string(path));
		diff_entry_add(diff_set_get(scopes, path, keys), side, 0, v);
	}
}

/* collectives: ring bytes (0) and payload bytes (1), both summed over
 * executions, time (2) and executions (3). A null ring size counts 0. */
static void collective_rows(struct diff_set *coll, int side, const json_t *doc)
{
	const json_t *list = diff_path(doc, "collectives", "collectives");

	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *c = json_array_get(list, i);
		const char *module = diff_str(c, "module"), *name = diff_str(c, "name");
		char *label = diff_label(module, name);
		json_t *keys = json_object();
		struct diff_entry *e;
		int64_t n = 0, v;

		json_object_set_new(keys, "module", json_string(module));
		json_object_set_new(keys, "collective", json_string(name));
		json_object_set_new(keys, "kind", json_string(diff_str(c, "kind")));
		e = diff_set_get(coll, label, keys);
		free(label);
		diff_int(c, "occurrences", &n);
		diff_entry_add(e, side, 3, n);
		if (!diff_int(c, "ring_bytes_per_device", &v))
			v = 0;
		diff_entry_add(e, side, 0, tp_sat_mul(v, n));
		if (!diff_int(c, "bytes", &v))
			v = 0;
		diff_entry_add(e, side, 1, tp_sat_mul(v, n));
		if (!diff_int(c, "time_ps", &v))
			v = 0;
		diff_entry_add(e, side, 2, v);
	}
}

/* Each core's mean steady step (ops.cores[].steady.step_ps); a core
 * without a steady step has no row on that side. */
static void step_rows(struct diff_set *s, int side, const json_t *doc)
{
	const json_t *cores = diff_path(doc, "ops", "cores");

	for (size_t i = 0; i < json_array_size(cores); i++) {
		const json_t *c = json_array_get(cores, i);
		const json_t *steady = json_object_get(c, "steady");
		int64_t n, v;

		if (diff_int(steady, "n_steady", &n) && n > 0 && diff_int(steady, "step_ps", &v))
			diff_entry_add(diff_core_entry(s, c), side, 0, v);
	}
}

void diff_time(json_t *sections, const json_t *a, const json_t *b)
{
	struct diff_set steps;
	/* a step lasts as long as its slowest core: never a sum */
	const struct diff_total slowest = { .rule = DIFF_TOTAL_LARGEST };

	struct diff_set ops, scopes, coll;
	struct diff_total scope_total = { .set = true, .rule = DIFF_TOTAL_ROOT };

	diff_set_init(&ops);
	op_rows(&ops, DIFF_A, a);
	op_rows(&ops, DIFF_B, b);
	json_object_set_new(sections, "ops", diff_section(&ops, 0, "ps", 1, "occurrences", NULL));
	diff_set_release(&ops);

	diff_set_init(&scopes);
	scope_rows(&scopes, &scope_total, DIFF_A, a);
	scope_rows(&scopes, &scope_total, DIFF_B, b);
	json_object_set_new(sections, "op_scopes",
			    diff_section(&scopes, 0, "ps", 0, NULL, &scope_total));
	diff_set_release(&scopes);

	diff_set_init(&steps);
	step_rows(&steps, DIFF_A, a);
	step_rows(&steps, DIFF_B, b);
	json_object_set_new(sections, "cores_steady_step",
			    diff_section(&steps, 0, "ps", 0, NULL, &slowest));
	diff_set_release(&steps);
	diff_step_parts(sections, a, b);   /* beside it, as text and HTML show it */

	diff_set_init(&coll);
	collective_rows(&coll, DIFF_A, a);
	collective_rows(&coll, DIFF_B, b);
	json_object_set_new(sections, "collective_ring_bytes",
			    diff_section(&coll, 0, "bytes", 3, "occurrences", NULL));
	json_object_set_new(sections, "collective_payload_bytes",
			    diff_section(&coll, 1, "bytes", 3, "occurrences", NULL));
	json_object_set_new(sections, "collective_time",
			    diff_section(&coll, 2, "ps", 3, "occurrences", NULL));
	diff_set_release(&coll);
}
