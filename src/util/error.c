/*
 * error.c - filling struct tp_error and naming error codes.
 */
#include "tpuprof/error.h"

#include <stdarg.h>
#include <stdio.h>

enum tp_err tp_error_set(struct tp_error *err, enum tp_err code,
			 const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void tp_error_clear(struct tp_error *err)
{
	err->code = TP_OK;
	err->msg[0] = '\0';
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
