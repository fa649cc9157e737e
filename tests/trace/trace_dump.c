/*
 * trace_dump.c - the trace test's own reader of a Perfetto trace (plain
 * or gzip): decodes it with protobuf-c code generated from
 * tests/trace/perfetto_subset.proto (not with tpuprof's encoder), checks
 * the rules of trace-facts §5 (only fields of the subset, sequence id and
 * flags, interned ids defined before use, tracks declared before use, unique uuids, BEGIN/END paired
 * and nested per track in time order, counter tracks holding counters
 * only). Interned data, TracePacketDefaults (clock, track) and clocks are
 * per sequence, as trace_processor keeps them: a sequence's first packet
 * must clear its state; timestamps on a sequence-scoped incremental clock
 * (ClockSnapshot is_incremental) are summed into absolute ns, which must
 * line up with BOOTTIME in the snapshot. It prints every track, slice, instant and counter value as one
 * JSON document on stdout for tests/trace/check_trace.py.
 *
 *   trace_dump FILE     exit 0 when the trace keeps every rule, else 1
 *   trace_dump --digest FILE
 *                       the same checks, reading packet by packet (a trace
 *                       of any size); prints counts and an order-free
 *                       digest of the content instead of the events: every
 *                       track (process/.../name, counter, rank, ordering,
 *                       merge) and every slice, instant and counter value
 *                       (its track's path, name, ts, dur, depth, args),
 *                       without uuids, sequence ids or packet order. Two
 *                       traces with the same digest hold the same content
 *                       as trace_processor reads it, however encoded.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#include "perfetto_subset.pb-c.h"

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent Event;
typedef Perfetto__Protos__DebugAnnotation Annotation;

struct strtab { char **s; size_t n; };   /* iid -> string */

struct open_slice { json_t *slice; uint64_t ts; };

struct track {
	uint64_t uuid;
	char *path;               /* process name/.../track name           */
	bool counter;
	struct open_slice *stack;
	size_t depth, cap;
	uint64_t last_ts;
};

/* One trusted packet sequence: its incremental state. */
struct seq {
	uint32_t id;
	struct strtab names, arg_names, values;
	bool has_clock, has_track;
	uint32_t clock;           /* default timestamp clock              */
	uint64_t track;           /* default track_uuid                   */
	uint32_t incremental;     /* its incremental clock id, 0 = none   */
	uint64_t now;             /* that clock's time, ns                */
};

static struct seq *seqs;
static size_t n_seqs;
static struct track *tracks;
static size_t n_tracks;
static json_t *errors;
static json_t *root_track;    /* the uuid 0 descriptor, if any          */
static size_t packet_index;   /* of the packet being read               */
static int n_errors;

/* --digest: events are hashed as they complete, not kept. Each is one
 * canonical line (its track's path, then its JSON with sorted keys, no
 * uuid); the digest is the sum of two 64-bit hashes of every line, so
 * packet order does not matter. */
static bool digest_mode;
static uint64_t digest_sum[2], digest_n[4]; /* tracks, slices, instants, counters */

static uint64_t line_hash(const char *s, uint64_t seed)
{
	uint64_t h = seed;

	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= UINT64_C(0x100000001b3);
	}
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

static void digest(int kind, const char *path, json_t *obj)
{
	char *js = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
	size_t n = strlen(path) + strlen(js) + 4;
	char *line = malloc(n);

	snprintf(line, n, "%d\t%s\t%s", kind, path, js);
	digest_sum[0] += line_hash(line, UINT64_C(0xcbf29ce484222325));
	digest_sum[1] += line_hash(line, UINT64_C(0x84222325cbf29ce4));
	digest_n[kind]++;
	if (getenv("TRACE_DUMP_LINES"))
		puts(line);
	free(line);
	free(js);
}

/* An instant or counter value read: kept in arr, or (--digest) hashed
 * on its track's path and let go. */
