/*
 * damage.c - what a damaged capture still holds. A capture is refused
 * whole only when what is damaged holds everything else: its top-level
 * framing. A damaged part (one embedded HLO module, one line, one stat of
 * a plane, else the one plane that holds the damage) is left out with a
 * struct tp_damage naming the file, the part and the byte, and the rest
 * is analysed. A file cut short (its last plane runs past its end) stays
 * an error unless tp_open_opts.partial, which reads its complete planes.
 *
 * The decoder still refuses the first damage it meets, with the message
 * docs/exit-codes.md lists, and says where in the error itself
 * (tp_error.corrupt, .offset, .detail): the message's text is never read
 * back. The part that holds byte N is
 * cut from a copy of the bytes, the lengths around it rewritten in as
 * many bytes as before (a varint may carry padding), and the copy decoded
 * again, until it decodes or the damage is in the top-level framing.
 * Offsets in the notes are those of the original bytes. This costs a copy
 * and a decode per damaged part, only for a damaged capture.
 */
#include "capture_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tpuprof/decode/wire.h"

/* More damaged parts than this and the capture is refused as it was:
 * each one costs a full decode. */
#define MAX_CUTS 64

void tp_damage_format(const struct tp_damage *d, char *buf, size_t size)
{
	snprintf(buf, size, "%s: skipped %s, damaged at byte %llu: %s", d->path,
		 d->part, (unsigned long long)d->offset, d->what);
}

void tp_damage_push(struct tp_damage_list *l, const char *path, char *part,
		    uint64_t offset, const char *what)
{
	l->v = tp_xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct tp_damage){ path, part, offset, tp_xstrdup(what) };
}

void tp_damage_list_release(struct tp_damage_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].part);
		free(l->v[i].what);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

enum tp_err tp_damage_module(struct tp_capture *cap, struct tp_module *m,
			     struct tp_error *err)
{
	struct tp_damage_list l = { cap->damage, cap->n_damage, cap->cap_damage };
	struct tp_str name = tp_module_name(m);
	const char *what = NULL;
	uint64_t at = m->raw_offset;

	/* a module over protobuf's 2 GiB is whole, not damaged: refused */
	if (err->code != TP_ERR_INPUT || m->origin != TP_MODULE_EMBEDDED ||
	    err->corrupt != TP_CORRUPT_HLO)
		return err->code;
	if (err->has_offset)
		at = err->offset;
	if (err->detail[0])
		what = err->detail;
	if (m->host >= 0 && (size_t)m->host < cap->n_hosts)   /* of the file */
		at = tp_source_original_offset(&cap->sources[cap->hosts[m->host].source],
					       (size_t)at);
	if (!what)
		what = "the HloProto does not decode";
	tp_damage_push(&l, m->path,
		       tp_xasprintf("HLO module '%.*s'", (int)(name.len > 200 ? 200 : name.len),
				    name.ptr),
		       at, what);
	cap->damage = l.v;
	cap->n_damage = l.n;
	cap->cap_damage = l.cap;
	m->damaged = true;
	tp_error_clear(err);
	return TP_OK;
}

/* ---- XSpace: cutting out the damaged part ---- */

struct salvage {
	uint8_t *data;            /* the working copy, malloc'd */
	size_t size;
	struct tp_source_cut cuts[MAX_CUTS];  /* original offsets, sorted */
	size_t n_cuts;
};

static size_t map_back(const struct tp_source_cut *cuts, size_t n, size_t at)
{
	for (size_t i = 0; i < n && cuts[i].start <= at; i++)
		at += cuts[i].len;
	return at;
}

/* An offset in the copy, as an offset in the original bytes. */
static size_t original(const struct salvage *s, size_t at)
{
	return map_back(s->cuts, s->n_cuts, at);
}

size_t tp_source_original_offset(const struct tp_source *src, size_t at)
{
	return map_back(src->cuts, src->n_cuts, at);
}

static void record_cut(struct salvage *s, size_t copy_start, size_t len)
{
	size_t start = original(s, copy_start), i = s->n_cuts;

	while (i > 0 && s->cuts[i - 1].start > start) {
		s->cuts[i] = s->cuts[i - 1];
		i--;
	}
	s->cuts[i] = (struct tp_source_cut){ start, len };
	s->n_cuts++;
}

