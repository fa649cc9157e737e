/*
 * fusions.h - the fusion symbol table (`tpuprof fusions`): per HLO module,
 * every fusion instruction with its kind, the instructions of its fused
 * computation (nested fusions opened recursively, in computation order),
 * the distinct name scopes it mixes, and its measured time when it ran.
 *
 * Ownership: tp_fusions owns its malloc'd arrays and the op table it
 * builds for the times; instructions are indexes into the HLO indexes of
 * that op table, and scopes are slices of the decoded HLO (capture arena).
 * The capture must outlive the result; tp_fusions_release() frees it.
 */
#ifndef TPUPROF_FUSIONS_H
#define TPUPROF_FUSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/analyze/ops.h"

struct tp_fused_instr {
	long instr;            /* index in the module's HLO index         */
	int depth;             /* 1: directly in the fusion's computation */
	bool match;            /* its scope matches the --scope pattern   */
};

struct tp_fusion {
	size_t module;         /* index into tp_capture.modules           */
	long instr;            /* the fusion instruction                  */
	long parent;           /* fusion whose body holds this one, or -1 */
	size_t first, n;       /* range of tp_fusions.instrs              */
	struct tp_str *scopes; /* malloc'd; distinct non-empty scopes     */
	size_t n_scopes;
	size_t n_matches;      /* instructions matching --scope           */
	uint64_t occurrences;  /* executions over all cores (0: never ran) */
	int64_t total_ps;      /* their device time                       */
};

struct tp_fusions {
	struct tp_ops ops;               /* times and HLO indexes           */
	struct tp_fusion *v;             /* malloc'd, module then HLO order */
	size_t n, cap;
	struct tp_fused_instr *instrs;   /* malloc'd                        */
	size_t n_instrs, cap_instrs;
	size_t *modules;                 /* malloc'd: modules listed        */
	size_t n_modules;
	const char *pattern;             /* --scope, borrowed, or NULL      */
};

/* Lists every fusion of every distinct module (by program id). With a
 * pattern, only fusions holding an instruction whose scope matches it: a
 * substring (a scope as printed, brackets and all), or a glob (fnmatch)
 * matched anywhere in the path when it has * ? or [. */
enum tp_err tp_fusions_build(struct tp_fusions *f, struct tp_capture *cap,
			     const char *pattern, struct tp_error *err);
void tp_fusions_release(struct tp_fusions *f);

/* True when scope matches the --scope pattern (rules above). */
bool tp_scope_matches(const char *pattern, struct tp_str scope);

#endif