static void keep(int kind, const char *path, json_t *arr, json_t *obj)
{
	if (!digest_mode) {
		json_array_append_new(arr, obj);
		return;
	}
	json_object_del(obj, "track");
	digest(kind, path, obj);
	json_decref(obj);
}

/* Capture strings need not be UTF-8; jansson's strings must be. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);

	return j ? j : json_string("<not utf-8>");
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n_errors++ < 50)
		json_array_append_new(errors, json_string(buf));
}

static void define(struct strtab *t, uint64_t iid, const char *s, size_t len)
{
	if (iid == 0 || iid > 100000000) {
		fail("interned id %" PRIu64 " out of range", iid);
		return;
	}
	if (iid >= t->n) {
		size_t n = iid + 1024;
		t->s = realloc(t->s, n * sizeof(*t->s));
		memset(t->s + t->n, 0, (n - t->n) * sizeof(*t->s));
		t->n = n;
	}
	if (t->s[iid])
		fail("interned id %" PRIu64 " defined twice", iid);
	t->s[iid] = strndup(s, len);
}

static const char *lookup(const struct strtab *t, uint64_t iid, const char *what)
{
	if (iid < t->n && t->s[iid])
		return t->s[iid];
	fail("%s iid %" PRIu64 " used before it is defined", what, iid);
	return "";
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	memset(t, 0, sizeof(*t));
}

/* The sequence of id; *fresh when it has not been seen before. */
static struct seq *find_seq(uint32_t id, bool *fresh)
{
	*fresh = false;
	for (size_t i = 0; i < n_seqs; i++)
		if (seqs[i].id == id)
			return &seqs[i];
	seqs = realloc(seqs, (n_seqs + 1) * sizeof(*seqs));
	memset(&seqs[n_seqs], 0, sizeof(*seqs));
	seqs[n_seqs].id = id;
	*fresh = true;
	return &seqs[n_seqs++];
}

static void clear_seq(struct seq *q)
{
	uint32_t id = q->id;

	strtab_free(&q->names);
	strtab_free(&q->arg_names);
	strtab_free(&q->values);
	memset(q, 0, sizeof(*q));
	q->id = id;
}

static void read_defaults(struct seq *q, const Perfetto__Protos__TracePacketDefaults *d)
{
	q->has_clock = d->has_timestamp_clock_id;
	q->clock = d->timestamp_clock_id;
	q->has_track = d->track_event_defaults && d->track_event_defaults->has_track_uuid;
	q->track = q->has_track ? d->track_event_defaults->track_uuid : 0;
}

/* Only what tpuprof needs is supported: a sequence clock (64-127) that
 * is incremental, in ns, at the same time as BOOTTIME in the snapshot. */
static void read_clocks(struct seq *q, const Perfetto__Protos__ClockSnapshot *c)
{
	bool boot = false;
	uint64_t boot_ts = 0;

	for (size_t i = 0; i < c->n_clocks; i++)
		if (c->clocks[i]->clock_id == 6) {
			boot = true;
			boot_ts = c->clocks[i]->timestamp;
		}
	for (size_t i = 0; i < c->n_clocks; i++) {
		const Perfetto__Protos__ClockSnapshot__Clock *k = c->clocks[i];

		if (k->clock_id == 6)
			continue;
		if (k->clock_id < 64 || k->clock_id > 127 || !k->is_incremental ||
		    (k->has_unit_multiplier_ns && k->unit_multiplier_ns != 1))
			fail("sequence %u: clock %u is not an incremental ns sequence clock", q->id,
			     k->clock_id);
		else if (!boot || boot_ts != k->timestamp)
			fail("sequence %u: clock %u not at BOOTTIME's time", q->id, k->clock_id);
		q->incremental = k->clock_id;
		q->now = k->timestamp;
	}
}

