/*
 * merge_internal.h - what merge.c leaves to its neighbours in
 * src/report/json: figures of the merged document recomputed over all
 * its hosts at once.
 */
#ifndef TPUPROF_MERGE_INTERNAL_H
#define TPUPROF_MERGE_INTERNAL_H

#include <jansson.h>

/* The collectives of the merged report document m, changed in place:
 * every collective's replica_group_ids_outside_capture against the
 * devices of all the merged hosts (a host's report flags the ids of the
 * other hosts' devices; merged, they are in the capture), and no TF-era
 * host collectives once any host has an HLO module. */
void tp_merge_finish_collectives(json_t *m);

#endif
