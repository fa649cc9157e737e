/*
 * check_internal.h - what check.c (the rules) shares with check_subjects.c
 * (memory) and check_ops.c (time, collectives), the measures read from a
 * report document. A subject is one thing a rule measures: a core, a
 * module, or a scope of a module, with its value and largest contributors.
 * Strings are borrowed from the document.
 */
#ifndef TPUPROF_CHECK_INTERNAL_H
#define TPUPROF_CHECK_INTERNAL_H

#include "tpuprof/analyze/check.h"
#include "tpuprof/util/i64map.h"

struct tp_check_subject {
	const char *host, *plane;        /* a core, or NULL               */
	const char *module, *program_id; /* a module, or NULL             */
	const char *source;              /* static, or NULL               */
	int64_t value;                   /* bytes or ps                   */
	int64_t capacity;                /* bytes, -1 when unknown        */
	size_t n_contrib;
	struct tp_check_contrib contrib[TP_CHECK_MAX_CONTRIB];
	struct tp_check_contrib *all;    /* malloc'd: every contribution  */
	size_t n_all, cap_all;
};

struct tp_check_subjects {
	struct tp_check_subject *v;  /* malloc'd */
	size_t n, cap;
};

/* Where to look: module (name or program id) and scope prefix, both
 * optional; hbm overrides the capacity when non-zero. */
struct tp_check_where {
	const char *module, *scope;
	uint64_t hbm;
	/* time and traffic per step of each core (steady.n_steps of
	 * ops.cores[]); cores without steps are then no subjects */
	bool per_step;
};

void tp_check_subjects_release(struct tp_check_subjects *s);
/* A new zeroed subject at the end of s (capacity unknown). */
struct tp_check_subject *tp_check_subject_add(struct tp_check_subjects *s);
/* The module subject named name among s->v[first..], added when new. */
struct tp_check_subject *tp_check_module_row(struct tp_check_subjects *s, size_t first,
					     const char *name, const char *pid);

/* Memory peaks: per core (the larger of compiler and runtime peak) when
 * the document has cores and neither module nor scope is given; per
 * module otherwise (peak_bytes, or the bytes under the scope). */
void tp_check_memory_subjects(struct tp_check_subjects *s, const json_t *doc,
			      const struct tp_check_where *w);
/* Op self time per core, then per module over all cores. Per step (and
 * neither module nor scope) a core's time is its mean steady step, and
 * its contributors are the step's parts (tp_check_step_parts), not its
 * ops: the module rows name the ops. */
void tp_check_time_subjects(struct tp_check_subjects *s, const json_t *doc,
			    const struct tp_check_where *w);
/* Ring bytes per device per module, summed over executions (or over the
 * instructions when nothing ran). */
void tp_check_collective_subjects(struct tp_check_subjects *s, const json_t *doc,
				  const struct tp_check_where *w);

/* Adds a core's mean steady step by part (ops.cores[].steady, as
 * tp_step_parts_mean apportions it) to x as contributors of kind
 * "step_part", the parts of 0 ps left out; none where the core's steady
 * figures lack a part or do not add up (check_steps.c). */
void tp_check_step_parts(struct tp_check_subject *x, const json_t *core);

/* The cores of a document by host and plane, for their steps: built
 * once, looked up per collective and core (a pod has thousands). */
struct tp_check_steps {
	const json_t *cores;     /* borrowed: ops.cores */
	struct tp_i64map map;    /* host and plane hash -> index in cores */
};
void tp_check_steps_index(struct tp_check_steps *x, const json_t *doc);
void tp_check_steps_release(struct tp_check_steps *x);
/* A core's steps (ops.cores[].steady.n_steps), 0 when it has none or
 * is not there. */
int64_t tp_check_core_steps(const struct tp_check_steps *x, const char *host,
			    const char *plane);
/* Whether any core of doc has steps. */
bool tp_check_doc_has_steps(const json_t *doc);

/* The growth rules against o->baseline (check_growth.c): hosts paired
 * (c->match, c->pairs), rows for every subject of either side. */
enum tp_err tp_check_growth_rules(struct tp_check *c, const json_t *doc,
				  const struct tp_check_opts *o,
				  const struct tp_check_where *w, struct tp_error *err);
/* --max-step-time: per core, the mean steady step (check_steps.c). */
enum tp_err tp_check_step_time_rule(struct tp_check *c, const json_t *doc,
				    const struct tp_check_opts *o,
				    const struct tp_check_where *w, struct tp_error *err);

/* True when module names doc's module (name or program id). */
bool tp_check_module_matches(const char *module, const char *name, const char *pid);
/* True when scope path is prefix or below it (whole components). */
bool tp_check_scope_under(const char *path, const char *prefix);
/* The name of the module that module (a name or program id) names in
 * doc, or NULL when there is none. */
const char *tp_check_doc_module(const json_t *doc, const char *module);
/* Whether the document has this scope anywhere. */
bool tp_check_doc_has_scope(const json_t *doc, const char *scope);

/* Integer from a JSON integer or decimal string; false when absent. */
bool tp_check_jint(const json_t *v, int64_t *out);
/* Adds a contribution to x: to its largest and to its full list. scope
 * is a buffer's name scope, NULL for other kinds. */
void tp_check_subject_contrib(struct tp_check_subject *x, const char *kind,
			      const char *name, const char *scope, int64_t value);
/* Keeps the TP_CHECK_MAX_CONTRIB largest, largest first, earliest first
 * among equals. */
void tp_check_contrib_add(struct tp_check_contrib *c, size_t *n, const char *kind,
			  const char *name, const char *scope, int64_t value);

/* A new row for subject x (check.c), and its verdict. */
struct tp_check_row *tp_check_new_row(struct tp_check *c, enum tp_check_rule rule,
				      enum tp_check_metric metric,
				      const struct tp_check_subject *x, const char *scope);
void tp_check_verdict(struct tp_check *c, struct tp_check_row *r, bool pass);

/* --min-headroom and --min-flops-utilization (check_device.c).
 * TP_ERR_USAGE when a subject has no capacity, TP_ERR_INPUT when a core
 * has no FLOP utilization (the report's reason quoted). */
enum tp_err tp_check_headroom_rule(struct tp_check *c, const json_t *doc,
				   const struct tp_check_opts *o,
				   const struct tp_check_where *w, struct tp_error *err);
enum tp_err tp_check_utilization_rule(struct tp_check *c, const json_t *doc,
				      const struct tp_check_opts *o,
				      const struct tp_check_where *w, struct tp_error *err);
/* --max-collective-share, --max-idle-share: per core, the share of its
 * steady step time (ops.cores[].steady, check_steps.c). */
enum tp_err tp_check_step_share_rule(struct tp_check *c, const json_t *doc,
				     enum tp_check_rule rule, double limit,
				     const struct tp_check_where *w, struct tp_error *err);
/* The advice rules' check rules (check_advice.c), each on the report's
 * advice finding; TP_ERR_INPUT when it could not be judged. */
enum tp_err tp_check_advice_rules(struct tp_check *c, const json_t *doc,
				  const struct tp_check_opts *o,
				  const struct tp_check_where *w, struct tp_error *err);

#endif