/* The packet's time in BOOTTIME ns. */
static uint64_t packet_time(struct seq *q, const Packet *p)
{
	uint32_t clock = p->has_timestamp_clock_id ? p->timestamp_clock_id :
			 q->has_clock ? q->clock : 6;

	if (clock == 6)
		return p->timestamp;
	if (!q->incremental || clock != q->incremental) {
		fail("sequence %u: timestamp on clock %u, which it does not define", q->id, clock);
		return p->timestamp;
	}
	q->now += p->timestamp;
	return q->now;
}

static struct track *find_track(uint64_t uuid)
{
	for (size_t i = 0; i < n_tracks; i++)
		if (tracks[i].uuid == uuid)
			return &tracks[i];
	return NULL;
}

static void read_interned(struct seq *q, const Perfetto__Protos__InternedData *in)
{
	for (size_t i = 0; i < in->n_event_names; i++)
		define(&q->names, in->event_names[i]->iid, in->event_names[i]->name,
		       strlen(in->event_names[i]->name));
	for (size_t i = 0; i < in->n_debug_annotation_names; i++)
		define(&q->arg_names, in->debug_annotation_names[i]->iid,
		       in->debug_annotation_names[i]->name,
		       strlen(in->debug_annotation_names[i]->name));
	for (size_t i = 0; i < in->n_debug_annotation_string_values; i++)
		define(&q->values, in->debug_annotation_string_values[i]->iid,
		       (const char *)in->debug_annotation_string_values[i]->str.data,
		       in->debug_annotation_string_values[i]->str.len);
}

static void read_track(const Perfetto__Protos__TrackDescriptor *d, json_t *out)
{
	json_t *t = json_object();

	if (d->has_uuid && d->uuid == 0) {
		/* the root descriptor: ordering only, no track */
		if (d->name || d->process || d->thread || d->counter || d->has_parent_uuid)
			fail("the root descriptor (uuid 0) declares a track");
		if (root_track)
			fail("two root descriptors");
		else
			root_track = json_pack("{s:I,s:I}", "process_ordering",
					       (json_int_t)d->process_ordering, "packet",
					       (json_int_t)packet_index);
		return;
	}
	if (!d->has_uuid)
		fail("track descriptor without a uuid");
	if (find_track(d->uuid))
		fail("track %" PRIu64 " declared twice", d->uuid);
	if (d->has_parent_uuid && !find_track(d->parent_uuid))
		fail("track %" PRIu64 ": parent %" PRIu64 " not declared before", d->uuid,
		     d->parent_uuid);
	if (d->process && d->has_parent_uuid)
		fail("process track %" PRIu64 " has a parent", d->uuid);
	const struct track *parent = d->has_parent_uuid ? find_track(d->parent_uuid) : NULL;
	const char *own = d->process ? (d->process->process_name ? d->process->process_name : "") :
			  d->name ? d->name : "";
	size_t plen = (parent ? strlen(parent->path) + 1 : 0) + strlen(own) + 1;
	char *path = malloc(plen);

	snprintf(path, plen, "%s%s%s", parent ? parent->path : "", parent ? "/" : "", own);
	tracks = realloc(tracks, (n_tracks + 1) * sizeof(*tracks));
	memset(&tracks[n_tracks], 0, sizeof(*tracks));
	tracks[n_tracks].uuid = d->uuid;
	tracks[n_tracks].path = path;
	tracks[n_tracks].counter = d->counter != NULL;
	n_tracks++;
	json_object_set_new(t, "uuid", json_integer((json_int_t)d->uuid));
	json_object_set_new(t, "parent", d->has_parent_uuid ? json_integer((json_int_t)d->parent_uuid) : json_null());
	json_object_set_new(t, "name", d->name ? jstr(d->name) : json_null());
	if (d->process) {
		json_object_set_new(t, "pid", json_integer(d->process->pid));
		json_object_set_new(t, "process_name", jstr(d->process->process_name ? d->process->process_name : ""));
	}
	json_object_set_new(t, "counter", json_boolean(d->counter != NULL));
	json_object_set_new(t, "rank", d->has_sibling_order_rank ? json_integer(d->sibling_order_rank) : json_null());
	json_object_set_new(t, "child_ordering", d->has_child_ordering ? json_integer(d->child_ordering) : json_null());
	json_object_set_new(t, "merge", d->has_sibling_merge_behavior ? json_integer(d->sibling_merge_behavior) : json_null());
	if (digest_mode) {
		json_object_del(t, "uuid");
		json_object_del(t, "parent");
		digest(0, path, t);
		json_decref(t);
		return;
	}
	json_array_append_new(out, t);
}