/* The part of the copy that holds a damaged byte. */
struct part {
	size_t start, end;        /* the bytes to cut                       */
	size_t len_at, len_width; /* the plane length to shorten (width 0:
				   * none, the part is a plane)             */
	uint64_t plane_len;
	char *name;               /* malloc'd, for the note                 */
};

/* The string of field `number` of the message f holds, for names. */
static struct tp_str name_field(const struct tp_wire *parent, const struct tp_field *f,
				uint32_t number)
{
	struct tp_wire w;
	struct tp_field g;

	tp_wire_sub(&w, parent, f);
	while (tp_wire_next(&w, &g) > 0)
		if (g.number == number && g.type == TP_WIRE_LEN)
			return tp_str_make((const char *)g.data, g.len > 200 ? 200 : g.len);
	return tp_str_make("", 0);
}

static size_t end_of(const struct tp_wire *w, const struct tp_field *f)
{
	return (size_t)(f->data - w->base) + f->len;
}

/* Inside plane f (a top-level field 1): the line (3) or stat (6) that
 * holds byte bad, else the whole plane. */
static void part_in_plane(const struct tp_wire *top, const struct tp_field *f,
			  size_t bad, struct part *p)
{
	struct tp_str plane = name_field(top, f, 2);
	struct tp_wire w;
	struct tp_field g;

	p->start = f->offset;
	p->end = end_of(top, f);
	p->len_width = 0;
	p->name = tp_xasprintf("plane '%.*s'", (int)plane.len, plane.ptr);
	tp_wire_sub(&w, top, f);
	while (tp_wire_next(&w, &g) > 0) {
		size_t data_at = (size_t)(g.data - w.base);

		if (g.type != TP_WIRE_LEN || bad < g.offset || bad >= end_of(&w, &g))
			continue;
		if ((g.number != 3 && g.number != 6) || bad < data_at)
			return;   /* its own framing: the plane goes */
		free(p->name);
		if (g.number == 3) {
			struct tp_str line = name_field(&w, &g, 2);

			p->name = tp_xasprintf("line '%.*s' of plane '%.*s'", (int)line.len,
					       line.ptr, (int)plane.len, plane.ptr);
		} else {
			p->name = tp_xasprintf("a stat of plane '%.*s'", (int)plane.len,
					       plane.ptr);
		}
		p->start = g.offset;
		p->end = end_of(&w, &g);
		p->len_at = f->offset + 1;
		while (top->base[p->len_at - 1] & 0x80)
			p->len_at++;   /* past the plane's tag, however wide */
		p->len_width = (size_t)(f->data - top->base) - p->len_at;
		p->plane_len = f->len;
		return;
	}
}

/* Finds the part of s that holds byte bad: 1, or 0 when the damage is in
 * the top-level framing; -1 when it is the end of a file cut short (the
 * last top-level field runs past the end; p then covers it). */
static int find_part(const struct salvage *s, size_t bad, struct part *p)
{
	struct tp_wire top;
	struct tp_field f;

	memset(p, 0, sizeof(*p));
	tp_wire_init(&top, s->data, s->data, s->size);
	while (tp_wire_next(&top, &f) > 0) {
		if (bad < f.offset || f.type != TP_WIRE_LEN || bad >= end_of(&top, &f))
			continue;
		if (f.number != 1 || bad < (size_t)(f.data - top.base))
			return 0;
		part_in_plane(&top, &f, bad, p);
		return 1;
	}
	if (top.error && top.error_offset <= bad &&
	    strcmp(top.error, "length runs past the end of its message") == 0) {
		struct tp_wire again;

		/* the field whose length was bad starts before it */
		tp_wire_init(&again, s->data, s->data, s->size);
		p->start = 0;
		while (tp_wire_next(&again, &f) > 0)
			p->start = end_of(&again, &f);
		p->end = s->size;
		p->name = NULL;
		return -1;
	}
	return 0;
}

static void put_padded_varint(uint8_t *p, size_t width, uint64_t v)
{
	for (size_t i = 0; i + 1 < width; i++, v >>= 7)
		p[i] = (uint8_t)((v & 0x7f) | 0x80);
	p[width - 1] = (uint8_t)(v & 0x7f);
}

