/*
 * op_keys.c - which op an event belongs to, and the op's descriptors.
 *
 * Hot path: TPU and TF events resolve through a per-metadata array (one
 * integer lookup); GPU kernels through a hash of (program id, module name,
 * op name) where names come as ref ids, whose hashes are computed once per
 * stat metadata. No allocation and no string comparison per event.
 */
#include "ops_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ULL;
	}
	return h | 1; /* 0 marks "not computed" */
}

/* A string stat value and its hash: ref hashes are cached per metadata. */
bool tp_op_str_key(struct tp_op_ctx *c, const struct tp_stat *st,
		   struct tp_str *s, uint64_t *h)
{
	if (st->kind == TP_STAT_REF) {
		const struct tp_stat_meta *sm =
			tp_plane_stat_meta(c->pl, (int64_t)st->v.u);
		size_t i;

		if (!sm)
			return false;
		i = (size_t)(sm - c->pl->stat_meta);
		if (!c->name_hash[i])
			c->name_hash[i] = hash_bytes(sm->name.ptr, sm->name.len);
		*s = sm->name;
		*h = c->name_hash[i];
		return true;
	}
	if (st->kind != TP_STAT_STR)
		return false;
	*s = st->v.s;
	*h = hash_bytes(s->ptr, s->len);
	return true;
}

static bool module_passes(struct tp_op_ctx *c, size_t m)
{
	if (!c->filter || !c->filter->module)
		return true;
	return m != SIZE_MAX && tp_module_matches(&c->cap->modules[m], c->filter->module);
}

static struct tp_str fusion_category(const char *kind)
{
	static const struct { const char *kind, *cat; } kinds[] = {
		{ "kLoop", "loop fusion" }, { "kInput", "input fusion" },
		{ "kOutput", "output fusion" }, { "kCustom", "custom fusion" },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kind && strcmp(kind, kinds[i].kind) == 0)
			return tp_str_make(kinds[i].cat, strlen(kinds[i].cat));
	return tp_str_make("fusion", 6);
}

/* Fills what the HLO instruction knows and the event did not say. */
static void from_hlo(struct tp_op_ctx *c, struct tp_op *op)
{
	const struct tp_hlo_index *idx;
	const Xla__HloInstructionProto *ins;
	const char *file;
	int line;

	if (op->module == SIZE_MAX ||
	    !(idx = tp_ops_index(c->ops, c->cap, op->module)))
		return;
	op->instr = tp_hlo_find_name(idx, op->name);
	if (op->instr < 0)
		return;
	ins = idx->instrs[op->instr].proto;
	if (!op->scope.len)
		op->scope = tp_str_make(tp_hlo_scope(ins), strlen(tp_hlo_scope(ins)));
	if (!op->source && tp_hlo_source(idx, ins, &file, &line))
		op->source = tp_xasprintf("%s:%d", file, line);
	if (!op->category.len)
		op->category = strcmp(ins->opcode, "fusion") == 0 ?
				       fusion_category(ins->fusion_kind) :
				       tp_str_make(ins->opcode, strlen(ins->opcode));
	if (tp_collective_kind(tp_str_make(ins->opcode, strlen(ins->opcode))))
		op->collective = true;
	op->copy = !op->collective && (tp_op_copy_kind(op->category) ||
		   tp_op_copy_kind(tp_str_make(ins->opcode, strlen(ins->opcode))));
}

static uint32_t new_op(struct tp_op_ctx *c, const uint64_t k[3],
		       uint64_t program_id, struct tp_str name)
{
	struct tp_ops *ops = c->ops;
	size_t m = SIZE_MAX;
	struct tp_op *op;
	size_t local;

	if (ops->cores[c->core].source != TP_OPSRC_TF)
		m = tp_ops_find_module(c->cap, program_id);
	if (!module_passes(c, m))
		return TP_OP_NONE;
	ops->ops = tp_xgrow(ops->ops, &ops->cap_ops, ops->n_ops + 1,
			    sizeof(*ops->ops));
	op = &ops->ops[ops->n_ops];
	memset(op, 0, sizeof(*op));
	op->core = c->core;
	op->program_id = program_id;
	op->module = m;
	op->instr = -1;
	op->name = name;
	op->min_ps = INT64_MAX;
	local = ops->n_ops - ops->cores[c->core].first_op;
	c->vals = tp_xgrow(c->vals, &c->cap_vals, local + 1, sizeof(*c->vals));
	memset(&c->vals[local], 0, sizeof(c->vals[local]));
	return (uint32_t)ops->n_ops++;
}