/* Every argument name's value type, across the file: a reader (trace
 * processor's args table, SQL over it) wants one type per argument
 * (docs/trace.md). */
static json_t *arg_types;

static void one_type(const char *name, const char *type)
{
	const char *seen;

	if (!arg_types)
		arg_types = json_object();
	seen = json_string_value(json_object_get(arg_types, name));
	if (!seen)
		json_object_set_new(arg_types, name, json_string(type));
	/* a capture may write one stat as an integer in one event and a
	 * double or a string in another (TF allocator fragmentation, size):
	 * each keeps its own; what tpuprof decides, integers' signedness,
	 * is checked */
	else if ((strcmp(seen, "int") == 0 && strcmp(type, "uint") == 0) ||
		 (strcmp(seen, "uint") == 0 && strcmp(type, "int") == 0))
		fail("argument %s is %s here and %s elsewhere in the file", name, type, seen);
}

static json_t *annotations(const struct seq *q, const Event *e)
{
	json_t *args = json_object();

	for (size_t i = 0; i < e->n_debug_annotations; i++) {
		const Annotation *a = e->debug_annotations[i];
		const char *name = a->name ? a->name : lookup(&q->arg_names, a->name_iid, "annotation name");
		json_t *v;

		if (a->has_int_value)
			v = json_integer(a->int_value);
		else if (a->has_uint_value)
			v = json_integer((json_int_t)a->uint_value); /* tests compare as signed */
		else if (a->has_double_value)
			v = json_real(a->double_value);
		else if (a->string_value)
			v = jstr(a->string_value);
		else if (a->has_string_value_iid)
			v = jstr(lookup(&q->values, a->string_value_iid, "string value"));
		else if (a->has_bool_value)
			v = json_boolean(a->bool_value);
		else
			v = json_null();
		one_type(name, a->has_int_value ? "int" : a->has_uint_value ? "uint" :
			       a->has_double_value ? "double" : a->has_bool_value ? "bool" :
			       json_is_string(v) ? "string" : "none");
		json_object_set_new(args, name, v);
	}
	return args;
}

