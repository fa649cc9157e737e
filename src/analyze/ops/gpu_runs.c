/*
 * gpu_runs.c - a GPU core's steps where its plane has neither a "Steps"
 * line nor group ids: one step per execution of the program with the
 * most kernel time (docs/ops.md, "Steps").
 *
 * GPU kernels carry the program id but nothing that tells one execution
 * from the next (no run id, in the shared captures and in XProf's own
 * GPU converters), and a program may run several times back to back
 * with no other kernel between its runs. Every execution launches the
 * same kernels in the same order, so an execution starts at each kernel
 * that runs the HLO op the program's first kernel ran, and lasts to the
 * end of the program's last kernel before the next such start.
 *
 * The busiest program is known only once every kernel is read. The op
 * pass feeds each kernel it reads (op_gpu.c), so the kernel lines are
 * read once and the steps cut after it (steps.c tp_ops_read_late_steps;
 * the trace's step track reads them here, tp_ops_gpu_program_runs);
 * what is kept until then: struct tp_gpu_kernels (docs/performance.md).
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/i64map.h"

/* A kernel of a program, as the GPU steps need it. */
struct kernel {
	struct tp_step_run run;      /* id: the program                    */
	uint64_t op;                 /* hash of its hlo_op                  */
};

static int kernel_by_start(const void *a, const void *b)
{
	const struct kernel *x = a, *y = b;
	int c = tp_step_run_cmp(&x->run, &y->run);

	return c ? c : (x->op > y->op) - (x->op < y->op);
}

/* The executions, from the program's kernels in order. */
struct runs {
	struct tp_step_run *v;
	size_t n, cap;
	uint64_t first_op;
};

static void run_add(struct runs *a, const struct kernel *k)
{
	int64_t end = tp_sat_add(k->run.start_ps, k->run.dur_ps);
	struct tp_step_run *r;

	if (a->n == 0)
		a->first_op = k->op;
	if (a->n == 0 || k->op == a->first_op) {
		tp_step_run_push(&a->v, &a->n, &a->cap, k->run.start_ps, k->run.dur_ps, k->run.id);
		return;
	}
	r = &a->v[a->n - 1];
	if (end > tp_sat_add(r->start_ps, r->dur_ps))
		r->dur_ps = tp_sat_sub(end, r->start_ps);
}

/* A program's executions as its kernels come, while they come sorted
 * (a core with one kernel line: see tp_gpu_kernels). */
struct prog_runs {
	struct runs a;
	struct kernel prev;
	bool any, unsorted;
};

/* What a kernel is to the steps: its program's number, its op's hash
 * and (packed) number. */
struct kernel_key {
	size_t prog;                 /* + 1 in a memo: 0 is unset          */
	uint64_t h;
	size_t op;
};

/* The kernels of the plane's kernel lines that name a program and an
 * op, with each program's kernel time. With one kernel line (streaming)
 * each program's executions are cut as its kernels come, in order: a
 * few runs a program (should the busiest program's kernels come out of
 * order, its plane is read again, packed). With several, a program's
 * kernels come line by line, out of order, and its first op is known
 * only at the end: every kernel is kept, packed in a few bytes (varints:
 * the start as a step from the one before, the duration, the program's
 * and the op's number), not 32. */
struct tp_gpu_kernels {
	bool streaming;
	struct kernel_key *memo;     /* per op of the op pass (kernel_memo) */
	size_t n_memo;
	struct prog_runs *pr;        /* streaming: parallel to p           */
	const struct tp_plane *pl;
	const struct tp_xspace *xs;
	uint64_t *hash;              /* per stat metadata: its name's hash  */
	size_t *ref_op;              /* per stat metadata: its op number + 1 */
	struct tp_i64map progs;
	struct tp_program_time *p;
	size_t np, cap_p, cap_pr;
	struct tp_i64map ops;        /* op hash -> its number              */
	uint64_t *op;                /* per op number: its hash            */
	size_t nop, cap_op;
	uint8_t *packed;             /* the kernels, in the order read     */
	size_t len, cap;
	int64_t last_start;
};