static uint32_t lookup_or_new(struct tp_op_ctx *c, const uint64_t k[3],
			      uint64_t program_id, struct tp_str name,
			      bool *created)
{
	struct tp_op_slot *s = tp_op_table_find(&c->ops_by_key, k, 3);
	uint32_t op;

	*created = false;
	if (s->used)
		return s->op;
	/* new_op touches no table: s stays the free slot of k */
	op = new_op(c, k, program_id, name);
	tp_op_table_add(&c->ops_by_key, s, k, 3, op);
	*created = op != TP_OP_NONE;
	return op;
}

static void meta_vals(struct tp_op_ctx *c, struct tp_op *op,
		      const struct tp_event_meta *em)
{
	struct tp_op_meta_vals *v =
		&c->vals[op - c->ops->ops - c->ops->cores[c->core].first_op];
	const struct tp_stat *s;

	s = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_FLOPS);
	v->has_flops = s && tp_stat_int(s, &v->flops);
	s = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_BYTES_ACCESSED);
	v->has_bytes = s && tp_stat_int(s, &v->bytes);
}

static void tpu_descriptors(struct tp_op_ctx *c, struct tp_op *op,
			    const struct tp_event_meta *em)
{
	const struct tp_stat *s;
	struct tp_str v;

	s = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_HLO_CATEGORY);
	if (s && tp_stat_str(c->pl, s, &v))
		op->category = v;
	s = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_TF_OP);
	if (s && tp_stat_str(c->pl, s, &v))
		op->scope = tp_scope_from_tf_op(v);
	s = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_SOURCE);
	if (s && tp_stat_str(c->pl, s, &v) && v.len)
		op->source = tp_str_dup(v);
	if (tp_collective_kind(op->category))
		op->collective = true;
	op->copy = !op->collective && tp_op_copy_kind(op->category);
	meta_vals(c, op, em);
	from_hlo(c, op);
}

/* The op's strings copied out of the capture, once per distinct string
 * (see struct tp_op). */
static void own_strings(struct tp_op_ctx *c, struct tp_op *o)
{
	struct tp_strpool *pool = c->ops->strings;

	o->name = tp_strpool_intern(pool, o->name);
	o->category = tp_strpool_intern(pool, o->category);
	o->scope = tp_strpool_intern(pool, o->scope);
}

/* TPU: (program id, symbol id) of the event metadata; symbol id 0 and
 * metadata without both are no ops (format-facts §7). */
static uint32_t resolve_tpu_meta(struct tp_op_ctx *c,
				 const struct tp_event_meta *em)
{
	const struct tp_stat *ps, *ss;
	int64_t pid, sid;
	uint64_t k[3];
	bool created;
	uint32_t op;

	ps = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_PROGRAM_ID);
	ss = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_SYMBOL_ID);
	if (!ps || !ss || !tp_stat_int(ps, &pid) || !tp_stat_int(ss, &sid) ||
	    sid == 0)
		return TP_OP_NONE;
	k[0] = (uint64_t)pid;
	k[1] = (uint64_t)sid;
	k[2] = 0;
	op = lookup_or_new(c, k, (uint64_t)pid,
			   em->display_name.len ? em->display_name : em->name,
			   &created);
	if (created) {
		tpu_descriptors(c, &c->ops->ops[op], em);
		own_strings(c, &c->ops->ops[op]);
	}
	return op;
}

/* TF-era: one op per TensorFlow op name "<scope>/<op>:<Type>". */
static uint32_t resolve_tf_meta(struct tp_op_ctx *c,
				const struct tp_event_meta *em)
{
	uint64_t k[3] = { 0, hash_bytes(em->name.ptr, em->name.len), 0 };
	bool created;
	uint32_t op = lookup_or_new(c, k, 0, em->name, &created);

	if (created) {
		struct tp_op *o = &c->ops->ops[op];
		const struct tp_stat *s = tp_stats_find(c->pl, em->stats, em->n_stats,
							TP_SN_HLO_CATEGORY);

		/* the metadata's hlo_category where present (XProf's op table
		 * takes it on every op line), else the TF op type */
		if (!s || !tp_stat_str(c->pl, s, &o->category))
			o->category = em->display_name;
		o->scope = tp_scope_from_tf_op(em->name);
		meta_vals(c, o, em);
		if (tp_str_has_prefix(em->display_name, "Collective") ||
		    tp_str_eq(em->display_name, "NcclAllReduce"))
			o->collective = true;
		own_strings(c, o);
	}
	return op;
}

