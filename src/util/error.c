/*
 * error.c - filling struct tp_error and naming error codes.
 */
#include "tpuprof/util/error.h"

#include <stdarg.h>
#include <stdio.h>

enum tp_err tp_error_set(struct tp_error *err, enum tp_err code,
			 const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	err->corrupt = TP_CORRUPT_NONE;
	err->has_offset = false;
	err->offset = 0;
	err->detail[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void tp_error_corrupt_at(struct tp_error *err, enum tp_corrupt_kind kind,
			 bool has_offset, unsigned long long offset,
			 const char *detail)
{
	if (!err)
		return;
	err->corrupt = kind;
	err->has_offset = has_offset;
	err->offset = offset;
	snprintf(err->detail, sizeof(err->detail), "%s", detail ? detail : "");
}

void tp_error_clear(struct tp_error *err)
{
	err->code = TP_OK;
	err->msg[0] = '\0';
	tp_error_corrupt_at(err, TP_CORRUPT_NONE, false, 0, NULL);
}

const char *tp_strerror(enum tp_err code)
{
	switch (code) {
	case TP_OK:
		return "success";
	case TP_ERR_USAGE:
		return "usage error";
	case TP_ERR_INPUT:
		return "corrupt or unreadable input";
	case TP_ERR_NETWORK:
		return "network or server error";
	case TP_ERR_OUTPUT:
		return "output could not be written";
	case TP_ERR_INTERNAL:
		return "internal error";
	}
	return "unknown error";
}
