/*
 * replica_groups.c - replica groups of a collective, explicit or in the
 * compact iota form, expanded; the collective's mode; ring bytes.
 *
 * Iota form (format-facts §4, §11.10): the ids 0..N-1 reshaped to
 * iota_reshape_dims, transposed by iota_transpose_perm, flattened and cut
 * into num_replica_groups groups of num_devices_per_group; XLA prints it
 * as "[G,S]<=[dims]T(perm)", e.g. [4,2]<=[2,4]T(1,0) = {0,4},{1,5},{2,6},{3,7}.
 */
#include "tpuprof/analyze/collectives.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/strbuf.h"

static void add_list(struct tp_strbuf *sb, const int64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tp_strbuf_addf(sb, "%s%lld", i ? "," : "", (long long)v[i]);
}

static char *iota_text(const Xla__IotaReplicaGroupListProto *io)
{
	struct tp_strbuf sb;
	bool identity = true;

	tp_strbuf_init(&sb);
	tp_strbuf_addf(&sb, "[%lld,%lld]<=[", (long long)io->num_replica_groups,
		       (long long)io->num_devices_per_group);
	add_list(&sb, io->iota_reshape_dims, io->n_iota_reshape_dims);
	tp_strbuf_adds(&sb, "]");
	for (size_t i = 0; i < io->n_iota_transpose_perm; i++)
		identity &= io->iota_transpose_perm[i] == (int32_t)i;
	if (!identity) {
		tp_strbuf_adds(&sb, "T(");
		for (size_t i = 0; i < io->n_iota_transpose_perm; i++)
			tp_strbuf_addf(&sb, "%s%d", i ? "," : "",
				       io->iota_transpose_perm[i]);
		tp_strbuf_adds(&sb, ")");
	}
	return sb.buf; /* the caller owns the malloc'd buffer */
}

/* The transpose's i-th axis: an empty permutation is the identity (a
 * writer leaves it out, as the text form leaves out T(...)). */
static int32_t perm_at(const Xla__IotaReplicaGroupListProto *io, size_t i)
{
	return io->n_iota_transpose_perm ? io->iota_transpose_perm[i] : (int32_t)i;
}

/* Element k of the transposed array: decompose k over the transposed
 * dims, then recompose the source index in row-major order. */
static int64_t iota_at(const Xla__IotaReplicaGroupListProto *io, uint64_t k)
{
	size_t r = io->n_iota_reshape_dims;
	uint64_t idx[16], src = 0;

	for (size_t i = r; i-- > 0;) {
		uint64_t d = (uint64_t)io->iota_reshape_dims[perm_at(io, i)];

		idx[perm_at(io, i)] = k % d;
		k /= d;
	}
	for (size_t i = 0; i < r; i++)
		src = src * (uint64_t)io->iota_reshape_dims[i] + idx[i];
	return (int64_t)src;
}

static bool iota_valid(const Xla__IotaReplicaGroupListProto *io, uint64_t *n)
{
	uint64_t total = 1;
	bool seen[16] = { false };

	if (io->n_iota_reshape_dims == 0 || io->n_iota_reshape_dims > 16 ||
	    (io->n_iota_transpose_perm && io->n_iota_transpose_perm != io->n_iota_reshape_dims) ||
	    io->num_replica_groups <= 0 || io->num_devices_per_group <= 0 ||
	    io->num_replica_groups > TP_MAX_GROUP_IDS ||
	    io->num_devices_per_group > TP_MAX_GROUP_IDS)
		return false;
	for (size_t i = 0; i < io->n_iota_reshape_dims; i++) {
		int32_t p = perm_at(io, i);

		if (io->iota_reshape_dims[i] <= 0 || p < 0 ||
		    (size_t)p >= io->n_iota_reshape_dims || seen[p])
			return false;
		seen[p] = true;
		total *= (uint64_t)io->iota_reshape_dims[i];
		if (total > TP_MAX_GROUP_IDS)
			return false;
	}
	*n = total;
	return (uint64_t)io->num_replica_groups *
		       (uint64_t)io->num_devices_per_group == total;
}

static bool read_iota(const Xla__IotaReplicaGroupListProto *io,
		      struct tp_replica_groups *g)
{
	uint64_t n;