/* GPU: kernel events carry program_id, hlo_module and hlo_op. */
static uint32_t resolve_gpu(struct tp_op_ctx *c, const struct tp_event *ev)
{
	const struct tp_plane *pl = c->pl;
	struct tp_stat_iter it;
	struct tp_stat st;
	struct tp_str mod = TP_STR_NULL, name = TP_STR_NULL, tfop = TP_STR_NULL;
	uint64_t k[3] = { 0, 0, 0 }, h;
	bool has_op = false;

	tp_stat_iter_init(&it, &c->host->xs, ev);
	while (tp_stat_iter_next(&it, &st) > 0) {
		int64_t v;

		if (pl->known_stat[TP_SN_HLO_OP] &&
		    st.metadata_id == pl->known_stat_id[TP_SN_HLO_OP] &&
		    tp_op_str_key(c, &st, &name, &h)) {
			k[2] = h;
			has_op = true;
		} else if (pl->known_stat[TP_SN_HLO_MODULE] &&
			   st.metadata_id == pl->known_stat_id[TP_SN_HLO_MODULE] &&
			   tp_op_str_key(c, &st, &mod, &h)) {
			k[1] = h;
		} else if (pl->known_stat[TP_SN_PROGRAM_ID] &&
			   st.metadata_id == pl->known_stat_id[TP_SN_PROGRAM_ID] &&
			   tp_stat_int(&st, &v)) {
			k[0] = (uint64_t)v;
		} else if (pl->known_stat[TP_SN_TF_OP] &&
			   st.metadata_id == pl->known_stat_id[TP_SN_TF_OP]) {
			tfop = TP_STR_NULL;
			if (st.kind == TP_STAT_STR || st.kind == TP_STAT_REF)
				tp_stat_str(pl, &st, &tfop);
		}
	}
	if (!has_op)
		return TP_OP_NONE;
	return tp_op_gpu_lookup(c, k, name, tfop);
}

/* "xla::op::custom-call.1" -> "custom-call.1": XProf splits hlo_op on
 * "::" and names the op by the last part (gpu_event_stats.cc). */
static struct tp_str last_scope_part(struct tp_str s)
{
	for (size_t i = s.len; i >= 2; i--)
		if (s.ptr[i - 1] == ':' && s.ptr[i - 2] == ':')
			return tp_str_make(s.ptr + i, s.len - i);
	return s;
}

uint32_t tp_op_gpu_lookup(struct tp_op_ctx *c, const uint64_t k[3],
			  struct tp_str name, struct tp_str tfop)
{
	bool created;
	uint32_t op = lookup_or_new(c, k, k[0], last_scope_part(name), &created);

	if (created) {
		struct tp_op *o = &c->ops->ops[op];
		struct tp_str sc = tp_scope_from_tf_op(tfop);

		from_hlo(c, o);
		if (!o->scope.len && !tp_str_has_prefix(sc, "XlaModule"))
			o->scope = sc;
		own_strings(c, o);
	}
	return op;
}

uint32_t tp_op_resolve(struct tp_op_ctx *c, const struct tp_event *ev)
{
	enum tp_op_source src = c->ops->cores[c->core].source;
	size_t mi;

	if (src == TP_OPSRC_GPU)
		return resolve_gpu(c, ev);
	if (!ev->meta)
		return TP_OP_NONE;
	mi = (size_t)(ev->meta - c->pl->event_meta);
	if (!c->meta_op[mi]) {
		uint32_t op = src == TP_OPSRC_TPU ? resolve_tpu_meta(c, ev->meta)
						  : resolve_tf_meta(c, ev->meta);

		c->meta_op[mi] = op == TP_OP_NONE ? TP_OP_NONE : op + 1;
	}
	return c->meta_op[mi] == TP_OP_NONE ? TP_OP_NONE : c->meta_op[mi] - 1;
}

/* FLOPs/bytes stats on the event itself: *fl, *by say which it had. */
static void event_counts(struct tp_op_ctx *c, struct tp_op *op,
			 const struct tp_event *ev, bool *fl, bool *by)
{
	const struct tp_plane *pl = c->pl;
	struct tp_stat_iter it;
	struct tp_stat st;
	int64_t x;

	tp_stat_iter_init(&it, &c->host->xs, ev);
	while (tp_stat_iter_next(&it, &st) > 0) {
		if (pl->known_stat[TP_SN_FLOPS] && !*fl &&
		    st.metadata_id == pl->known_stat_id[TP_SN_FLOPS] &&
		    tp_stat_int(&st, &x)) {
			op->flops = tp_sat_add(op->flops, x);
			*fl = op->has_flops = true;
		} else if (pl->known_stat[TP_SN_BYTES_ACCESSED] && !*by &&
			   st.metadata_id == pl->known_stat_id[TP_SN_BYTES_ACCESSED] &&
			   tp_stat_int(&st, &x)) {
			op->bytes_accessed = tp_sat_add(op->bytes_accessed, x);
			*by = op->has_bytes = true;
		}
	}
}

