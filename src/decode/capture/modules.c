/*
 * modules.c - finding the HLO modules of a host (format-facts §3) and of
 * standalone HloProto files.
 *
 * Embedded modules are event metadata of plane "/host:metadata" carrying a
 * bytes stat named "Hlo Proto" (or the older "HLO Proto"). The program id
 * is the "program_id" stat when present (layout B), else the "(digits)"
 * suffix of the metadata name, else the metadata id itself (layout A),
 * read as unsigned: TPU fingerprints exceed INT64_MAX.
 */
#include "capture_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/parallel.h"

/* Parses the unsigned digits between the last "(" and a final ")". */
bool tp_parse_paren_id(struct tp_str s, uint64_t *out)
{
	size_t open;
	uint64_t v = 0;

	if (s.len < 3 || s.ptr[s.len - 1] != ')')
		return false;
	open = s.len - 1;
	while (open > 0 && s.ptr[open - 1] != '(')
		open--;
	if (open == 0 || open == s.len - 1)
		return false;
	for (size_t i = open; i < s.len - 1; i++) {
		unsigned d = (unsigned)(s.ptr[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static const struct tp_stat *hlo_stat(const struct tp_plane *pl,
				      const struct tp_event_meta *em)
{
	const struct tp_stat *s;

	s = tp_stats_find(pl, em->stats, em->n_stats, TP_SN_HLO_PROTO);
	if (!s)
		s = tp_stats_find(pl, em->stats, em->n_stats,
				  TP_SN_HLO_PROTO_OLD);
	return s && s->kind == TP_STAT_BYTES ? s : NULL;
}

static bool seen_program(const struct tp_capture *cap, size_t first,
			 uint64_t id)
{
	for (size_t i = first; i < cap->n_modules; i++)
		if (cap->modules[i].program_id == id)
			return true;
	return false;
}

void tp_capture_add_embedded_modules(struct tp_capture *cap, size_t host)
{
	const struct tp_host *h = &cap->hosts[host];
	size_t first = cap->n_modules;

	for (size_t p = 0; p < h->xs.n_planes; p++) {
		const struct tp_plane *pl = &h->xs.planes[p];

		if (pl->kind != TP_PLANE_METADATA)
			continue;
		for (size_t e = 0; e < pl->n_event_meta; e++) {
			const struct tp_event_meta *em = &pl->event_meta[e];
			const struct tp_stat *bytes = hlo_stat(pl, em);
			const struct tp_stat *pid;
			struct tp_module m = { 0 };
			int64_t v;

			if (!bytes)
				continue;
			pid = tp_stats_find(pl, em->stats, em->n_stats,
					    TP_SN_PROGRAM_ID);
			if (pid && tp_stat_int(pid, &v)) {
				m.program_id = (uint64_t)v;
				m.embed_layout = 'B';
			} else if (!tp_parse_paren_id(em->name, &m.program_id)) {
				m.program_id = (uint64_t)em->id;
			}
			if (!m.embed_layout)
				m.embed_layout = (uint64_t)em->id == m.program_id ? 'A' : 'B';
			if (seen_program(cap, first, m.program_id)) {
				tp_capture_note(cap, "%s: module %.*s appears twice; the first copy is used",
						cap->sources[h->source].path,
						/* clamped: an int cast of a
						 * > 2 GiB name would turn
						 * negative and unbounded */
						(int)(em->name.len > 200 ? 200 : em->name.len),
						em->name.ptr);
				continue;
			}
			m.program_id_known = true;
			m.label = em->name;
			m.raw = bytes->v.s;
			m.raw_offset = (size_t)((const uint8_t *)bytes->v.s.ptr -
						h->xs.base);
			m.path = cap->sources[h->source].path;
			m.host = (int)host;
			m.origin = TP_MODULE_EMBEDDED;
			tp_capture_push_module(cap, &m);
		}
	}
}

/* A standalone HloProto: its program id comes from a "(digits)" file name
 * (XProf's cache files), else from the module id once decoded. */
enum tp_err tp_capture_add_file_module(struct tp_capture *cap, size_t source,
				       struct tp_error *err)
{
	struct tp_source *src = &cap->sources[source];
	const char *base = strrchr(src->path, '/');
	struct tp_module m = { 0 };
	size_t n;

	base = base ? base + 1 : src->path;
	n = strlen(base);
	if (tp_has_suffix(base, ".hlo_proto.pb"))
		n -= strlen(".hlo_proto.pb");
	m.label = tp_str_make(base, n);
	m.program_id_known = tp_parse_paren_id(m.label, &m.program_id);
	m.raw = tp_str_make((const char *)src->buf.data, src->buf.size);
	m.path = src->path;
	m.host = -1;
	m.origin = src->kind == TP_SOURCE_XLA_DUMP ? TP_MODULE_XLA_DUMP
						   : TP_MODULE_HLO_FILE;
	tp_capture_push_module(cap, &m);
	/* Decode now: a bare file has nothing else to offer, and its
	 * program id may only be known from the module itself. */
	return tp_module_decode(&cap->modules[cap->n_modules - 1], &cap->arena,
				err);
}

/* An embedded module's bytes are not read again once decoded (the HLO
 * is copied out) or matched: their pages of the mapped capture are
 * dropped, or every host of a pod would keep a few MB of them resident. */
static void drop_raw(const struct tp_capture *cap, const struct tp_module *m)
{
	if (m->host >= 0 && (size_t)m->host < cap->n_hosts)
		tp_xspace_drop(&cap->hosts[m->host].xs, m->raw.ptr, m->raw.len);
}

/* Every host of a pod embeds the same programs: bytes equal to a module
 * decoded already share its HLO (read-only from then on) instead of
 * unpacking another copy into the arena. */
enum tp_err tp_capture_decode_module(struct tp_capture *cap, struct tp_module *m,
				     struct tp_error *err)
{
	enum tp_err rc;

	if (m->hlo || m->damaged)
		return TP_OK;
	for (size_t i = 0; i < cap->n_modules; i++) {
		const struct tp_module *o = &cap->modules[i];

		if (o == m || !o->hlo || o->raw.len != m->raw.len ||
		    memcmp(o->raw.ptr, m->raw.ptr, m->raw.len) != 0)
			continue;
		m->hlo = o->hlo;
		if (!m->program_id_known && o->program_id_known) {
			m->program_id = o->program_id;
			m->program_id_known = true;
		}
		drop_raw(cap, m);
		return TP_OK;
	}
	rc = tp_module_decode(m, &cap->arena, err);
	drop_raw(cap, m);
	return rc == TP_OK ? rc : tp_damage_module(cap, m, err);
}

/* The modules of one batch decode: a slot per distinct undecoded module,
 * each unpacked into its own arena on whichever thread is free. */
struct decode_slots {
	struct tp_module **m;
	struct tp_arena *arena;
	struct tp_error *err;
	enum tp_err *rc;
};

static void decode_slot(void *ctx, size_t i, unsigned worker)
{
	struct decode_slots *s = ctx;

	(void)worker;
	s->rc[i] = tp_module_decode(s->m[i], &s->arena[i], &s->err[i]);
}

/* The module an undecoded one shares its bytes with: an earlier one of
 * the batch (or decoded before), else NULL. */
static struct tp_module *same_bytes(struct tp_capture *cap, const struct tp_module *m)
{
	for (size_t i = 0; i < cap->n_modules && &cap->modules[i] != m; i++) {
		struct tp_module *o = &cap->modules[i];

		if (!o->damaged && o->raw.len == m->raw.len &&
		    memcmp(o->raw.ptr, m->raw.ptr, m->raw.len) == 0)
			return o;
	}
	return NULL;
}

enum tp_err tp_capture_decode_modules(struct tp_capture *cap, const bool *want,
				      struct tp_error *err)
{
	size_t n = cap->n_modules, k = 0;
	struct decode_slots s = {
		tp_xcalloc(n + 1, sizeof(*s.m)), tp_xcalloc(n + 1, sizeof(*s.arena)),
		tp_xcalloc(n + 1, sizeof(*s.err)), tp_xcalloc(n + 1, sizeof(*s.rc)),
	};
	enum tp_err rc = TP_OK;

	for (size_t i = 0; i < n; i++) {
		struct tp_module *m = &cap->modules[i];

		if ((want && !want[i]) || m->hlo || m->damaged || same_bytes(cap, m))
			continue;
		tp_arena_init(&s.arena[k]);
		s.m[k++] = m;
	}
	tp_parallel_for(k, 0, decode_slot, &s);
	/* in module order, as one by one: the arenas kept, the copies
	 * sharing the HLO, the first refused module the answer */
	for (size_t j = 0; j < k; j++)
		tp_arena_adopt(&cap->arena, &s.arena[j]);
	for (size_t i = 0, j = 0; i < n && rc == TP_OK; i++) {
		struct tp_module *m = &cap->modules[i];

		if (want && !want[i])
			continue;
		if (j < k && s.m[j] == m) {
			drop_raw(cap, m);
			if (s.rc[j] != TP_OK) {
				*err = s.err[j];
				rc = tp_damage_module(cap, m, err);
			}
			j++;
		} else {
			rc = tp_capture_decode_module(cap, m, err);
		}
	}
	free(s.m);
	free(s.arena);
	free(s.err);
	free(s.rc);
	return rc;
}
