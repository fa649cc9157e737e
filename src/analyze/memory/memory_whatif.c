/*
 * memory_whatif.c - naming a buffer on the command line, the one syntax
 * of --split and --why (a name as `memory` prints it, or a prefix of one
 * name and no other), and --split's what-if: every split of a module in
 * one replay of its heap trace (docs/memory.md, "What if").
 */
#include "memory_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/units.h"

#define MAX_LISTED 8

/* A distinct printed name and the largest buffer that has it. */
struct named {
	char *name;
	uint64_t size;
};

struct names {
	struct named *v;
	size_t n, cap;
};

static void names_add(struct names *s, const char *name, uint64_t size)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0) {
			if (size > s->v[i].size)
				s->v[i].size = size;
			return;
		}
	s->v = tp_xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n].name = tp_xstrdup(name);
	s->v[s->n++].size = size;
}

static void names_release(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int by_size(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool tuple_name(const char *name)
{
	size_t n = strlen(name);

	return n >= 2 && strcmp(name + n - 2, "{}") == 0;
}

/* "copy-start{0} (5.00 GiB), copy-start{} (the tuple, 16 B)", largest
 * first, at most MAX_LISTED and "N more". */
static void list_names(struct tp_strbuf *sb, struct names *s)
{
	char b[32];

	qsort(s->v, s->n, sizeof(*s->v), by_size);
	for (size_t i = 0; i < s->n && i < MAX_LISTED; i++)
		tp_strbuf_addf(sb, "%s%s (%s%s)", i ? ", " : "", s->v[i].name,
			       tuple_name(s->v[i].name) ? "the tuple, " : "",
			       tp_fmt_bytes(b, sizeof(b), s->v[i].size));
	if (s->n > MAX_LISTED)
		tp_strbuf_addf(sb, " and %zu more", s->n - MAX_LISTED);
}

/* The stem of a name: what comes before its first '.' or '{'. */
static size_t stem_len(const char *s)
{
	return strcspn(s, ".{");
}

struct search {
	const struct tp_memory *mem;
	const char *name;
	size_t len;
	struct tp_mem_ref *hits;
	size_t n_hits;
	struct names family;     /* NAME{} and NAME{i,...}: a tuple, its elements */
	struct names prefixed, similar;
	size_t other_space, searched;
	char *taken;             /* the buffer a bare tuple name stands for */
};

/* Every buffer's printed name (tp_mem_buffer_name) against NAME: equal
 * is a hit; NAME{...} is of NAME's tuple; a longer one starts with it. */
static void visit(struct search *s, size_t mi, long b, struct tp_strbuf *sb)
{
	const struct tp_mem_module *m = &s->mem->modules[mi];
	const struct tp_mem_buffer *buf = &m->buffers[b];

	if (buf->instr < 0)
		return;
	tp_strbuf_reset(sb);
	tp_mem_buffer_name(sb, m, b);
	if (buf->lb->color != m->color) {
		s->other_space += strcmp(sb->buf, s->name) == 0;
		return;
	}
	if (strcmp(sb->buf, s->name) == 0) {
		s->hits = tp_xrealloc(s->hits, (s->n_hits + 1) * sizeof(*s->hits));
		s->hits[s->n_hits].module = mi;
		s->hits[s->n_hits++].buffer = b;
	}
	if (strncmp(sb->buf, s->name, s->len) == 0 && sb->buf[s->len] == '{')
		names_add(&s->family, sb->buf, buf->size);
	if (strncmp(sb->buf, s->name, s->len) == 0)
		names_add(&s->prefixed, sb->buf, buf->size);
	if (stem_len(sb->buf) == stem_len(s->name) &&
	    strncmp(sb->buf, s->name, stem_len(s->name)) == 0)
		names_add(&s->similar, sb->buf, buf->size);
}

/* The buffers whose printed name is exactly want. */
static void take_named(struct search *s, const char *want, struct tp_strbuf *sb)
{
	for (size_t mi = 0; mi < s->mem->n_modules; mi++) {
		const struct tp_mem_module *m = &s->mem->modules[mi];

		for (size_t b = 0; b < m->n_buffers; b++) {
			if (m->buffers[b].instr < 0 || m->buffers[b].lb->color != m->color)
				continue;
			tp_strbuf_reset(sb);
			tp_mem_buffer_name(sb, m, (long)b);
			if (strcmp(sb->buf, want) == 0) {
				s->hits = tp_xrealloc(s->hits, (s->n_hits + 1) * sizeof(*s->hits));
				s->hits[s->n_hits].module = mi;
				s->hits[s->n_hits++].buffer = (long)b;
			}
		}
	}
}

/* A tuple's bare name (NAME for NAME{}) stands for its one element
 * buffer when it has one (the tuple's own buffer is its index table,
 * never what a user means), for the tuple when it has none; NULL when
 * it has several. */
static const char *bare_tuple(const struct search *s)
{
	const char *element = NULL, *tuple = NULL;

	for (size_t i = 0; i < s->family.n; i++) {
		const char *x = s->family.v[i].name;

		if (strcmp(x + s->len, "{}") == 0)
			tuple = x;
		else if (element)
			return NULL;
		else
			element = x;
	}
	return element ? element : tuple;
}

static enum tp_err refuse(struct search *s, const char *option, struct tp_strbuf *sb,
			  struct tp_error *err)
{
	tp_strbuf_reset(sb);
	if (s->family.n > 1) {   /* a tuple and its elements */
		list_names(sb, &s->family);
		return tp_error_set(err, TP_ERR_USAGE, "%s '%s' names %zu buffers, a tuple and its "
				    "elements: %s; give one as printed", option, s->name,
				    s->family.n, sb->buf);
	}
	if (s->prefixed.n > 1) {
		list_names(sb, &s->prefixed);
		return tp_error_set(err, TP_ERR_USAGE, "%s '%s' is ambiguous: %zu buffer names start "
				    "with it: %s; give one as printed", option, s->name,
				    s->prefixed.n, sb->buf);
	}
	if (s->other_space)
		return tp_error_set(err, TP_ERR_USAGE, "%s: no buffer named '%s' in this memory space; "
				    "%zu in others (see --memory-space)", option, s->name,
				    s->other_space);
	if (s->similar.n) {
		list_names(sb, &s->similar);
		return tp_error_set(err, TP_ERR_USAGE, "%s: no buffer named '%s' in %zu module%s with a "
				    "buffer assignment; similar names: %s", option, s->name,
				    s->searched, s->searched == 1 ? "" : "s", sb->buf);
	}
	return tp_error_set(err, TP_ERR_USAGE, "%s: no buffer named '%s' in %zu module%s with a "
			    "buffer assignment (names as 'tpuprof memory' prints them, e.g. "
			    "fusion.3 or copy-start.4{0})", option, s->name, s->searched,
			    s->searched == 1 ? "" : "s");
}

/* No buffer printed as NAME: a bare tuple name, else a prefix of one
 * printed name and of no other. */
static void take_other(struct search *s, struct tp_strbuf *sb)
{
	const char *want = NULL;

	if (s->family.n && (want = bare_tuple(s)) != NULL)
		s->taken = tp_xstrdup(want);
	else if (!s->family.n && s->prefixed.n == 1)
		want = s->prefixed.v[0].name;
	if (want)
		take_named(s, want, sb);
}

enum tp_err tp_mem_resolve_name(const struct tp_memory *mem, const char *option,
				const char *name, struct tp_mem_ref **out, size_t *n,
				char **taken, struct tp_error *err)
{
	struct search s = { .mem = mem, .name = name, .len = strlen(name) };
	struct tp_strbuf sb;
	enum tp_err rc = TP_OK;

	tp_strbuf_init(&sb);
	for (size_t mi = 0; mi < mem->n_modules; mi++) {
		if (!mem->modules[mi].n_buffers)
			continue;
		s.searched++;
		for (size_t b = 0; b < mem->modules[mi].n_buffers; b++)
			visit(&s, mi, (long)b, &sb);
	}
	if (!s.n_hits)
		take_other(&s, &sb);
	if (!s.n_hits)
		rc = refuse(&s, option, &sb, err);
	tp_strbuf_release(&sb);
	names_release(&s.family);
	names_release(&s.prefixed);
	names_release(&s.similar);
	if (rc != TP_OK) {
		free(s.hits);
		s.hits = NULL;
		s.n_hits = 0;
	}
	if (taken)
		*taken = rc == TP_OK ? s.taken : NULL;
	if (!taken || rc != TP_OK)
		free(s.taken);
	*out = s.hits;
	*n = s.n_hits;
	return rc;
}

/* ---- --split ---- */

/* A dimension below 0: the shape in the capture is corrupt (exit 3,
 * naming the file, the module and the buffer). */
static enum tp_err corrupt_dim(const struct tp_mem_module *m, long b, int dim, int64_t d,
			       struct tp_error *err)
{
	const struct tp_module *mod = m->module;
	const char *path = mod && mod->path ? mod->path : "capture";
	struct tp_strbuf name;
	enum tp_err rc;
	struct tp_str label = mod && mod->label.ptr ? mod->label : tp_str_make("?", 1);

	tp_strbuf_init(&name);
	tp_mem_buffer_name(&name, m, b);
	rc = tp_error_set(err, TP_ERR_INPUT, "%s: module %.*s: buffer %s has dimension %d of "
			  "%" PRId64 " elements (corrupt shape)", strcmp(path, "-") ? path : "<stdin>",
			  (int)(label.len > 200 ? 200 : label.len), label.ptr, name.buf, dim, d);
	tp_strbuf_release(&name);
	return rc;
}

static enum tp_err make_part(const struct tp_mem_module *m, long b,
			     const struct tp_mem_split_spec *sp, struct tp_mem_split_part *p,
			     struct tp_error *err)
{
	const Xla__ShapeProto *s = m->buffers[b].shape;
	int dim = sp->dim < 0 ? 0 : sp->dim;
	int64_t d;

	if (!s || s->n_dimensions == 0)
		return tp_error_set(err, TP_ERR_USAGE, "--split '%s': the buffer has no dimension to "
				    "split (a scalar or a tuple)", sp->name);
	if ((size_t)dim >= s->n_dimensions)
		return tp_error_set(err, TP_ERR_USAGE, "--split '%s': no dimension %d: the buffer has "
				    "%zu (0 to %zu)", sp->name, dim, s->n_dimensions,
				    s->n_dimensions - 1);
	d = s->dimensions[dim];
	if (d < 0)   /* the capture's fault, not the option's */
		return corrupt_dim(m, b, dim, d, err);
	if (d < 1 || sp->k > (uint64_t)d)
		return tp_error_set(err, TP_ERR_USAGE, "--split '%s': dimension %d has %" PRId64
				    " elements: it splits at most %" PRId64 " ways", sp->name, dim,
				    d, d);
	p->buffer = b;
	p->dim = dim;
	p->dim_size = d;
	p->k = sp->k;
	/* ceil(d / k) without d + k - 1, which overflows near INT64_MAX */
	p->part_elements = d / (int64_t)sp->k + (d % (int64_t)sp->k != 0);
	p->small_part_elements = d / (int64_t)sp->k;
	p->bytes = m->buffers[b].size;
	/* the part's share of the bytes, rounded up: exact in 128 bits (at
	 * most the buffer's bytes, as a part is at most the dimension) */
	p->part_bytes = (uint64_t)(((unsigned __int128)p->bytes * (uint64_t)p->part_elements +
				    (uint64_t)d - 1) / (uint64_t)d);
	return TP_OK;
}

static void add_part(struct tp_mem_module *m, const struct tp_mem_split_part *p)
{
	for (size_t i = 0; i < m->n_whatif_parts; i++)
		if (m->whatif_parts[i].buffer == p->buffer) {
			m->whatif_parts[i] = *p; /* split again: the later one */
			return;
		}
	m->whatif_parts = tp_xrealloc(m->whatif_parts,
				      (m->n_whatif_parts + 1) * sizeof(*m->whatif_parts));
	m->whatif_parts[m->n_whatif_parts++] = *p;
}

enum tp_err tp_mem_whatif(struct tp_memory *mem, const struct tp_mem_split_spec *specs,
			  size_t n_specs, struct tp_error *err)
{
	for (size_t i = 0; i < n_specs; i++) {
		struct tp_mem_ref *refs;
		size_t n;
		enum tp_err rc = tp_mem_resolve_name(mem, "--split", specs[i].name, &refs, &n,
							 NULL, err);

		for (size_t j = 0; rc == TP_OK && j < n; j++) {
			struct tp_mem_module *m = &mem->modules[refs[j].module];
			struct tp_mem_split_part p;

			if ((rc = make_part(m, refs[j].buffer, &specs[i], &p, err)) == TP_OK)
				add_part(m, &p);
		}
		free(refs);
		if (rc != TP_OK)
			return rc;
	}
	for (size_t i = 0; i < mem->n_modules; i++) {
		struct tp_mem_module *m = &mem->modules[i];
		uint64_t heap;
		long pos;

		if (!m->n_whatif_parts || m->trace < 0 || m->error ||
		    tp_mem_replay_parts(m, m->whatif_parts, m->n_whatif_parts, false, &heap, &pos))
			continue;
		m->whatif.buffer = m->whatif_parts[0].buffer;
		m->whatif.k = m->whatif_parts[0].k;
		m->whatif.peak = heap + m->indefinite_bytes;
		m->whatif.peak_position = pos;
		m->whatif.saved = m->peak > m->whatif.peak ? m->peak - m->whatif.peak : 0;
	}
	return TP_OK;
}
