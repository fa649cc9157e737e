/*
 * text_internal.h - what the text writers of src/report/text share: the
 * op column of `ops` (op_names_text.c), its category sums
 * (ops_cat_text.c) and its steps (ops_steps_text.c).
 *
 * Ownership: tp_text_op_names() returns a malloc'd array whose texts are
 * malloc'd; tp_text_op_names_release() frees both. Ops and capture are
 * borrowed and must outlive it.
 */
#ifndef TPUPROF_TEXT_INTERNAL_H
#define TPUPROF_TEXT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tpuprof/analyze/ops.h"

/* One shown row's op column: the name as printed and the module suffix. */
struct tp_text_op_name {
	const struct tp_op *op;
	char suffix[160];
	char *text;                  /* malloc'd */
};

/* The op column of the first n ops of core c, after `before` columns
 * of the row: with a width (a terminal's columns), names cut to fit
 * (at path boundaries where they have them), and names that would
 * print alike cut again around where they part from each other, or
 * printed whole; width 0 (no terminal): every name whole. *cut: whether
 * any name was cut. */
struct tp_text_op_name *tp_text_op_names(const struct tp_capture *cap, const struct tp_ops *ops,
					 const struct tp_ops_core *c, size_t n, size_t width,
					 size_t before, bool *cut);
void tp_text_op_names_release(struct tp_text_op_name *v, size_t n);

/* A sum's spread between cores, "least..most" self time, or "-" on one
 * core (ops_cat_text.c). */
void tp_text_spread(char *buf, size_t n, const struct tp_cat_sum *s);
/* `ops --by category` (ops_cat_text.c). */
void tp_text_categories(FILE *out, const struct tp_capture *cap,
			const struct tp_op_categories *c, size_t n_cores, size_t limit);

/* A core's steps: source, steady state, compute by category and the step
 * table, at most limit rows (0: all) (ops_steps_text.c). */
/* The core's clock, the two clocks' drift where it is over tolerance,
 * step markers left out, and op time outside the steps: what a share of
 * step time does not show. */
void tp_text_clock_notes(FILE *out, const struct tp_ops_core *c);
void tp_text_steps(FILE *out, const struct tp_ops *ops,
		   const struct tp_ops_core *c, size_t limit);
/* Per step across every core with steps: slowest, fastest, spread;
 * nothing with fewer than two such cores. */
void tp_text_steps_across(FILE *out, const struct tp_capture *cap,
			  const struct tp_ops *ops, size_t limit);
size_t tp_text_cores_with_steps(const struct tp_ops *ops);

#endif