static void cut_part(struct salvage *s, const struct part *p)
{
	size_t len = p->end - p->start;

	if (p->len_width) {
		/* a varint of width w holds 7w bits: a smaller value fits */
		put_padded_varint(s->data + p->len_at, p->len_width, p->plane_len - len);
	}
	record_cut(s, p->start, len);
	memmove(s->data + p->start, s->data + p->end, s->size - p->end);
	s->size -= len;
}

/* Decodes the copy into a fresh arena. */
static enum tp_err decode_copy(struct salvage *s, struct tp_xspace *xs,
			       struct tp_arena *arena, const char *shown,
			       const struct tp_decode_opts *opts, struct tp_error *err)
{
	tp_arena_release(arena);
	tp_arena_init(arena);
	tp_error_clear(err);
	return tp_xspace_decode_ex(xs, arena, s->data, s->size, shown, opts, err);
}

/* One damaged part cut out of s; false when it cannot be. */
static bool cut_damage(struct salvage *s, const struct tp_source *src, bool partial,
		       struct tp_damage_list *found, const struct tp_error *err)
{
	const char *what;
	uint64_t at;
	struct part p;
	int kind;

	if (err->code != TP_ERR_INPUT || s->n_cuts == MAX_CUTS ||
	    err->corrupt != TP_CORRUPT_XSPACE || !err->has_offset ||
	    err->offset >= s->size)
		return false;
	at = err->offset;
	what = err->detail[0] ? err->detail : "damaged";
	kind = find_part(s, (size_t)at, &p);
	if (kind == 0 || (kind < 0 && (!partial || p.start == 0))) {
		free(p.name);
		return false;   /* the top level: nothing can be read past it */
	}
	if (kind < 0) {
		free(p.name);
		p.name = tp_xasprintf("the incomplete plane at byte %zu (%zu bytes; the file is cut short)",
				      original(s, p.start), p.end - p.start);
		tp_damage_push(found, src->path, p.name, original(s, (size_t)at),
			       "its length runs past the end of the file (--partial)");
	} else {
		tp_damage_push(found, src->path, p.name, original(s, (size_t)at), what);
	}
	cut_part(s, &p);
	return true;
}

/* U+FFFD, as UTF-8: what a text-mode copy writes for each byte it could
 * not decode (every byte above 0x7f of a binary file). */
static size_t replacement_chars(const uint8_t *p, size_t n)
{
	size_t found = 0;

	for (size_t i = 0; i + 2 < n; i++)
		if (p[i] == 0xef && p[i + 1] == 0xbf && p[i + 2] == 0xbd) {
			found++;
			i += 2;
		}
	return found;
}

/* ", it grew from N to M bytes while read" when the file on disk is now,
 * or a moment later, longer than the bytes decoded (a copy or a profiler
 * still writing it), else "". Only on the way to a refusal: the moment
 * (100 ms) is spent only when the capture is refused anyway. */
