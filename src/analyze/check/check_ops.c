/*
 * check_ops.c - what `check` measures of time and traffic, from the report
 * document: op self time per core and per module (under a scope: the op
 * time there, each fusion split over its scopes as op_scopes splits it),
 * and ring bytes of collectives per module; per step of each core when
 * the growth rules compare runs of different lengths (check_growth.c).
 */
#include "check_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

#define J(o, k) json_object_get((o), (k))
#define S(o, k) json_string_value(json_object_get((o), (k)))

static int64_t jint0(const json_t *v)
{
	int64_t x = 0;

	tp_check_jint(v, &x);
	return x;
}

/* --- time ----------------------------------------------------------- */

/* The op's self time under the scope: its share of each split fusion. */
static int64_t op_scope_ps(const json_t *op, const json_t *core, const json_t *splits,
			   const char *scope)
{
	const char *name = S(op, "name"), *pid = S(op, "program_id");
	size_t i, j;
	const json_t *f, *sc;

	json_array_foreach(splits, i, f) {
		const char *fp = S(f, "program_id");
		int64_t sum = 0;

		if (!name || !S(f, "op") || strcmp(S(f, "op"), name) != 0 ||
		    (pid && fp && strcmp(pid, fp) != 0) ||
		    !S(f, "plane") || !S(core, "plane") || strcmp(S(f, "plane"), S(core, "plane")) ||
		    !S(f, "host") || !S(core, "host") || strcmp(S(f, "host"), S(core, "host")))
			continue;
		json_array_foreach(J(f, "scopes"), j, sc)
			if (tp_check_scope_under(S(sc, "scope"), scope))
				sum += jint0(J(sc, "time_ps"));
		return sum;
	}
	return tp_check_scope_under(S(op, "scope"), scope) ? jint0(J(op, "self_ps")) : 0;
}

/* Op self time summed over cores, per module and op name. */
struct op_sum {
	size_t row;
	const char *name;
	int64_t ps;
};

static void op_sum_add(struct op_sum **v, size_t *n, size_t *cap, size_t row,
		       const char *name, int64_t ps)
{
	for (size_t i = *n; i-- > 0;)
		if ((*v)[i].row == row && strcmp((*v)[i].name, name) == 0) {
			(*v)[i].ps += ps;
			return;
		}
	*v = tp_xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[*n].row = row;
	(*v)[*n].name = name;
	(*v)[(*n)++].ps = ps;
}

/* What a core's figures are divided by: its steps when per step (0:
 * the core has none, it is no subject), else 1. */
static int64_t core_steps(const json_t *core, const struct tp_check_where *w)
{
	int64_t n = 0;

	if (!w->per_step)
		return 1;
	return tp_check_jint(J(J(core, "steady"), "n_steps"), &n) && n > 0 ? n : 0;
}

void tp_check_time_subjects(struct tp_check_subjects *s, const json_t *doc,
			    const struct tp_check_where *w)
{
	const json_t *splits = J(J(doc, "op_scopes"), "fusion_splits");
	const json_t *cores = J(J(doc, "ops"), "cores"), *core, *op;
	struct op_sum *sums = NULL;
	size_t i, j, first_module, n_sums = 0, cap_sums = 0;

	json_array_foreach(cores, i, core) {
		int64_t steps = core_steps(core, w);
		struct tp_check_subject *x;

		if (!steps)
			continue;
		x = tp_check_subject_add(s);
		x->host = S(core, "host");
		x->plane = S(core, "plane");
		x->module = w->module;
		/* per step, a core's time is its mean steady step: op time
		 * and the idle between ops; what it holds is its parts (the
		 * module rows name the ops) */
		if (w->per_step && !w->module && !w->scope &&
		    tp_check_jint(J(J(core, "steady"), "step_ps"), &x->value)) {
			tp_check_step_parts(x, core);
			continue;
		}
		json_array_foreach(J(core, "ops"), j, op) {
			int64_t ps;

			if (!tp_check_module_matches(w->module, S(op, "module"), S(op, "program_id")))
				continue;
			ps = w->scope ? op_scope_ps(op, core, splits, w->scope) : jint0(J(op, "self_ps"));
			x->value += ps / steps;
			if (ps)
				tp_check_subject_contrib(x, "op", S(op, "name"), NULL, ps / steps);
		}
	}
	/* per module, over all cores; rows appear in first-seen order */
	first_module = s->n;
	json_array_foreach(cores, i, core) {
		int64_t steps = core_steps(core, w);

		json_array_foreach(J(core, "ops"), j, op) {
			const char *name = S(op, "module");
			struct tp_check_subject *x;
			int64_t ps;

			if (!steps || !name ||
			    !tp_check_module_matches(w->module, name, S(op, "program_id")))
				continue;
			ps = w->scope ? op_scope_ps(op, core, splits, w->scope) : jint0(J(op, "self_ps"));
			ps /= steps;
			x = tp_check_module_row(s, first_module, name, S(op, "program_id"));
			x->value += ps;
			if (ps && S(op, "name"))
				op_sum_add(&sums, &n_sums, &cap_sums, (size_t)(x - s->v),
					   S(op, "name"), ps);
		}
	}
	for (i = 0; i < n_sums; i++) {
		struct tp_check_subject *x = &s->v[sums[i].row];

		tp_check_subject_contrib(x, "op", sums[i].name, NULL, sums[i].ps);
	}
	free(sums);
	/* a module without op time under the scope is not a subject */
	for (i = j = first_module; w->scope && i < s->n; i++)
		if (s->v[i].value)
			s->v[j++] = s->v[i];
		else
			free(s->v[i].all);
	if (w->scope)
		s->n = j;
}