/* One kernel packed: start step (zigzag), duration, program, op. */
static void pack(struct tp_gpu_kernels *r, int64_t start, int64_t dur, size_t prog, size_t op)
{
	uint64_t d = (uint64_t)start - (uint64_t)r->last_start;
	uint8_t *q;

	r->packed = tp_xgrow(r->packed, &r->cap, r->len + 4 * 10, 1);
	q = r->packed + r->len;
	q = tp_put_varint(q, tp_zigzag(d));
	q = tp_put_varint(q, (uint64_t)dur);
	q = tp_put_varint(q, prog);
	q = tp_put_varint(q, op);
	r->len = (size_t)(q - r->packed);
	r->last_start = start;
}

/* The next packed kernel into *k (its program's number in *prog). */
static const uint8_t *unpack(const struct tp_gpu_kernels *r, const uint8_t *q, int64_t *last,
			     struct kernel *k, size_t *prog)
{
	uint64_t z, dur, p, op;

	q = tp_get_varint(q, &z);
	q = tp_get_varint(q, &dur);
	q = tp_get_varint(q, &p);
	q = tp_get_varint(q, &op);
	*last = (int64_t)((uint64_t)*last + tp_unzigzag(z));
	k->run = (struct tp_step_run){ *last, (int64_t)dur, (int64_t)r->p[p].id };
	k->op = r->op[op];
	*prog = (size_t)p;
	return q;
}

/* A string stat's value and hash (a ref's hash cached per metadata);
 * *ref the ref's stat metadata index, SIZE_MAX for a string. */
static bool str_key(struct tp_gpu_kernels *r, const struct tp_stat *st, struct tp_str *s,
		    uint64_t *h, size_t *ref)
{
	const struct tp_stat_meta *sm;
	size_t i;

	*ref = SIZE_MAX;
	if (st->kind == TP_STAT_STR) {
		*s = st->v.s;
		*h = tp_hash_bytes(s->ptr, s->len);
		return true;
	}
	if (st->kind != TP_STAT_REF || !(sm = tp_plane_stat_meta(r->pl, (int64_t)st->v.u)))
		return false;
	i = (size_t)(sm - r->pl->stat_meta);
	if (!r->hash[i])
		r->hash[i] = tp_hash_bytes(sm->name.ptr, sm->name.len) | 1;
	*s = sm->name;
	*h = r->hash[i];
	*ref = i;
	return true;
}

/* The number of the op with hash h, given one if new (a ref's cached
 * per stat metadata: the bulk path looks nothing up). */
static size_t op_number(struct tp_gpu_kernels *r, uint64_t h, size_t ref)
{
	long i;

	if (ref != SIZE_MAX && r->ref_op[ref])
		return r->ref_op[ref] - 1;
	if ((i = tp_i64map_get(&r->ops, (int64_t)h)) < 0) {
		i = (long)r->nop;
		tp_i64map_put(&r->ops, (int64_t)h, i);
		r->op = tp_xgrow(r->op, &r->cap_op, r->nop + 1, sizeof(*r->op));
		r->op[r->nop++] = h;
	}
	if (ref != SIZE_MAX)
		r->ref_op[ref] = (size_t)i + 1;
	return (size_t)i;
}

/* One kernel of a program, to its runs while its kernels come sorted
 * (as program_runs would walk them). */
static void stream_add(struct prog_runs *s, int64_t start, int64_t dur, int64_t id,
		       uint64_t h)
{
	if (s->unsorted)
		return;
	/* a later start is in order: no compare (the usual kernel) */
	if (s->any && start <= s->prev.run.start_ps &&
	    kernel_by_start(&s->prev, &(struct kernel){ { start, dur, id }, h }) > 0) {
		s->unsorted = true;
		free(s->a.v);
		s->a = (struct runs){ 0 };
		return;
	}
	s->any = true;
	/* field by field: a copy of a struct just built stalls on its stores */
	s->prev.run.start_ps = start;
	s->prev.run.dur_ps = dur;
	s->prev.run.id = id;
	s->prev.op = h;
	run_add(&s->a, &s->prev);
}

