/*
 * real_text.h - a double as every JSON document tpuprof writes prints it:
 * jansson's text for a real (printf's "%.17g", then ".0" where that left
 * an integer, and the exponent without '+' or leading zeros), byte for
 * byte, without printf for the usual magnitudes. A report has a hundred
 * thousand reals; glibc's exact "%.17g" costs about as much as reading
 * the events they come from.
 */
#ifndef TPUPROF_REAL_TEXT_H
#define TPUPROF_REAL_TEXT_H

#include <stddef.h>

/* Room for any real's text and its terminating NUL. */
#define TP_REAL_TEXT_MAX 32

/* v's text into buf (NUL-terminated); returns its length. v must be
 * finite (jansson holds no NaN or infinity). */
size_t tp_real_text(double v, char buf[TP_REAL_TEXT_MAX]);

#endif
