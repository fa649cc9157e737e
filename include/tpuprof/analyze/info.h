/*
 * info.h - what a capture holds and what it lacks (`tpuprof info`).
 *
 * The analysis walks the decoded capture once and derives what the raw
 * records do not state directly: device type and software versions, the
 * capture's wall-clock start and duration, counts of runtime memory and
 * collective events, HLO module counts, and warnings naming the analyses
 * that missing data rules out. What the writers print of a plane's stats
 * and versions is copied into the result's pool, so that the analysis can
 * release each host's pages once it has read them and the writers read
 * only the result; plane and line names are the decoder's own copies.
 *
 * Ownership: tp_info_release() frees the result (malloc'd arrays, the
 * pool's strings); it borrows the capture's hosts, planes and modules,
 * so the capture must outlive it.
 */
#ifndef TPUPROF_INFO_H
#define TPUPROF_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/util/strpool.h"

struct tp_info_module {
	const struct tp_module *module; /* borrowed from the capture       */
	struct tp_hlo_counts counts;
};

struct tp_info_version {
	struct tp_str name;              /* stat name, pooled                */
	struct tp_str value;             /* string value, pooled             */
};

/* A plane stat as `info --format json` lists it. */
struct tp_info_stat {
	struct tp_str name;              /* pooled; empty when unnamed       */
	int64_t metadata_id;             /* the key when unnamed             */
	enum tp_stat_kind kind;
	union {
		double d;
		uint64_t u;
		int64_t i;
		size_t bytes;                /* BYTES: the length only          */
	} v;
	bool has_str;                    /* STR, REF: resolved              */
	struct tp_str str;               /* pooled                          */
};

struct tp_info_plane {
	struct tp_info_stat *stats;      /* malloc'd, the plane's order     */
	size_t n_stats;
	struct tp_str *line_display_names; /* malloc'd, pooled, per line    */
};

struct tp_info_host {
	const struct tp_host *host;      /* borrowed from the capture       */
	const char *device_type;         /* malloc'd, or NULL               */
	bool has_task_env;
	uint64_t profile_start_ns;       /* Task Environment, epoch ns      */
	uint64_t profile_stop_ns;
	bool has_capture_ps;             /* stop not before start           */
	uint64_t capture_ps;             /* stop - start in ps, saturating  */
	uint64_t memory_allocations;     /* MemoryAllocation events         */
	uint64_t memory_deallocations;   /* MemoryDeallocation events       */
	uint64_t collective_events;      /* collective op executions        */
	uint64_t device_planes;          /* TPU, GPU and custom planes      */
	uint64_t device_planes_with_events;
	bool has_op_line;                /* XLA Ops / Framework Ops / kernels */
	size_t first_module, n_modules;  /* range of tp_info.modules        */
	struct tp_info_version *versions; /* malloc'd; first seen per name  */
	size_t n_versions, cap_versions;
	struct tp_info_plane *planes;    /* malloc'd, one per host plane    */
	/* the XSpace's own lists, pooled; malloc'd arrays of the host's
	 * xs.n_hostnames, n_errors, n_warnings */
	struct tp_str *hostnames, *errors, *warnings;
};

/* capture_ps for printing as a signed duration (INT64_MAX at most). */
static inline int64_t tp_info_capture_ps(const struct tp_info_host *ih)
{
	return ih->capture_ps > INT64_MAX ? INT64_MAX : (int64_t)ih->capture_ps;
}

struct tp_info {
	struct tp_info_host *hosts;      /* malloc'd, capture order         */
	size_t n_hosts;
	struct tp_info_module *modules;  /* malloc'd, capture order         */
	size_t n_modules;
	char **warnings;                 /* malloc'd lines                  */
	size_t n_warnings, cap_warnings;
	struct tp_strpool pool;          /* stat names and values           */
};

/* Builds the info for every host and module; decodes HLO modules (so it
 * can fail with TP_ERR_INPUT on a corrupt one, leaving info released). */
enum tp_err tp_info_build(struct tp_info *info, struct tp_capture *cap,
			  struct tp_error *err);
void tp_info_release(struct tp_info *info);

#endif