static bool kernel_key(struct tp_gpu_kernels *r, int64_t id, const struct tp_stat *op,
		       const struct tp_stat *mod, struct kernel_key *k)
{
	struct tp_str name, module = TP_STR_NULL;
	uint64_t mh;
	size_t ref, mref;
	long i;

	if (!str_key(r, op, &name, &k->h, &ref))
		return false;
	if ((i = tp_i64map_get(&r->progs, id)) < 0) {
		if (mod)
			str_key(r, mod, &module, &mh, &mref);
		tp_i64map_put(&r->progs, id, (long)r->np);
		r->p = tp_xgrow(r->p, &r->cap_p, r->np + 1, sizeof(*r->p));
		r->p[r->np] = (struct tp_program_time){ (uint64_t)id, 0, module };
		if (r->streaming) {
			r->pr = tp_xgrow(r->pr, &r->cap_pr, r->np + 1, sizeof(*r->pr));
			memset(&r->pr[r->np], 0, sizeof(*r->pr));
		}
		i = (long)r->np++;
	}
	k->prog = (size_t)i;
	k->op = r->streaming ? 0 : op_number(r, k->h, ref);
	return true;
}

static void kernel_put(struct tp_gpu_kernels *r, const struct kernel_key *k, int64_t start,
		       int64_t dur)
{
	dur = dur > 0 ? dur : 0;
	r->p[k->prog].ps = tp_sat_add(r->p[k->prog].ps, dur);
	if (r->streaming)
		stream_add(&r->pr[k->prog], start, dur, (int64_t)r->p[k->prog].id, k->h);
	else
		pack(r, start, dur, k->prog, k->op);
}

static void kernel_add(struct tp_gpu_kernels *r, int64_t id, const struct tp_stat *op,
		       const struct tp_stat *mod, int64_t start, int64_t dur)
{
	struct kernel_key k;

	if (kernel_key(r, id, op, mod, &k))
		kernel_put(r, &k, start, dur);
}

/* A kernel whose program id is on the event, with the op the op pass
 * made of it: the op is keyed by the program id and the op ref's name
 * (op_gpu.c), so its next kernels take the same program and op here
 * without a lookup. */
static void kernel_memo(struct tp_gpu_kernels *r, uint32_t o, int64_t id,
			const struct tp_stat *op, const struct tp_stat *mod, int64_t start,
			int64_t dur)
{
	struct kernel_key k;

	if (!kernel_key(r, id, op, mod, &k))
		return;
	if (o >= r->n_memo) {
		size_t old = r->n_memo;

		r->memo = tp_xgrow(r->memo, &r->n_memo, (size_t)o + 1, sizeof(*r->memo));
		memset(r->memo + old, 0, (r->n_memo - old) * sizeof(*r->memo));
	}
	r->memo[o] = k;
	r->memo[o].prog++;
	kernel_put(r, &k, start, dur);
}

/* As the op pass reads kept stats (op_gpu.c): a program id that is an
 * integer, on the event or else on its metadata; an hlo_op that is a
 * ref on the event (else the kernel names no op there either). The
 * stats in the op pass's slots (TP_GPU_KEY_*). */