static void read_event(struct seq *q, const Packet *p, const Event *e, json_t *slices,
		       json_t *instants, json_t *counters)
{
	uint64_t uuid = e->has_track_uuid ? e->track_uuid : q->track;
	struct track *t = find_track(uuid);
	uint64_t ts;

	if (!p->has_timestamp)
		fail("track event without a timestamp");
	ts = packet_time(q, p);
	if (!e->has_track_uuid && !q->has_track)
		fail("track event without a track (and no default)");
	if (!t) {
		fail("event on undeclared track %" PRIu64, uuid);
		return;
	}
	if (ts < t->last_ts)
		fail("track %" PRIu64 ": event at %" PRIu64 " after one at %" PRIu64, t->uuid, ts, t->last_ts);
	t->last_ts = ts;
	if (t->counter != (e->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER))
		fail("track %" PRIu64 ": event type %d on a %s track", t->uuid, e->type,
		     t->counter ? "counter" : "slice");
	if ((p->sequence_flags & 2) == 0)
		fail("track event without SEQ_NEEDS_INCREMENTAL_STATE");
	switch (e->type) {
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN:
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT: {
		json_t *s = json_object();
		const char *name = e->name ? e->name : lookup(&q->names, e->name_iid, "event name");

		json_object_set_new(s, "track", json_integer((json_int_t)t->uuid));
		json_object_set_new(s, "name", jstr(name));
		json_object_set_new(s, "ts", json_integer((json_int_t)ts));
		json_object_set_new(s, "depth", json_integer((json_int_t)t->depth));
		json_object_set_new(s, "args", annotations(q, e));
		if (e->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT) {
			keep(2, t->path, instants, s);
			break;
		}
		if (t->depth == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 16;
			t->stack = realloc(t->stack, t->cap * sizeof(*t->stack));
		}
		t->stack[t->depth].slice = s;
		t->stack[t->depth++].ts = ts;
		if (t->depth > 512)
			fail("track %" PRIu64 ": nesting deeper than 512", t->uuid);
		if (!digest_mode)
			json_array_append_new(slices, s);
		break;
	}
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END:
		if (!t->depth) {
			fail("track %" PRIu64 ": END at %" PRIu64 " with nothing open", t->uuid, ts);
			break;
		}
		t->depth--;
		json_object_set_new(t->stack[t->depth].slice, "dur",
				    json_integer((json_int_t)(ts - t->stack[t->depth].ts)));
		if (digest_mode) {
			json_object_del(t->stack[t->depth].slice, "track");
			digest(1, t->path, t->stack[t->depth].slice);
			json_decref(t->stack[t->depth].slice);
		}
		break;
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER: {
		json_t *c = json_object();

		if (!e->has_counter_value && !e->has_double_counter_value)
			fail("counter without a value");
		json_object_set_new(c, "track", json_integer((json_int_t)t->uuid));
		json_object_set_new(c, "ts", json_integer((json_int_t)ts));
		json_object_set_new(c, "value", json_integer(e->counter_value));
		keep(3, t->path, counters, c);
		break;
	}
	default:
		fail("event of unknown type %d", e->type);
	}
}