static void grew(const struct tp_source *src, char *buf, size_t size)
{
	struct stat st;

	buf[0] = '\0';
	if (src->gzip || strcmp(src->path, "-") == 0)
		return;
	for (int look = 0; look < 2; look++) {
		if (look) {
			struct timespec moment = { 0, 100 * 1000 * 1000 };

			nanosleep(&moment, NULL);
		}
		if (stat(src->path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size > src->buf.size) {
			snprintf(buf, size, ": it grew from %zu to %llu bytes while read",
				 src->buf.size, (unsigned long long)st.st_size);
			return;
		}
	}
}

/* Whether the last top-level field, at start, declares an end a capture
 * could have (at most TP_DEFAULT_MAX_INPUT): a file still being written
 * has its true length there; a hostile or damaged length (2^62) does not. */
static bool plausible_end(const uint8_t *d, size_t size, size_t start)
{
	uint64_t len = 0;
	size_t i = start;
	unsigned shift = 0;

	while (i < size && (d[i] & 0x80))   /* the tag */
		i++;
	for (i++; i < size && shift < 64; i++, shift += 7) {
		len |= (uint64_t)(d[i] & 0x7f) << shift;
		if (!(d[i] & 0x80))
			return len <= TP_DEFAULT_MAX_INPUT;
	}
	return true;    /* the length itself is cut: a clean cut too */
}

/* "F: corrupt capture at byte N: ..." becomes "F: capture cut short
 * (still being written?) at byte N: ...". */
static void reword_cut(struct tp_error *err)
{
	static const char was[] = "corrupt capture", now[] = "capture cut short (still being written?)";
	char *at = strstr(err->msg, was);
	size_t grow = sizeof(now) - sizeof(was), len = strlen(err->msg);

	if (!at || len + grow + 1 > sizeof(err->msg))
		return;
	memmove(at + sizeof(now) - 1, at + sizeof(was) - 1, len - (size_t)(at - err->msg) -
		(sizeof(was) - 1) + 1);
	memcpy(at, now, sizeof(now) - 1);
}

/* A refused capture's message, with what would fix it: --partial for a
 * file cut short, a binary copy for one a text-mode copy mangled. A file
 * whose end is a clean cut (every top-level field before it whole), or
 * that grew while it was read, is said to be cut short, perhaps still
 * being written, rather than corrupt. */
static void refusal_hint(const struct tp_source *src, bool partial, struct tp_error *err)
{
	struct salvage whole = { .data = (uint8_t *)src->buf.data, .size = src->buf.size };
	size_t n = strlen(err->msg), head = src->buf.size < 65536 ? src->buf.size : 65536;
	size_t mangled = replacement_chars(src->buf.data, head);
	struct part p = { 0 };

	/* a few U+FFFD can be real text (a name); every high byte gone is not */
	if (mangled >= 8) {
		snprintf(err->msg + n, sizeof(err->msg) - n,
			 "; damaged by a text-mode copy: its bytes above 0x7f became EF BF BD (U+FFFD, "
			 "%zu times in its first %zu bytes); copy it again as binary", mangled, head);
		return;
	}
	bool cut = err->has_offset && err->offset < src->buf.size &&
		   find_part(&whole, (size_t)err->offset, &p) < 0 &&
		   plausible_end(src->buf.data, src->buf.size, p.start);
	char growth[96] = "";

	/* a clean cut (every field before it whole, the last running past
	 * the end) is what a copy in progress leaves, not damage; growing
	 * while read, it certainly is one */
	/* with --partial, refused only when cut in its first plane: still
	 * cut short, not corrupt, and no plane is complete to read */
	if (cut && (!partial || p.start == 0)) {
		grew(src, growth, sizeof(growth));
		reword_cut(err);
		n = strlen(err->msg);
		snprintf(err->msg + n, sizeof(err->msg) - n, "%s; %s", growth,
			 p.start > 0 ? "--partial reads it up to its last complete plane, or try again once it is complete"
			 : partial ? "its first plane runs past its end: no plane is complete, so --partial has nothing to read: try again once it is complete"
				   : "its first plane runs past its end: try again once it is complete");
	}
	free(p.name);
}

enum tp_err tp_damage_salvage(struct tp_source *src, const char *shown,
			      struct tp_xspace *xs, struct tp_arena *arena,
			      const struct tp_decode_opts *opts, bool partial,
			      struct tp_damage_list *found, struct tp_error *err)
{
	struct tp_decode_opts o = *opts;
	struct tp_error first = *err;
	struct salvage *s = tp_xcalloc(1, sizeof(*s));
	size_t had = found->n;
	enum tp_err rc = err->code;

	o.drop_pages = false;   /* a heap copy: its pages cannot come back */
	s->data = tp_xmalloc(src->buf.size ? src->buf.size : 1);
	memcpy(s->data, src->buf.data, src->buf.size);
	s->size = src->buf.size;
	while (rc != TP_OK && cut_damage(s, src, partial, found, err))
		rc = decode_copy(s, xs, arena, shown, &o, err);
	if (rc == TP_OK && xs->n_planes == 0)
		rc = TP_ERR_INPUT;   /* nothing left: the damage was the capture */
	if (rc != TP_OK) {
		/* refused as before: the first message, no notes */
		while (found->n > had) {
			found->n--;
			free(found->v[found->n].part);
			free(found->v[found->n].what);
		}
		free(s->data);
		free(s);
		*err = first;
		refusal_hint(src, partial, err);
		return first.code;
	}
	tp_buffer_release(&src->buf);
	src->buf.heap = s->data;
	src->buf.data = s->data;
	src->buf.size = s->size;
	src->cuts = tp_xmalloc(s->n_cuts * sizeof(*src->cuts));
	memcpy(src->cuts, s->cuts, s->n_cuts * sizeof(*src->cuts));
	src->n_cuts = s->n_cuts;
	free(s);
	return TP_OK;
}