void tp_gpu_kernels_batch(struct tp_gpu_kernels *r, const struct tp_event_batch *b, size_t n,
			  const uint32_t *ops)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t pk = b->kind[TP_GPU_KEY_PROGRAM][i];
		const struct tp_event_meta *em;
		const struct tp_stat *s;
		struct tp_stat op = { 0 }, mod = { 0 };
		int64_t id;

		if (b->kind[TP_GPU_KEY_OP][i] != TP_STAT_REF)
			continue;
		if (pk == TP_STAT_INT64 || pk == TP_STAT_UINT64) {
			/* the op pass's op stands for the program and op ref */
			if (ops && ops[i] != TP_OP_NONE && ops[i] < r->n_memo &&
			    r->memo[ops[i]].prog) {
				struct kernel_key k = r->memo[ops[i]];

				k.prog--;
				kernel_put(r, &k, b->start_ps[i], b->dur_ps[i]);
				continue;
			}
			id = (int64_t)b->value[TP_GPU_KEY_PROGRAM][i];
		} else {
			em = &r->pl->event_meta[b->meta[i]];
			if (pk != TP_STAT_NONE ||
			    !(s = tp_stats_find(r->pl, em->stats, em->n_stats, TP_SN_PROGRAM_ID)) ||
			    !tp_stat_int(s, &id))
				continue;
		}
		op.kind = TP_STAT_REF;
		op.v.u = b->value[TP_GPU_KEY_OP][i];
		mod.kind = (enum tp_stat_kind)b->kind[TP_GPU_KEY_MODULE][i];
		mod.v.u = b->value[TP_GPU_KEY_MODULE][i];
		if (pk == TP_STAT_NONE || !ops || ops[i] == TP_OP_NONE)
			kernel_add(r, id, &op, &mod, b->start_ps[i], b->dur_ps[i]);
		else
			kernel_memo(r, ops[i], id, &op, &mod, b->start_ps[i], b->dur_ps[i]);
	}
}

void tp_gpu_kernels_event(struct tp_gpu_kernels *r, const struct tp_event *ev)
{
	struct tp_stat prog, op, mod;
	int64_t id;

	if (ev->timed && tp_event_stat(r->xs, r->pl, ev, TP_SN_PROGRAM_ID, &prog) &&
	    tp_stat_int(&prog, &id) && tp_event_stat(r->xs, r->pl, ev, TP_SN_HLO_OP, &op))
		kernel_add(r, id, &op, tp_event_stat(r->xs, r->pl, ev, TP_SN_HLO_MODULE, &mod) ?
				       &mod : NULL, ev->start_ps, ev->dur_ps);
}

static struct tp_gpu_kernels *kernels_new(const struct tp_xspace *xs,
					  const struct tp_plane *pl, bool streaming)
{
	struct tp_gpu_kernels *r = tp_xcalloc(1, sizeof(*r));

	r->streaming = streaming;
	r->xs = xs;
	r->pl = pl;
	r->hash = tp_xcalloc(pl->n_stat_meta + 1, sizeof(*r->hash));
	r->ref_op = tp_xcalloc(pl->n_stat_meta + 1, sizeof(*r->ref_op));
	tp_i64map_init(&r->progs, 16);
	tp_i64map_init(&r->ops, 256);
	return r;
}

/* At most one kernel line with events: each program's runs cut as its
 * kernels come. */
static bool one_kernel_line(const struct tp_plane *pl)
{
	size_t lines = 0;

	for (size_t l = 0; l < pl->n_lines; l++)
		lines += tp_ops_line_used(TP_OPSRC_GPU, &pl->lines[l]) &&
			 pl->lines[l].n_event_fields;
	return lines <= 1;
}

struct tp_gpu_kernels *tp_gpu_kernels_start(const struct tp_xspace *xs,
					    const struct tp_plane *pl)
{
	return kernels_new(xs, pl, one_kernel_line(pl));
}

static void kernels_batch(void *ctx, const struct tp_event_batch *b, size_t n)
{
	tp_gpu_kernels_batch(ctx, b, n, NULL);
}

static void kernels_event(void *ctx, const struct tp_event *ev)
{
	tp_gpu_kernels_event(ctx, ev);
}

/* The runs of the plane's kernel lines read here, in bulk with the
 * stats the op pass keeps, in its slots; streaming as
 * tp_gpu_kernels_start decides, or not (read again, out of order). */
static size_t read_runs(const struct tp_xspace *xs, const struct tp_plane *pl, bool streaming,
			struct tp_program_time *best, struct tp_step_run **out)
{
	struct tp_gpu_kernels *r = kernels_new(xs, pl, streaming);
	struct tp_line_reader lr = { .xs = xs, .pl = pl, .batch = kernels_batch,
				     .event = kernels_event, .ctx = r };
	bool bulk = tp_batch_keep(&lr.keys, TP_GPU_KEY_PROGRAM, pl->known_stat_id[TP_SN_PROGRAM_ID],
				  pl->known_stat[TP_SN_PROGRAM_ID]) &&
		    tp_batch_keep(&lr.keys, TP_GPU_KEY_MODULE, pl->known_stat_id[TP_SN_HLO_MODULE],
				  pl->known_stat[TP_SN_HLO_MODULE]) &&
		    tp_batch_keep(&lr.keys, TP_GPU_KEY_OP, pl->known_stat_id[TP_SN_HLO_OP],
				  pl->known_stat[TP_SN_HLO_OP]);