static uint8_t *read_all(const char *path, size_t *size)
{
	gzFile f = gzopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	uint8_t *buf = malloc(cap);
	int got;

	if (!f)
		return NULL;
	while ((got = gzread(f, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	gzclose(f);
	*size = n;
	return buf;
}

static void read_packet(const Packet *p, size_t i, json_t *tr, json_t *slices,
			json_t *instants, json_t *counters)
{
	bool fresh;
	struct seq *q;

	packet_index = i;
	if (!p->has_trusted_packet_sequence_id || p->trusted_packet_sequence_id == 0)
		fail("packet %zu without a trusted_packet_sequence_id", i);
	q = find_seq(p->trusted_packet_sequence_id, &fresh);
	if (fresh && (p->sequence_flags & 1) == 0)
		fail("first packet of sequence %u without SEQ_INCREMENTAL_STATE_CLEARED",
		     p->trusted_packet_sequence_id);
	if (p->sequence_flags & 1)
		clear_seq(q);
	if (p->base.n_unknown_fields ||
	    (p->track_event && p->track_event->base.n_unknown_fields) ||
	    (p->track_descriptor && p->track_descriptor->base.n_unknown_fields) ||
	    (p->interned_data && p->interned_data->base.n_unknown_fields) ||
	    (p->clock_snapshot && p->clock_snapshot->base.n_unknown_fields) ||
	    (p->trace_packet_defaults && p->trace_packet_defaults->base.n_unknown_fields))
		fail("packet %zu has fields the subset does not know", i);
	for (size_t k = 0; p->track_event && k < p->track_event->n_debug_annotations; k++)
		if (p->track_event->debug_annotations[k]->base.n_unknown_fields)
			fail("packet %zu: an annotation has unknown fields", i);
	if (p->trace_packet_defaults)
		read_defaults(q, p->trace_packet_defaults);
	if (p->interned_data)
		read_interned(q, p->interned_data);
	if (p->clock_snapshot)
		read_clocks(q, p->clock_snapshot);
	if (p->track_descriptor)
		read_track(p->track_descriptor, tr);
	if (p->track_event)
		read_event(q, p, p->track_event, slices, instants, counters);
}

/* A varint at *p (before end); false when it runs past end. */
static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* --digest: the Trace's packets (field 1) one at a time. */
static size_t read_stream(const uint8_t *bytes, size_t size, json_t *tr)
{
	const uint8_t *p = bytes, *end = bytes + size;
	size_t n = 0;
	uint64_t len;

	while (p < end) {
		Packet *pk;

		if (*p++ != 0x0A || !read_varint(&p, end, &len) || len > (uint64_t)(end - p)) {
			fail("not a Trace of packets at byte %zu", (size_t)(p - bytes));
			break;
		}
		if (!(pk = perfetto__protos__trace_packet__unpack(NULL, len, p))) {
			fail("packet %zu does not decode", n);
			break;
		}
		read_packet(pk, n++, tr, NULL, NULL, NULL);
		perfetto__protos__trace_packet__free_unpacked(pk, NULL);
		p += len;
	}
	return n;
}

int main(int argc, char **argv)
{
	json_t *doc = json_object(), *tr = json_array(), *slices = json_array(),
	       *instants = json_array(), *counters = json_array();
	Perfetto__Protos__Trace *trace = NULL;
	size_t size, n_packets;
	uint8_t *bytes;
	const char *path = argv[argc - 1];

	digest_mode = argc == 3 && strcmp(argv[1], "--digest") == 0;
	if (argc != 2 && !digest_mode) {
		fprintf(stderr, "usage: trace_dump [--digest] FILE\n");
		return 2;
	}
	errors = json_array();
	if (!(bytes = read_all(path, &size))) {
		fprintf(stderr, "trace_dump: cannot read %s\n", path);
		return 2;
	}
	if (digest_mode) {
		n_packets = read_stream(bytes, size, tr);
	} else {
		trace = perfetto__protos__trace__unpack(NULL, size, bytes);
		if (!trace) {
			fprintf(stderr, "trace_dump: %s is not a Perfetto Trace\n", path);
			return 1;
		}
		n_packets = trace->n_packet;
		for (size_t i = 0; i < trace->n_packet; i++)
			read_packet(trace->packet[i], i, tr, slices, instants, counters);
	}
	for (size_t i = 0; i < n_tracks; i++)
		if (tracks[i].depth)
			fail("track %" PRIu64 ": %zu slices never end", tracks[i].uuid, tracks[i].depth);
	json_object_set_new(doc, "packets", json_integer((json_int_t)n_packets));
	if (digest_mode) {
		char hex[40];

		snprintf(hex, sizeof(hex), "%016" PRIx64 "%016" PRIx64, digest_sum[0], digest_sum[1]);
		json_object_set_new(doc, "digest", json_string(hex));
		json_object_set_new(doc, "tracks", json_integer((json_int_t)digest_n[0]));
		json_object_set_new(doc, "slices", json_integer((json_int_t)digest_n[1]));
		json_object_set_new(doc, "instants", json_integer((json_int_t)digest_n[2]));
		json_object_set_new(doc, "counters", json_integer((json_int_t)digest_n[3]));
		json_object_set_new(doc, "root", root_track ? root_track : json_null());
		json_decref(tr);
		json_decref(slices);
		json_decref(instants);
		json_decref(counters);
	} else {
		json_object_set_new(doc, "tracks", tr);
		json_object_set_new(doc, "root", root_track ? root_track : json_null());
		json_object_set_new(doc, "slices", slices);
		json_object_set_new(doc, "instants", instants);
		json_object_set_new(doc, "counters", counters);
	}
	json_object_set_new(doc, "errors", errors);
	json_dumpf(doc, stdout, JSON_COMPACT);
	putchar('\n');
	if (trace)
		perfetto__protos__trace__free_unpacked(trace, NULL);
	free(bytes);
	return n_errors ? 1 : 0;
}
