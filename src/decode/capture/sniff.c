/*
 * sniff.c - telling an XSpace from an HloProto by its bytes.
 *
 * Both messages start with field 1, length-delimited (a plane; the module),
 * so the first field's payload decides: an XPlane writes id (1) and, when
 * present, stat_metadata (5) and stats (6) as varint / message / message,
 * while an HloModuleProto writes name (1) as a string and id (5) and
 * entry_computation_id (6) as varints, and has fields beyond 6. Top-level
 * fields 2 and 4 exist only in XSpace (errors, hostnames). A capture cut
 * short is told by its whole fields (or, cut in its first plane, by the
 * whole fields of that), so that it reads as cut, whatever its name.
 */
#include "tpuprof/decode/capture.h"
#include "tpuprof/decode/wire.h"
#include "capture_internal.h"

#include <string.h>

/* Votes of one field inside the first top-level message. */
static int vote(const struct tp_field *f)
{
	bool len = f->type == TP_WIRE_LEN;

	switch (f->number) {
	case 1:
		return len ? -1 : +1;     /* module name vs plane id  */
	case 5:
	case 6:
		return len ? +1 : -1;     /* plane maps vs module ids */
	default:
		return f->number > 6 ? -1 : 0;
	}
}

static int sniff_first_message(struct tp_wire *top, const struct tp_field *f)
{
	struct tp_wire w;
	struct tp_field g;
	int score = 0, rc;

	tp_wire_sub(&w, top, f);
	while ((rc = tp_wire_next(&w, &g)) > 0)
		score += vote(&g);
	if (rc < 0 || score == 0)
		return 0;
	return score > 0 ? 'X' : 'H';
}

/* Whether what stopped a reader is the data ending (a cut), not a byte
 * no protobuf has. */
static bool cut_short(const char *error)
{
	return error && (strcmp(error, "length runs past the end of its message") == 0 ||
			 strcmp(error, "truncated or overlong varint") == 0 ||
			 strcmp(error, "truncated or overlong length") == 0 ||
			 strcmp(error, "truncated fixed-width field") == 0 ||
			 strcmp(error, "truncated or overlong field tag") == 0);
}

/* A capture cut inside its first plane (top-level field 1 running past
 * the end): 'X' when the fields of it that are whole vote for a plane
 * and the rest is cut, not damaged; else 0. Never 'H': a cut module
 * says too little (its name alone) to tell it from other bytes. */
static int sniff_cut_first_plane(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	uint64_t key, len;
	struct tp_wire w;
	struct tp_field g;
	int score = 0;

	if (!tp_wire_varint(&p, end, &key) || key != (1u << 3 | TP_WIRE_LEN) ||
	    !tp_wire_varint(&p, end, &len) || len <= (uint64_t)(end - p))
		return 0;
	tp_wire_init(&w, data, p, (size_t)(end - p));
	while (tp_wire_next(&w, &g) > 0)
		score += vote(&g);
	return score > 0 && (!w.error || cut_short(w.error)) ? 'X' : 0;
}

int tp_sniff(const uint8_t *data, size_t size)
{
	struct tp_wire top;
	struct tp_field f;
	int rc, verdict = 0;

	tp_wire_init(&top, data, data, size);
	while ((rc = tp_wire_next(&top, &f)) > 0) {
		if (f.type != TP_WIRE_LEN)
			return 0; /* neither has top-level scalars */
		if (f.number == 2 || f.number == 4)
			verdict = 'X';
		else if (f.number == 1 && !verdict)
			verdict = sniff_first_message(&top, &f);
	}
	if (rc == 0)
		return verdict;
	/* cut short (a copy, a profiler still writing): the kind the whole
	 * fields before the cut gave, so that the reader can say "cut short"
	 * and --partial read it whatever the file's name */
	if (!cut_short(top.error))
		return 0;
	return verdict ? verdict : sniff_cut_first_plane(data, size);
}

/* Kind from the file name, for bytes that could be either message. */
int tp_capture_kind_from_name(const char *path)
{
	if (strstr(path, ".xplane.pb") || strstr(path, ".xplane.riegeli"))
		return 'X';
	if (strstr(path, ".hlo_proto.pb") || strstr(path, ".hlo.pb"))
		return 'H';
	return 0;
}

