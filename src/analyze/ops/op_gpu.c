/*
 * op_gpu.c - GPU kernels read in bulk: which op each one is, from the
 * stat values the keyed batch reader kept (program_id, hlo_module,
 * hlo_op, tf_op).
 *
 * A kernel names its op with three stats; resolving them one event at a
 * time (op_keys.c, resolve_gpu) hashes two names per event. Here the
 * stats' raw values (the program id, the two refs) key a small table
 * of their own, filled on first sight through the same lookup
 * (tp_op_gpu_lookup), so the result is the same op and the names are
 * hashed once per distinct kernel, not per event. Each kernel read also
 * goes to the core's inferred steps when they come late (gpu_runs.c).
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

#define MODULE_IS_REF 1u

static void keep(struct tp_batch_keys *k, unsigned slot,
		 const struct tp_plane *pl, enum tp_stat_name which)
{
	k->keep_on[slot] = pl->known_stat[which];
	k->keep[slot] = pl->known_stat_id[which];
}

void tp_op_count_keys(const struct tp_plane *pl, struct tp_batch_keys *k)
{
	memset(k, 0, sizeof(*k));
	k->reject_on[0] = pl->known_stat[TP_SN_FLOPS];
	k->reject[0] = pl->known_stat_id[TP_SN_FLOPS];
	k->reject_on[1] = pl->known_stat[TP_SN_BYTES_ACCESSED];
	k->reject[1] = pl->known_stat_id[TP_SN_BYTES_ACCESSED];
}

/* Stat ids a plane gives two of the names bulk reading tells apart
 * (hostile metadata) would be read differently: no bulk reading then. */
static bool ids_distinct(const struct tp_plane *pl)
{
	static const enum tp_stat_name names[] = {
		TP_SN_PROGRAM_ID, TP_SN_HLO_MODULE, TP_SN_HLO_OP, TP_SN_TF_OP,
		TP_SN_FLOPS, TP_SN_BYTES_ACCESSED, TP_SN_DEVICE_OFFSET_PS,
		TP_SN_DEVICE_DURATION_PS,
	};
	size_t n = sizeof(names) / sizeof(names[0]);

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (pl->known_stat[names[i]] && pl->known_stat[names[j]] &&
			    pl->known_stat_id[names[i]] == pl->known_stat_id[names[j]])
				return false;
	return true;
}

bool tp_op_gpu_keys(struct tp_op_ctx *c)
{
	struct tp_batch_keys *k = &c->gpu_keys;

	tp_op_count_keys(c->pl, k);
	keep(k, TP_GPU_KEY_PROGRAM, c->pl, TP_SN_PROGRAM_ID);
	keep(k, TP_GPU_KEY_MODULE, c->pl, TP_SN_HLO_MODULE);
	keep(k, TP_GPU_KEY_OP, c->pl, TP_SN_HLO_OP);
	keep(k, TP_GPU_KEY_TF_OP, c->pl, TP_SN_TF_OP);
	return ids_distinct(c->pl);
}

/* Kept stat slot of event i as a struct tp_stat (kind NONE: absent). */
static struct tp_stat kept(const struct tp_event_batch *b, unsigned slot, size_t i)
{
	struct tp_stat st;

	memset(&st, 0, sizeof(st));
	st.kind = (enum tp_stat_kind)b->kind[slot][i];
	st.v.u = b->value[slot][i];
	return st;
}

/* What resolve_gpu does with the same stats, each met once: the op's
 * key from the program id and the two names, its name, its TF op. */
static uint32_t resolve_slow(struct tp_op_ctx *c, const struct tp_event_batch *b,
			     size_t i)
{
	struct tp_stat prog = kept(b, TP_GPU_KEY_PROGRAM, i),
		       mod = kept(b, TP_GPU_KEY_MODULE, i),
		       op = kept(b, TP_GPU_KEY_OP, i),
		       tf = kept(b, TP_GPU_KEY_TF_OP, i);
	struct tp_str name = TP_STR_NULL, mname, tfop = TP_STR_NULL;
	uint64_t k[3] = { 0, 0, 0 }, h;
	int64_t v;

	if (!tp_op_str_key(c, &op, &name, &h))
		return TP_OP_NONE;
	k[2] = h;
	if (tp_op_str_key(c, &mod, &mname, &h))
		k[1] = h;
	if (tp_stat_int(&prog, &v))
		k[0] = (uint64_t)v;
	if (tf.kind == TP_STAT_REF)
		tp_stat_str(c->pl, &tf, &tfop);
	return tp_op_gpu_lookup(c, k, name, tfop);
}

/* The op of key from the table, made on first sight. */
static uint32_t table_op(struct tp_op_ctx *c, const struct tp_event_batch *b, size_t i,
			 const uint64_t *key)
{
	struct tp_op_slot *s = tp_op_table_find(&c->gpu_ops, key, 4);

	if (!s->used) {
		/* resolve_slow touches only the other table (ops_by_key) */
		uint32_t op = resolve_slow(c, b, i);

		tp_op_table_add(&c->gpu_ops, s, key, 4, op);
		return op;
	}
	return s->op;
}

/* The kernel after one of op o's, remembered (the table is the truth:
 * a remembered key gives the op the table gave it). */
