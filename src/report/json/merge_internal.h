/*
 * merge_internal.h - what merge.c leaves to its neighbours in
 * src/report/json: figures of the merged document recomputed over all
 * its hosts at once.
 */
#ifndef TPUPROF_MERGE_INTERNAL_H
#define TPUPROF_MERGE_INTERNAL_H

#include <jansson.h>

#include "tpuprof/util/error.h"

/* The collectives of the merged report document m, changed in place:
 * every collective's replica_group_ids_outside_capture against the
 * devices of all the merged hosts (a host's report flags the ids of the
 * other hosts' devices; merged, they are in the capture), and no TF-era
 * host collectives once any host has an HLO module. */
void tp_merge_finish_collectives(json_t *m);

/* A report whose cores kept their per-step rows (advice_json.c): the
 * steps across hosts and the per-step advice are judged again from every
 * core's steps[], so one written without them (step_rows "left_out":
 * more than TP_STEP_ROWS_MAX steps a core, no --per-step) cannot be
 * merged: TP_ERR_INPUT naming the file, the core and the option. */
enum tp_err tp_merge_rows_kept(json_t *doc, const char *name, struct tp_error *err);

#endif
