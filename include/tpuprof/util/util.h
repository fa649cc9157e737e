/*
 * util.h - allocation wrappers, byte slices and small string helpers.
 *
 * tp_xmalloc and friends never return NULL: out of memory prints one line
 * and aborts (as jq, tmux and redis do), so callers do not check. Slices
 * (struct tp_str) borrow memory they do not own; the owner is documented
 * wherever a slice is stored.
 */
#ifndef TPUPROF_UTIL_H
#define TPUPROF_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* One line on stderr, then abort: what tp_xmalloc and friends do when
 * size bytes cannot be had (SIZE_MAX: a size past what can be counted). */
_Noreturn void tp_out_of_memory(size_t size);
void *tp_xmalloc(size_t size);
void *tp_xcalloc(size_t count, size_t size);
/* Zeroed memory whose every page is written at once: for a table read
 * before it is written (open addressing). calloc's untouched pages would
 * be mapped to the zero page by the first lookup, and the first store to
 * each then costs a copy-on-write fault and a TLB flush that interrupts
 * every other core running the process. */
void *tp_xzalloc(size_t count, size_t size);
void *tp_xrealloc(void *ptr, size_t size);
/* Grows an array of *cap elements of elem_size bytes to hold at least need. */
void *tp_xgrow(void *ptr, size_t *cap, size_t need, size_t elem_size);
char *tp_xstrdup(const char *s);
/* printf into a new malloc'd string; the caller frees it. */
char *tp_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A borrowed run of bytes; not NUL-terminated. */
struct tp_str {
	const char *ptr;
	size_t len;
};

#define TP_STR_NULL ((struct tp_str){ NULL, 0 })

static inline struct tp_str tp_str_make(const char *p, size_t n)
{
	struct tp_str s = { p, n };
	return s;
}

/* True when s equals the NUL-terminated string lit. */
bool tp_str_eq(struct tp_str s, const char *lit);
/* Byte order, a prefix first (qsort comparators on names). */
int tp_str_cmp(struct tp_str a, struct tp_str b);
bool tp_str_has_prefix(struct tp_str s, const char *prefix);
bool tp_str_contains(struct tp_str s, const char *needle);
/* A new malloc'd NUL-terminated copy; the caller frees it. */
char *tp_str_dup(struct tp_str s);

/* Hashes for the project's open-addressing tables: tp_mix64 scrambles an
 * integer key (ids are often sequential, or fingerprints); tp_hash_bytes
 * takes sixteen bytes a step (util.c), then mixes. */
uint64_t tp_mix64(uint64_t x);
uint64_t tp_hash_bytes(const char *p, size_t n);

/* Saturating int64 arithmetic: hostile files must not overflow sums.
 * Inline: they run once or more per event. */
static inline int64_t tp_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a - b, saturating; unlike tp_sat_add(a, -b) it is defined for
 * b == INT64_MIN. */
static inline int64_t tp_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t tp_sat_mul(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return ((a < 0) != (b < 0)) ? INT64_MIN : INT64_MAX;
	return r;
}

/* Parses a size: a number and its unit, B, K/KiB, KB, M/MiB, MB, G/GiB,
 * GB, T/TiB, TB (case-insensitive), e.g. "14.5GiB", "512MB", "1024B". A
 * number without a unit is refused (is "14.5" bytes or GiB?), and so is a
 * fraction of a byte. */
bool tp_parse_size(const char *s, uint64_t *out);

/* Parses a fraction written either way: "0.6" or "60%" give 0.6. Any
 * finite value; the caller checks the range. */
bool tp_parse_fraction(const char *s, double *out);

/* Parses a duration: a number and its unit, ps, ns, us, ms or s, e.g.
 * "45ms", "40.5us", into picoseconds (rounded). A number without a unit
 * is refused. */
bool tp_parse_duration_ps(const char *s, int64_t *out);

/* True when name ends with suffix. */
bool tp_has_suffix(const char *name, const char *suffix);
/* The value of a hexadecimal digit (0-9, a-f, A-F), or -1. */
static inline int tp_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The directory temporary files go to: $TMPDIR, else /tmp. The string
 * is the environment's or static: not to be freed. */
const char *tp_tmpdir(void);

/* A temporary file for reading and writing, under tp_tmpdir(), already
 * unlinked: it goes when closed or when the process ends, even on a
 * crash. NULL when it cannot be made, errno saying why. */
FILE *tp_tmpfile(void);

/* How many areas (mappings) the system lets a process have:
 * vm.max_map_count, 65530 where it cannot be read. Read once. */
size_t tp_system_map_count(void);

#endif