static void remember_next(struct tp_op_ctx *c, uint32_t o, const uint64_t *key, uint32_t op)
{
	if (o >= c->cap_gpu_next) {
		size_t old = c->cap_gpu_next;

		c->gpu_next = tp_xgrow(c->gpu_next, &c->cap_gpu_next, (size_t)o + 1,
				       sizeof(*c->gpu_next));
		memset(c->gpu_next + old, 0, (c->cap_gpu_next - old) * sizeof(*c->gpu_next));
	}
	memcpy(c->gpu_next[o].key, key, sizeof(c->gpu_next[o].key));
	c->gpu_next[o].op = op + 1;
}

uint32_t tp_op_resolve_gpu_batch(struct tp_op_ctx *c,
				 const struct tp_event_batch *b, size_t i)
{
	uint8_t pk = b->kind[TP_GPU_KEY_PROGRAM][i];
	uint64_t key[4];
	uint32_t op, prev = c->gpu_prev;

	/* an hlo_op that is an integer names no op (kept stats are integers) */
	if (b->kind[TP_GPU_KEY_OP][i] != TP_STAT_REF)
		return TP_OP_NONE;
	/* the key as resolve_gpu would see it: a program id that is a ref
	 * counts as none, a module that is not a ref as no module */
	key[0] = pk == TP_STAT_UINT64 || pk == TP_STAT_INT64 ?
			 b->value[TP_GPU_KEY_PROGRAM][i] : 0;
	key[3] = b->kind[TP_GPU_KEY_MODULE][i] == TP_STAT_REF ? MODULE_IS_REF : 0;
	key[1] = key[3] ? b->value[TP_GPU_KEY_MODULE][i] : 0;
	key[2] = b->value[TP_GPU_KEY_OP][i];
	/* the kernel that followed the last one's op last time, again: ops
	 * are numbered as first met, so these entries are read in order,
	 * not scattered as the table's slots are */
	if (prev && prev <= c->cap_gpu_next && c->gpu_next[prev - 1].op &&
	    tp_op_same_key(c->gpu_next[prev - 1].key, key, 4)) {
		op = c->gpu_next[prev - 1].op - 1;
	} else {
		op = table_op(c, b, i, key);
		if (prev)
			remember_next(c, prev - 1, key, op);
	}
	c->gpu_prev = op == TP_OP_NONE ? 0 : op + 1;
	return op;
}

void tp_op_resolve_gpu_ops(struct tp_op_ctx *c, const struct tp_event_batch *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c->bufs->gpu_ops[i] = tp_op_resolve_gpu_batch(c, b, i);
}

void tp_op_programs_line(struct tp_op_ctx *c, const struct tp_line *ln)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];

	c->count_programs = c->pl->kind == TP_PLANE_GPU &&
			    c->pl->known_stat[TP_SN_PROGRAM_ID];
	if (!c->count_programs)
		return;
	c->line_programs = core->n_programs;
	c->line_hit = SIZE_MAX;
	core->programs = tp_xrealloc(core->programs,
				     (core->n_programs + 1) * sizeof(*core->programs));
	core->programs[core->n_programs].line = ln;
	core->programs[core->n_programs].id = 0;
	core->programs[core->n_programs++].runs = 0; /* the line was read */
}

/* One event carrying program id: the line's entry for it, made on first
 * sight (the line's placeholder first). */
static void count_program(struct tp_op_ctx *c, uint64_t id)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	struct tp_line_program *p = core->programs + c->line_programs;
	size_t n = core->n_programs - c->line_programs;

	/* an execution's kernels come together: the last one's program first */
	if (c->line_hit < n && p[c->line_hit].runs && p[c->line_hit].id == id) {
		p[c->line_hit].runs++;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (p[i].runs && p[i].id == id) {
			p[i].runs++;
			c->line_hit = i;
			return;
		}
	if (n == 1 && !p[0].runs) {
		p[0].id = id;
		p[0].runs = 1;
		return;
	}
	core->programs = tp_xrealloc(core->programs,
				     (core->n_programs + 1) * sizeof(*core->programs));
	core->programs[core->n_programs].line = core->programs[c->line_programs].line;
	core->programs[core->n_programs].id = id;
	core->programs[core->n_programs++].runs = 1;
}

/* As tp_event_stat finds program_id, on the event else on its metadata,
 * and tp_stat_int reads it; kept values are integers or refs. */
void tp_op_programs_batch(struct tp_op_ctx *c, const struct tp_event_batch *b, size_t n)
{
	if (c->kernels)
		tp_gpu_kernels_batch(c->kernels, b, n, c->bufs->gpu_ops);
	if (!c->count_programs)
		return;
	for (size_t i = 0; i < n; i++) {
		uint8_t kind = b->kind[TP_GPU_KEY_PROGRAM][i];
		const struct tp_event_meta *em;
		const struct tp_stat *s;
		int64_t v;

		if (kind == TP_STAT_UINT64 || kind == TP_STAT_INT64) {
			count_program(c, b->value[TP_GPU_KEY_PROGRAM][i]);
		} else if (kind == TP_STAT_NONE) {
			em = &c->pl->event_meta[b->meta[i]];
			if ((s = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_PROGRAM_ID)) &&
			    tp_stat_int(s, &v))
				count_program(c, (uint64_t)v);
		}
	}
}

void tp_op_programs_event(struct tp_op_ctx *c, const struct tp_event *ev)
{
	struct tp_stat st;
	int64_t v;

	if (c->kernels)
		tp_gpu_kernels_event(c->kernels, ev);
	if (c->count_programs &&
	    tp_event_stat(&c->host->xs, c->pl, ev, TP_SN_PROGRAM_ID, &st) &&
	    tp_stat_int(&st, &v))
		count_program(c, (uint64_t)v);
}
