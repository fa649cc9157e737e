/*
 * merge.h - combining `tpuprof.report/1` documents made on different
 * machines (one per host, say) into the document one run over all their
 * files would have produced: hosts, cores and runtime memories are
 * concatenated in argument order, programs are kept once (by program id),
 * collective executions and op time are summed, the op scope tree is
 * rebuilt. docs/json.md lists the rule for every field.
 *
 * Ownership: the inputs are borrowed; the result is a new reference.
 */
#ifndef TPUPROF_MERGE_H
#define TPUPROF_MERGE_H

#include <stddef.h>

#include <jansson.h>

#include "tpuprof/error.h"

/* Merges n >= 1 report documents; fails with TP_ERR_INPUT naming the
 * argument that is not a report or lacks a part. */
enum tp_err tp_report_merge(json_t **out, json_t *const *docs,
			    const char *const *names, size_t n,
			    struct tp_error *err);

#endif
