/*
 * hlo.h - HLO modules of a capture: where each came from, and its lazily
 * decoded xla.HloProto.
 *
 * A module's serialized bytes stay in the capture's file buffer until an
 * analysis asks for them: a pod capture embeds the same modules in every
 * host, and `info` on 256 hosts should not unpack 256 copies. Decoding uses
 * protobuf-c with the capture's arena, so messages die with the capture.
 */
#ifndef TPUPROF_HLO_H
#define TPUPROF_HLO_H

#include <stdbool.h>
#include <stdint.h>

#include "hlo.pb-c.h"
#include "tpuprof/util/arena.h"
#include "tpuprof/util/error.h"
#include "tpuprof/util/util.h"

enum tp_module_origin {
	TP_MODULE_EMBEDDED,   /* Hlo Proto stat in /host:metadata        */
	TP_MODULE_HLO_FILE,   /* a standalone *.hlo_proto.pb             */
	TP_MODULE_XLA_DUMP,   /* an XLA dump module_NNNN.*.hlo.pb        */
};

struct tp_module {
	uint64_t program_id;          /* fingerprint on TPU, module id else  */
	bool program_id_known;        /* false until decoded, for bare files */
	struct tp_str label;          /* "<name>(<id>)" as stored, borrowed  */
	struct tp_str raw;            /* serialized HloProto, borrowed       */
	size_t raw_offset;            /* file offset of raw                  */
	const char *path;             /* source file, arena                  */
	int host;                     /* index into tp_capture.hosts, or -1  */
	enum tp_module_origin origin;
	char embed_layout;            /* 'A' or 'B' (format-facts §3), else 0 */
	Xla__HloProto *hlo;           /* arena; NULL until decoded           */
	bool damaged;                 /* embedded bytes that do not decode:
				       * skipped, hlo stays NULL (damage.c)  */
};

/* Unpacks m->raw into m->hlo (once). Fails with TP_ERR_INPUT naming the
 * file and the module when the bytes are not a valid HloProto or nest
 * deeper than tpuprof accepts. */
enum tp_err tp_module_decode(struct tp_module *m, struct tp_arena *arena,
			     struct tp_error *err);

/* The module's name: from the decoded HLO when available, else the part
 * of the label before "(". Returned slice is borrowed from m. */
struct tp_str tp_module_name(const struct tp_module *m);

/* Counts over a decoded module, for `info` and sanity checks. */
struct tp_hlo_counts {
	size_t computations;
	size_t fusion_computations;  /* is_fusion_computation            */
	size_t instructions;         /* all computations, fused included */
	size_t fusions;              /* opcode "fusion"                  */
	size_t collectives;          /* collective ops, -done excluded   */
	bool has_buffer_assignment;
	size_t logical_buffers;
	size_t allocations;
	size_t heap_traces;
	size_t heap_events;
};
void tp_hlo_count(const Xla__HloProto *hlo, struct tp_hlo_counts *out);

/* Parses the program id of a "<module>(<program id>)" label (the digits
 * between the last "(" and a final ")"). */
bool tp_parse_paren_id(struct tp_str s, uint64_t *out);

/* True for opcodes that start or are a cross-device collective
 * (all-reduce, all-gather-start, send, ... and cross-replica-sum);
 * the matching -done opcodes return false. */
bool tp_opcode_is_collective(const char *opcode);

#endif