/* --- collectives ---------------------------------------------------- */

/* Ring bytes one core sent, module by module (subject row). */
struct core_bytes {
	size_t row;
	const char *host, *plane;
	int64_t bytes;
};

static void add_core_bytes(struct core_bytes **v, size_t *n, size_t *cap, size_t row,
			   const json_t *core, int64_t bytes)
{
	const char *host = S(core, "host") ? S(core, "host") : "";
	const char *plane = S(core, "plane") ? S(core, "plane") : "";
	size_t k = 0;

	while (k < *n && !((*v)[k].row == row && strcmp((*v)[k].host, host) == 0 &&
			   strcmp((*v)[k].plane, plane) == 0))
		k++;
	if (k == *n) {
		*v = tp_xgrow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (struct core_bytes){ row, host, plane, 0 };
	}
	(*v)[k].bytes = tp_sat_add((*v)[k].bytes, bytes);
}

/* A collective's ring bytes on the device that sent the most of them,
 * each core's added to per_core (ring × that core's executions; per
 * step: over that core's steps). */
static int64_t busiest_core_bytes(const struct tp_check_steps *steps_of,
				  const json_t *c, int64_t ring, size_t row,
				  struct core_bytes **v, size_t *n, size_t *cap)
{
	const json_t *core;
	int64_t most = 0;
	size_t i;

	json_array_foreach(J(c, "cores"), i, core) {
		int64_t b = tp_sat_mul(ring, jint0(J(core, "occurrences")));
		int64_t steps = steps_of ? tp_check_core_steps(steps_of, S(core, "host"),
								       S(core, "plane")) : 1;

		if (steps <= 0)
			continue;       /* per step: a core without steps */
		b /= steps;

		add_core_bytes(v, n, cap, row, core, b);
		if (b > most)
			most = b;
	}
	return most;
}

/* Per device means per device: a module's collective bytes are those of
 * the device that sent the most in it (each core's executions summed),
 * not the sum over its devices. When nothing ran, each instruction once. */
void tp_check_collective_subjects(struct tp_check_subjects *s, const json_t *doc,
				  const struct tp_check_where *w)
{
	const json_t *colls = J(J(doc, "collectives"), "collectives"), *c;
	struct core_bytes *per_core = NULL;
	size_t n_per_core = 0, cap_per_core = 0;
	bool ran = false;
	size_t i, first = s->n;
	struct tp_check_steps steps_of;

	json_array_foreach(colls, i, c)
		if (jint0(J(c, "occurrences")) > 0)
			ran = true;
	tp_check_steps_index(&steps_of, doc);
	json_array_foreach(colls, i, c) {
		struct tp_check_subject *x;
		int64_t ring = 0, bytes;

		if (!tp_check_module_matches(w->module, S(c, "module"), S(c, "program_id")) ||
		    (w->scope && !tp_check_scope_under(S(c, "scope"), w->scope)))
			continue;
		tp_check_jint(J(c, "ring_bytes_per_device"), &ring);
		x = tp_check_module_row(s, first, S(c, "module"), S(c, "program_id"));
		x->source = ran ? "executions" : "instructions";
		if (ran) {
			bytes = busiest_core_bytes(w->per_step ? &steps_of : NULL, c, ring,
						   (size_t)(x - s->v), &per_core,
						   &n_per_core, &cap_per_core);
		} else {
			bytes = ring;
			x->value = tp_sat_add(x->value, bytes);
		}
		if (bytes)
			tp_check_subject_contrib(x, "collective", S(c, "name"), NULL,
					     bytes);
	}
	for (i = 0; i < n_per_core; i++)
		if (per_core[i].bytes > s->v[per_core[i].row].value)
			s->v[per_core[i].row].value = per_core[i].bytes;
	free(per_core);
	tp_check_steps_release(&steps_of);
}
