/*
 * stream_check.h - validating a capture as it streams in (stream_check.c):
 * fed the bytes read so far, it says whether they can still start a
 * capture. Used for pipes, FIFOs, character devices and sockets, raw or
 * gzip (buffer.c, stream_read.c). No allocation; the state is the struct.
 */
#ifndef TPUPROF_STREAM_CHECK_H
#define TPUPROF_STREAM_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/util/error.h"

enum tp_stream_verdict {
	TP_STREAM_MORE,      /* fine so far: read on                     */
	TP_STREAM_BAD,       /* a top-level field no capture can hold:
			      * stop reading; the decoder, given what was
			      * read, reports it as it would for a file   */
	TP_STREAM_BAD_INNER, /* the first plane or module does not parse:
			      * refuse (tp_stream_check_error)            */
	TP_STREAM_TOO_BIG,   /* a field longer than --max-input allows   */
};

struct tp_stream_check {
	uint64_t max;        /* --max-input                              */
	bool named;          /* the file name decides the kind (sniff)   */
	bool walk_first;     /* the first field 1 is yet to be walked     */
	bool in_first;       /* walking it now                            */
	bool riegeli;        /* a Riegeli file (its signature): the chunk
			      * reader checks it, not this               */
	bool not_riegeli;    /* the first bytes are not its signature     */
	uint64_t at;         /* the next field to read                    */
	uint64_t first_at, first_end; /* the field being walked          */
	const char *error;   /* what is wrong (static), for BAD*         */
	uint64_t error_at;   /* its byte (TOO_BIG: the field's)           */
};

/* named: the path's name says XSpace or HloProto (capture.c). */
void tp_stream_check_init(struct tp_stream_check *c, uint64_t max, bool named);
/* data holds every byte read so far (len of them; len grows between
 * calls, the bytes already given stay the same). Once it returned
 * anything but TP_STREAM_MORE, do not call it again. */
enum tp_stream_verdict tp_stream_check_feed(struct tp_stream_check *c,
					    const uint8_t *data, size_t len);
/* The one-line message for TP_STREAM_BAD_INNER or TP_STREAM_TOO_BIG. */
enum tp_err tp_stream_check_error(const struct tp_stream_check *c,
				  enum tp_stream_verdict v, const char *shown,
				  struct tp_error *err);

#endif
