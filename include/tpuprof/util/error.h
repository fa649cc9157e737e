/*
 * error.h - error codes and the error record filled by the library.
 *
 * Every library function that can fail returns an enum tp_err (TP_OK is 0,
 * failures are negative) and fills a caller-owned struct tp_error with a
 * one-line message that names the file and what is wrong. Only the CLI
 * prints the message and turns the code into an exit status
 * (docs/exit-codes.md): the library never prints and never exits, except on
 * out-of-memory (see util.h), which is fatal by design.
 */
#ifndef TPUPROF_ERROR_H
#define TPUPROF_ERROR_H

#include <stdbool.h>
#include <stddef.h>

enum tp_err {
	TP_OK = 0,
	TP_ERR_USAGE = -2,    /* bad command line or option value     */
	TP_ERR_INPUT = -3,    /* input missing, unreadable or corrupt */
	TP_ERR_NETWORK = -4,  /* network or server error              */
	TP_ERR_OUTPUT = -5,   /* output could not be written          */
	TP_ERR_INTERNAL = -6, /* a bug in tpuprof                     */
};

/* Which kind of corrupt input an error is about, when the decoder knows
 * where: callers that skip a damaged part (src/decode/capture/damage.c)
 * read these fields, never the message's text. */
enum tp_corrupt_kind {
	TP_CORRUPT_NONE = 0,
	TP_CORRUPT_XSPACE,          /* the XSpace's framing or a field   */
	TP_CORRUPT_HLO,             /* an HloProto (embedded or a file)  */
	TP_CORRUPT_HLO_TOO_LARGE,   /* over protobuf's 2 GiB: not damage */
};

struct tp_error {
	enum tp_err code; /* TP_OK until set                          */
	/* one line, no trailing newline or period; room for a URL and two
	 * paths of 200-byte names (fetch's rename of a .part) and the
	 * reason after them: at 1 KiB that reason was cut off */
	char msg[4096];
	/* where the input is corrupt; reset by tp_error_set */
	enum tp_corrupt_kind corrupt;
	bool has_offset;      /* offset known                          */
	unsigned long long offset; /* byte, in the bytes decoded      */
	char detail[256];     /* what is wrong there; "" when not said */
};

/* Sets code and formats msg (truncated to fit); returns code so callers
 * can write `return tp_error_set(err, TP_ERR_INPUT, "...")`. A NULL err is
 * allowed: the code is still returned. */
enum tp_err tp_error_set(struct tp_error *err, enum tp_err code,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Says where err's corrupt input is (after tp_error_set). */
void tp_error_corrupt_at(struct tp_error *err, enum tp_corrupt_kind kind,
			 bool has_offset, unsigned long long offset,
			 const char *detail);

/* Resets err to TP_OK with an empty message. */
void tp_error_clear(struct tp_error *err);

/* Short name of a code, e.g. "corrupt or unreadable input". */
const char *tp_strerror(enum tp_err code);

#endif
