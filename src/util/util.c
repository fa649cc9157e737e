/*
 * util.c - allocation wrappers that die on out-of-memory, slices, and
 * saturating arithmetic for values read from untrusted files.
 */
#include "tpuprof/util/util.h"

#include <errno.h>
#include <stdatomic.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void tp_out_of_memory(size_t size)
{
	fprintf(stderr, "tpuprof: out of memory (allocating %zu bytes)\n",
		size);
	abort();
}

void *tp_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		tp_out_of_memory(size);
	return p;
}

void *tp_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		tp_out_of_memory(count * size);
	return p;
}

void *tp_xzalloc(size_t count, size_t size)
{
	size_t n;
	void *p;

	if (count && size > SIZE_MAX / count)
		tp_out_of_memory(SIZE_MAX);
	n = count * size;
	p = tp_xmalloc(n);
	memset(p, 0, n);
	return p;
}

void *tp_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		tp_out_of_memory(size);
	return p;
}

void *tp_xgrow(void *ptr, size_t *cap, size_t need, size_t elem_size)
{
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return ptr;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			tp_out_of_memory(SIZE_MAX);
		n *= 2;
	}
	if (n > SIZE_MAX / elem_size)
		tp_out_of_memory(SIZE_MAX);
	*cap = n;
	return tp_xrealloc(ptr, n * elem_size);
}

char *tp_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = tp_xmalloc(n);

	memcpy(p, s, n);
	return p;
}

char *tp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		tp_out_of_memory(0);
	p = tp_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

bool tp_str_eq(struct tp_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && (n == 0 || memcmp(s.ptr, lit, n) == 0);
}

int tp_str_cmp(struct tp_str a, struct tp_str b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int c = n ? memcmp(a.ptr, b.ptr, n) : 0;

	return c ? c : (a.len > b.len) - (a.len < b.len);
}

bool tp_str_has_prefix(struct tp_str s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.len >= n && (n == 0 || memcmp(s.ptr, prefix, n) == 0);
}

bool tp_str_contains(struct tp_str s, const char *needle)
{
	size_t n = strlen(needle);

	if (n == 0)
		return true;
	for (size_t i = 0; i + n <= s.len; i++)
		if (memcmp(s.ptr + i, needle, n) == 0)
			return true;
	return false;
}

char *tp_str_dup(struct tp_str s)
{
	char *p = tp_xmalloc(s.len + 1);

	if (s.len)
		memcpy(p, s.ptr, s.len);
	p[s.len] = '\0';
	return p;
}

bool tp_has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);

	return n >= m && strcmp(name + n - m, suffix) == 0;
}

bool tp_parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "B", 1 },
		{ "K", 1024.0 }, { "KiB", 1024.0 }, { "KB", 1e3 },
		{ "M", 1048576.0 }, { "MiB", 1048576.0 }, { "MB", 1e6 },
		{ "G", 1073741824.0 }, { "GiB", 1073741824.0 }, { "GB", 1e9 },
		{ "T", 1099511627776.0 }, { "TiB", 1099511627776.0 }, { "TB", 1e12 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0 || !isfinite(v))
		return false;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].unit) == 0) {
			double b = v * units[i].mult;

			/* a fraction of a byte is no size: 14.5B */
			if (b >= 18446744073709551615.0 || (i == 0 && b != floor(b)))
				return false;
			*out = (uint64_t)(b + 0.5);
			return true;
		}
	}
	return false;
}

/* The finite number s starts with (no leading blank), *end past it. */
static bool leading_number(const char *s, double *v, char **end)
{
	if (!*s || strchr(" \t\n", *s))
		return false;
	errno = 0;
	*v = strtod(s, end);
	return *end != s && !errno && isfinite(*v);
}

bool tp_parse_fraction(const char *s, double *out)
{
	char *end;
	double v;

	if (!leading_number(s, &v, &end))
		return false;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end)
		return false;
	*out = v;
	return true;
}

bool tp_parse_duration_ps(const char *s, int64_t *out)
{
	static const struct { const char *unit; double ps; } units[] = {
		{ "ps", 1 }, { "ns", 1e3 }, { "us", 1e6 }, { "ms", 1e9 }, { "s", 1e12 },
	};
	char *end;
	double v;

	if (!leading_number(s, &v, &end) || v < 0)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0 && v * units[i].ps < 9e18) {
			*out = (int64_t)(v * units[i].ps + 0.5);
			return true;
		}
	return false;
}

uint64_t tp_mix64(uint64_t x)
{
	/* splitmix64 finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* 64 x 64 -> 128-bit product, its halves folded: every bit of the
 * result depends on every bit of both factors. */
static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t load64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t load32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Sixteen bytes a step, each folded product one multiply deep: FNV-1a
 * took a byte a step, a multiply's latency each, which bound the riegeli
 * merge's matching of metadata by content (docs/performance.md). */
uint64_t tp_hash_bytes(const char *p, size_t n)
{
	const uint64_t k0 = 0xa0761d6478bd642fULL, k1 = 0xe7037ed1a0b428dbULL;
	uint64_t h = 0x8ebc6af09c88c6e3ULL ^ n, a = 0, b = 0;

	for (; n > 16; p += 16, n -= 16)
		h = fold_mul(load64(p) ^ k0, load64(p + 8) ^ h);
	if (n >= 8) {           /* the last eight overlap the first */
		a = load64(p);
		b = load64(p + n - 8);
	} else if (n >= 4) {
		a = load32(p);
		b = load32(p + n - 4);
	} else if (n) {
		a = (uint64_t)(unsigned char)p[0] << 16 |
		    (uint64_t)(unsigned char)p[n >> 1] << 8 |
		    (unsigned char)p[n - 1];
	}
	return tp_mix64(fold_mul(a ^ k0, b ^ h ^ k1));
}

const char *tp_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

FILE *tp_tmpfile(void)
{
	char *path = tp_xasprintf("%s/tpuprof-XXXXXX", tp_tmpdir());
	int fd, saved;
	FILE *f;

	fd = mkstemp(path);
	saved = errno;
	if (fd >= 0)
		unlink(path);
	free(path);
	if (fd < 0) {
		errno = saved;
		return NULL;
	}
	f = fdopen(fd, "w+b");
	if (!f) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return f;
}

size_t tp_system_map_count(void)
{
	static atomic_size_t cached;   /* 0: not read yet */
	size_t have = atomic_load(&cached);
	unsigned long max = 65530;
	FILE *f;

	if (have)
		return have;
	f = fopen("/proc/sys/vm/max_map_count", "r");
	if (f) {
		if (fscanf(f, "%lu", &max) != 1 || max == 0)
			max = 65530;
		fclose(f);
	}
	atomic_store(&cached, (size_t)max);
	return (size_t)max;
}