	g->iota = true;
	g->text = iota_text(io);
	if (!iota_valid(io, &n))
		return false;
	g->ids = tp_xmalloc(n * sizeof(*g->ids));
	for (uint64_t k = 0; k < n; k++)
		g->ids[k] = iota_at(io, k);
	g->n_groups = (size_t)io->num_replica_groups;
	g->group_size = (size_t)io->num_devices_per_group;
	g->starts = tp_xmalloc((g->n_groups + 1) * sizeof(*g->starts));
	for (size_t i = 0; i <= g->n_groups; i++)
		g->starts[i] = i * g->group_size;
	return true;
}

static bool read_list(Xla__ReplicaGroup **groups, size_t n,
		      struct tp_replica_groups *g)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		total += groups[i]->n_replica_ids;
		if (total > TP_MAX_GROUP_IDS)
			return false;
	}
	g->ids = tp_xmalloc((total ? total : 1) * sizeof(*g->ids));
	g->starts = tp_xmalloc((n + 1) * sizeof(*g->starts));
	for (size_t i = 0; i < n; i++) {
		g->starts[i] = k;
		for (size_t j = 0; j < groups[i]->n_replica_ids; j++)
			g->ids[k++] = groups[i]->replica_ids[j];
	}
	g->starts[n] = k;
	g->n_groups = n;
	/* groups of one collective have one size; take the first */
	g->group_size = n ? groups[0]->n_replica_ids : 0;
	g->text = tp_replica_groups_expanded(g);
	return true;
}

bool tp_replica_groups_read(const Xla__HloInstructionProto *ins,
			    struct tp_replica_groups *g)
{
	const Xla__CollectiveDeviceListProto *dl = ins->collective_device_list;

	memset(g, 0, sizeof(*g));
	if (dl && dl->iota_replica_group_list) {
		g->present = true;
		return read_iota(dl->iota_replica_group_list, g);
	}
	if (dl && dl->n_replica_groups) {
		g->present = true;
		return read_list(dl->replica_groups, dl->n_replica_groups, g);
	}
	if (ins->n_replica_groups) {
		g->present = true;
		return read_list(ins->replica_groups, ins->n_replica_groups, g);
	}
	return true;
}

char *tp_replica_groups_expanded(const struct tp_replica_groups *g)
{
	struct tp_strbuf sb;

	tp_strbuf_init(&sb);
	tp_strbuf_adds(&sb, "{");
	for (size_t i = 0; i < g->n_groups; i++) {
		tp_strbuf_adds(&sb, i ? ",{" : "{");
		add_list(&sb, g->ids + g->starts[i], g->starts[i + 1] - g->starts[i]);
		tp_strbuf_adds(&sb, "}");
	}
	tp_strbuf_adds(&sb, "}");
	return sb.buf; /* the caller owns the malloc'd buffer */
}

void tp_replica_groups_release(struct tp_replica_groups *g)
{
	free(g->ids);
	free(g->starts);
	free(g->text);
	memset(g, 0, sizeof(*g));
}

uint64_t tp_ring_bytes(const char *kind, uint64_t S, uint64_t G)
{
	unsigned __int128 s = S;

	if (!G)
		return 0;
	if (strcmp(kind, "all-reduce") == 0 || strcmp(kind, "collective-reduce") == 0)
		return (uint64_t)(2 * s * (G - 1) / G);
	if (strcmp(kind, "all-gather") == 0 || strcmp(kind, "reduce-scatter") == 0 ||
	    strcmp(kind, "all-to-all") == 0 || strcmp(kind, "ragged-all-to-all") == 0)
		return (uint64_t)(s * (G - 1) / G);
	/* permute, broadcast, send, recv: each sender moves the payload once */
	return S;
}

const char *tp_collective_mode(const Xla__HloInstructionProto *ins,
			       const char *kind)
{
	bool flag_kind = strcmp(kind, "all-reduce") == 0 ||
			 strcmp(kind, "all-gather") == 0 ||
			 strcmp(kind, "reduce-scatter") == 0;

	if (ins->channel_id <= 0)
		return "cross-replica";
	if (!flag_kind)
		return "cross-partition";
	return ins->use_global_device_ids ? "flattened-id"
					  : "cross-replica-and-partition";
}
