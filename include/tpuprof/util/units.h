/*
 * units.h - human units for text output. Each writes into buf (size n)
 * and returns it. Bytes use binary units (KiB, MiB, GiB), times adapt from
 * ps to s. Text writers are their only users; JSON keeps raw integers.
 */
#ifndef TPUPROF_UNITS_H
#define TPUPROF_UNITS_H

#include <stddef.h>
#include <stdint.h>

const char *tp_fmt_bytes(char *buf, size_t n, uint64_t bytes);
/* Upper bounds (free memory, headroom) cut down, never rounded up:
 * 80 GiB less 8 MiB is "79.9 GiB", 99.99% is "99.9%". */
const char *tp_fmt_bytes_down(char *buf, size_t n, uint64_t bytes);
const char *tp_fmt_pct_down(char *buf, size_t n, double percent);
/* Lower bounds (what to cut) raised, never rounded down: 73,632 B is
 * "72.0 KiB", not "71.9 KiB", so that cutting what is printed suffices. */
const char *tp_fmt_bytes_up(char *buf, size_t n, uint64_t bytes);
const char *tp_fmt_ps(char *buf, size_t n, int64_t ps);
const char *tp_fmt_utc_ns(char *buf, size_t n, uint64_t epoch_ns);
/* A share (0.3 = 30%) as a percentage: one decimal ("30.0%"), small ones
 * two significant digits ("0.00048%", not "0.0%"). Every text writer
 * prints a utilization with it, so one figure reads the same everywhere. */
const char *tp_fmt_share(char *buf, size_t n, double share);

#endif