void tp_op_add_counts_slow(struct tp_op_ctx *c, uint32_t id, const struct tp_event *ev)
{
	const struct tp_plane *pl = c->pl;
	struct tp_op_meta_vals *v = &c->vals[id - c->ops->cores[c->core].first_op];
	bool fl = false, by = false;
	uint64_t n = ev->num_occurrences > 0 ? (uint64_t)ev->num_occurrences : 1;

	/* other_stats false: the event has no stat but device time */
	if (ev->other_stats &&
	    (pl->known_stat[TP_SN_FLOPS] || pl->known_stat[TP_SN_BYTES_ACCESSED]))
		event_counts(c, &c->ops->ops[id], ev, &fl, &by);
	if (!fl && v->has_flops)
		v->n_flops = tp_op_sat_uadd(v->n_flops, n);
	if (!by && v->has_bytes)
		v->n_bytes = tp_op_sat_uadd(v->n_bytes, n);
}

static int64_t clamp_count(uint64_t n)
{
	return n > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n;
}

void tp_op_apply_meta_vals(struct tp_op_ctx *c)
{
	const struct tp_ops_core *core = &c->ops->cores[c->core];

	for (size_t i = 0; i < c->ops->n_ops - core->first_op; i++) {
		struct tp_op *op = &c->ops->ops[core->first_op + i];
		struct tp_op_meta_vals *v = &c->vals[i];

		if (v->has_flops)
			v->n_flops = tp_op_sat_uadd(v->n_flops, op->meta_occ);
		if (v->has_bytes)
			v->n_bytes = tp_op_sat_uadd(v->n_bytes, op->meta_occ);
		op->meta_occ = 0;
		if (v->n_flops) {
			op->flops = tp_sat_add(op->flops, tp_sat_mul(v->flops,
								     clamp_count(v->n_flops)));
			op->has_flops = true;
		}
		if (v->n_bytes) {
			op->bytes_accessed = tp_sat_add(op->bytes_accessed,
							tp_sat_mul(v->bytes, clamp_count(v->n_bytes)));
			op->has_bytes = true;
		}
		v->n_flops = v->n_bytes = 0;
	}
}

void tp_op_ctx_release(struct tp_op_ctx *c)
{
	free(c->meta_op);
	free(c->name_hash);
	free(c->vals);
	tp_op_table_release(&c->ops_by_key);
	tp_op_table_release(&c->gpu_ops);
	free(c->gpu_next);
	c->gpu_next = NULL;
	c->cap_gpu_next = 0;
	c->meta_op = NULL;
	c->name_hash = NULL;
	c->vals = NULL;
	c->cap_vals = 0;
}

/* ---- the one open-addressing table of the ops analysis: a key of
 * `width` 64-bit words to an op. Keyed here by (program id, module name
 * hash, op name hash), by op_gpu.c with GPU kernels' raw stat values;
 * nothing here calls op_gpu.c. Linear probing, at most half full, the
 * capacity a power of two. The lookup is inline in ops_internal.h:
 * called with a constant width, it compiles to fixed-width code. ---- */

void tp_op_table_grow(struct tp_op_table *t, unsigned width)
{
	struct tp_op_slot *old = t->slots;
	size_t n = t->cap;

	t->cap = n ? 2 * n : 64;
	t->slots = tp_xzalloc(t->cap, sizeof(*t->slots)); /* probed first */
	for (size_t i = 0; i < n; i++)
		if (old[i].used)
			*tp_op_table_probe(t, old[i].key, width) = old[i];
	free(old);
}

void tp_op_table_add(struct tp_op_table *t, struct tp_op_slot *s,
		     const uint64_t *key, unsigned width, uint32_t op)
{
	memcpy(s->key, key, width * sizeof(*key));
	s->op = op;
	s->used = true;
	t->n++;
}

void tp_op_table_release(struct tp_op_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* ---- the HLO module a program id names, and each module's HLO index,
 * built once and shared by modules with one HLO ---- */

size_t tp_ops_find_module(const struct tp_capture *cap, uint64_t program_id)
{
	for (size_t i = 0; i < cap->n_modules; i++)
		if (cap->modules[i].hlo && cap->modules[i].program_id == program_id)
			return i;
	return SIZE_MAX;
}

const struct tp_hlo_index *tp_ops_index(struct tp_ops *ops,
					struct tp_capture *cap, size_t m)
{
	if (m >= ops->n_modules || !cap->modules[m].hlo)
		return NULL;
	/* modules sharing one HLO (tp_capture_decode_module) share its index */
	for (size_t i = 0; i < m; i++)
		if (cap->modules[i].hlo == cap->modules[m].hlo) {
			m = i;
			break;
		}
	if (!ops->indexed[m]) {
		tp_hlo_index_build(&ops->index[m], cap->modules[m].hlo);
		ops->indexed[m] = true;
	}
	return &ops->index[m];
}
