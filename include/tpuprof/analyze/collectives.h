/*
 * collectives.h - every collective of every HLO module (`tpuprof
 * collectives`): payload bytes, replica groups (explicit or iota form,
 * expanded), mode, the bytes each device sends under a ring algorithm
 * (docs/ops.md has the formulas), and occurrences and device time from the
 * op table; totals per core and module. Captures without HLO list the
 * TF-era host collectives (CollectiveReduce events) instead.
 *
 * Ownership: tp_collectives owns its malloc'd arrays, strings and op
 * table; names and scopes are slices of the capture, which must outlive
 * the result. tp_collectives_release() frees it.
 */
#ifndef TPUPROF_COLLECTIVES_H
#define TPUPROF_COLLECTIVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlo.pb-c.h"
#include "tpuprof/analyze/ops.h"

/* Replica groups of one instruction, expanded. */
struct tp_replica_groups {
	bool present;          /* the instruction lists groups            */
	bool iota;             /* given in the compact iota form          */
	int64_t *ids;          /* malloc'd; group after group             */
	size_t *starts;        /* malloc'd; group i is ids[starts[i] ..
				* starts[i + 1]), n_groups + 1 entries   */
	size_t n_groups, group_size; /* group_size: of the first group    */
	char *text;            /* malloc'd: as XLA prints it              */
};

#define TP_MAX_GROUP_IDS (1u << 20)

/* Reads collective_device_list (iota or explicit) or replica_groups.
 * False when the iota form is malformed or too large (> TP_MAX_GROUP_IDS
 * ids); g is then empty but text still says what was given. */
bool tp_replica_groups_read(const Xla__HloInstructionProto *ins,
			    struct tp_replica_groups *g);
void tp_replica_groups_release(struct tp_replica_groups *g);
/* The expanded groups as "{{0,4},{1,5}}"; the caller frees it. */
char *tp_replica_groups_expanded(const struct tp_replica_groups *g);

/* Bytes one device sends for a collective of kind with payload S over a
 * group of G devices (ring algorithms, docs/ops.md). */
uint64_t tp_ring_bytes(const char *kind, uint64_t S, uint64_t G);
/* cross-replica, cross-partition, cross-replica-and-partition or
 * flattened-id, from channel_id and use_global_device_ids. */
const char *tp_collective_mode(const Xla__HloInstructionProto *ins,
			       const char *kind);

struct tp_coll_core {
	size_t core;           /* index into ops.cores                    */
	uint64_t occurrences;
	int64_t time_ps;
};

struct tp_coll_exec {
	size_t core;
	bool done;             /* the -done half of an async pair         */
	int64_t start_ps, dur_ps;
};

struct tp_collective {
	size_t module;         /* index into tp_capture.modules           */
	long instr;            /* the collective (or its -start)          */
	long done;             /* its -done instruction, or -1            */
	long fusion;           /* fusion whose body holds it, or -1       */
	const char *kind;      /* "all-reduce", ... (static)              */
	const char *mode;      /* static                                  */
	uint64_t bytes;        /* payload S                               */
	struct tp_replica_groups groups;
	uint64_t group_size;   /* 0 when unknown                          */
	uint64_t ring_bytes;   /* per device; 0 when group size unknown   */
	size_t n_pairs;        /* collective-permute source-target pairs  */
	uint64_t occurrences;
	int64_t time_ps;
	bool timed_as_fusion;  /* times are the enclosing fusion's        */
	/* the time the bytes moved in: time_ps for a synchronous op; for an
	 * async pair the spans from each -start's begin to its -done's end
	 * (the halves' own times leave out the transfer between them),
	 * summed; 0 when no -start found its -done */
	int64_t span_ps;
	struct tp_coll_core *cores; /* malloc'd                            */
	size_t n_cores;
	size_t first_exec, n_execs; /* range of tp_collectives.execs       */
};

struct tp_coll_module {
	size_t module;
	size_t collectives;
	uint64_t occurrences;
	int64_t time_ps;
	/* ring bytes summed over executions: on the device that sent the
	 * most (per device), and over every device (total) */
	uint64_t ring_bytes_per_device, ring_bytes_total;
};

/* A TF-era host collective event (no HLO in the capture). */
struct tp_host_collective {
	size_t host;
	struct tp_str line, name;  /* borrowed                            */
	int64_t start_ps, dur_ps;
};

struct tp_collectives {
	struct tp_ops ops;
	struct tp_collective *v;       /* malloc'd, module then HLO order */
	size_t n, cap;
	struct tp_coll_exec *execs;    /* malloc'd                        */
	size_t n_execs, cap_execs;
	struct tp_coll_module *modules; /* malloc'd                       */
	size_t n_modules;
	struct tp_host_collective *host; /* malloc'd                      */
	size_t n_host, cap_host;
	/* per ops core: ring bytes it sent, every collective's executions
	 * there summed; malloc'd, ops.n_cores entries */
	uint64_t *core_ring_bytes;
};

/* Ring bytes one collective sent from its i-th core (cores[i]): ring
 * bytes per execution × that core's executions. */
uint64_t tp_collective_core_bytes(const struct tp_collective *col, size_t i);
/* The most ring bytes any one device sent for this collective. */
uint64_t tp_collective_max_device_bytes(const struct tp_collective *col);

enum tp_err tp_collectives_build(struct tp_collectives *c,
				 struct tp_capture *cap,
				 const struct tp_ops_filter *filter,
				 struct tp_error *err);
void tp_collectives_release(struct tp_collectives *c);

/* Bytes one device sent per second: ring bytes × occurrences / span_ps;
 * false without a span or group size. */
bool tp_collective_rate(const struct tp_collective *col, double *bytes_per_s);
/* The interconnect (both directions, per plane) of the device of the
 * first core it ran on; none when unknown. */
struct tp_figure tp_collective_link(const struct tp_collectives *c,
				    const struct tp_collective *col);
/* The rate over one direction of that interconnect (half the figure).
 * False without a rate or interconnect, and when the share would be
 * above 1 (no share of a peak over 100%: the times cannot hold the
 * transfer); *why then says so, else it is NULL. */
bool tp_collective_link_share(const struct tp_collectives *c, const struct tp_collective *col,
			      double *share, const char **why);
/* One direction of that interconnect per device (half the figure): what
 * the share is of; 0 when unknown. */
double tp_collective_link_each_way(const struct tp_collectives *c,
				   const struct tp_collective *col);

/* The devices of the capture: /device:TPU:N and /device:GPU:N planes of
 * every host (not SparseCores), so ids 0 .. n-1. */
size_t tp_capture_devices(const struct tp_capture *cap);
/* How many distinct ids of col's replica groups name no device of a
 * capture of n_devices (id >= n_devices: devices of hosts it does not
 * hold), the least and the most in *lo, *hi; 0 when none or no groups. */
size_t tp_collective_ids_outside(const struct tp_collective *col, size_t n_devices,
				 int64_t *lo, int64_t *hi);

/* Appends the TF-era host collective events of every host to c->host
 * (used by tp_collectives_build when the capture has no HLO). */
void tp_host_collectives_scan(struct tp_collectives *c,
			      const struct tp_capture *cap);

#endif
