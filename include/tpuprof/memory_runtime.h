/*
 * memory_runtime.h - the runtime allocator's timeline per device memory,
 * from MemoryAllocation / MemoryDeallocation events on /host:CPU
 * (format-facts §6, §11.8): bytes in use over absolute time, the peak
 * (heap + stack) and the allocations active at the peak.
 *
 * Ownership: the result owns its malloc'd arrays and the pool that holds
 * its snapshots' strings (copied, so the capture's pages can go once the
 * analysis has read them); it borrows only host indexes.
 */
#ifndef TPUPROF_MEMORY_RUNTIME_H
#define TPUPROF_MEMORY_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/capture.h"
#include "tpuprof/strpool.h"

struct tp_mem_snapshot {
	int64_t time_ps;          /* absolute (line timestamp + offset)      */
	int64_t offset_ps;        /* raw, line-relative (what XProf sorts)   */
	bool allocation;          /* else a deallocation                     */
	int64_t stack, heap, free;/* bytes_reserved, bytes_allocated, _available */
	int64_t peak_in_use;      /* peak_bytes_in_use as reported           */
	int64_t requested, allocated; /* requested_bytes, allocation_bytes   */
	double fragmentation;
	uint64_t address;
	int64_t step;             /* group_id; -1 when none, then fixed up   */
	int64_t data_type;        /* TF DataType number                      */
	struct tp_str tf_op, region, shape; /* pooled (tp_mem_runtime.pool) */
	size_t seq;               /* order met in the capture                 */
};

/* A row of the allocations active at the peak. */
struct tp_mem_active {
	long snapshot;            /* index into snapshots; -1 for specials    */
	const char *special;      /* "unused preallocated device memory", "stack" */
	int64_t bytes;            /* allocation bytes of the row              */
	uint64_t occurrences;     /* identical rows merged                    */
};

struct tp_mem_device {
	char *id;                 /* memory id: index_on_host, device_ordinal or allocator_name */
	size_t host;              /* index into the capture's hosts          */
	struct tp_mem_snapshot *snapshots; /* malloc'd, sorted by time_ps    */
	size_t n_snapshots;
	uint64_t allocations, deallocations;
	bool has_peak;
	size_t peak_snapshot;     /* index of the peak snapshot (sorted)      */
	int64_t peak_bytes;       /* stack + heap at the peak                 */
	int64_t capacity;         /* stack + heap + free at the peak          */
	int64_t lifetime_peak;    /* the last event's peak_bytes_in_use       */
	int64_t peak_step;
	struct tp_mem_active *active; /* malloc'd, sorted as XProf sorts      */
	size_t n_active;
};

struct tp_mem_runtime {
	struct tp_mem_device *devices; /* malloc'd, by host then memory id   */
	size_t n_devices, cap_devices;
	struct tp_strpool pool;        /* the snapshots' strings             */
};

/* Walks /host:CPU of every host. */
void tp_mem_runtime_build(struct tp_mem_runtime *rt, const struct tp_capture *cap);
void tp_mem_runtime_release(struct tp_mem_runtime *rt);

/* Fills d->active (format-facts §6 step 6); called by the build. */
void tp_mem_active_at_peak(struct tp_mem_device *d);

/* TF DataType name ("float", "bfloat16"; "INVALID" for 0). */
const char *tp_tf_dtype_name(int64_t dtype);

#endif