	if (!bulk) /* one at a time: no event is plain with these keys */
		lr.keys.reject_on[0] = true, lr.keys.reject[0] = pl->known_stat_id[TP_SN_HLO_OP];
	tp_ops_read_lines(&lr, TP_OPSRC_GPU);
	return tp_gpu_kernels_finish(r, best, out);
}

/* The busiest program's number, or SIZE_MAX when no kernel names one;
 * ties: the lower id, so that the choice does not depend on order. */
static size_t busiest(const struct tp_gpu_kernels *r)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < r->np; i++)
		if (best == SIZE_MAX || r->p[i].ps > r->p[best].ps ||
		    (r->p[i].ps == r->p[best].ps && r->p[i].id < r->p[best].id))
			best = i;
	return best;
}

/* Program best's kernels, each in turn to the runs, in one walk of the
 * packed kernels while they come sorted by start (one stream's kernels
 * come in order, so they nearly always do); else all of them from
 * memory, sorted, from the start again. */
static void program_runs(const struct tp_gpu_kernels *r, size_t best, struct runs *a)
{
	const uint8_t *q, *end = r->packed ? r->packed + r->len : NULL; /* NULL + 0: UB */
	struct kernel k, prev = { 0 }, *v = NULL;
	size_t p, m = 0, cap = 0;
	int64_t last = 0;
	bool sorted = true;

	for (q = r->packed; q < end && sorted;) {
		q = unpack(r, q, &last, &k, &p);
		if (p != best)
			continue;
		sorted = !m++ || kernel_by_start(&prev, &k) <= 0;
		prev = k;
		if (sorted)
			run_add(a, &k);
	}
	if (sorted)
		return;
	free(a->v);
	*a = (struct runs){ 0 };
	last = 0;
	m = 0;
	for (q = r->packed; q < end;) {
		q = unpack(r, q, &last, &k, &p);
		if (p != best)
			continue;
		v = tp_xgrow(v, &cap, m + 1, sizeof(*v));
		v[m++] = k;
	}
	qsort(v, m, sizeof(*v), kernel_by_start);
	for (size_t i = 0; i < m; i++)
		run_add(a, &v[i]);
	free(v);
}

size_t tp_gpu_kernels_finish(struct tp_gpu_kernels *r, struct tp_program_time *best,
			     struct tp_step_run **out)
{
	const struct tp_xspace *xs = r->xs;
	const struct tp_plane *pl = r->pl;
	struct runs a = { 0 };
	size_t b = busiest(r);
	bool again = b != SIZE_MAX && r->streaming && r->pr[b].unsorted;

	if (b != SIZE_MAX && r->streaming && !again) {
		*best = r->p[b];
		a = r->pr[b].a;
		r->pr[b].a.v = NULL;
	} else if (b != SIZE_MAX && !again) {
		*best = r->p[b];
		program_runs(r, b, &a);
	}
	for (size_t i = 0; r->streaming && i < r->np; i++)
		free(r->pr[i].a.v);
	free(r->pr);
	free(r->memo);
	tp_i64map_release(&r->progs);
	tp_i64map_release(&r->ops);
	free(r->hash);
	free(r->ref_op);
	free(r->p);
	free(r->op);
	free(r->packed);
	free(r);
	if (again) /* the busiest program's kernels out of order */
		return read_runs(xs, pl, false, best, out);
	*out = a.v;
	return a.n;
}

size_t tp_ops_gpu_program_runs(const struct tp_xspace *xs, const struct tp_plane *pl,
			       struct tp_program_time *best, struct tp_step_run **out)
{
	return read_runs(xs, pl, one_kernel_line(pl), best, out);
}
