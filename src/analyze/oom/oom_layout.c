/*
 * oom_layout.c - a listed shape's text read into its layout: element
 * type, dimensions, minor-to-major order and the first tile, which pads
 * the most minor dimensions up to its extents (`f32[4,128,128,9,18]
 * {4,3,0,2,1:T(8,128)}`: dimension 4 (18) is the most minor and padded
 * to 128, dimension 3 (9) to 16). Later tiles (`(2,1)`) pack sub-word
 * types inside the first and add no bytes here.
 */
#include "oom_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int type_bits(const char *t)
{
	static const struct { const char *name; int bits; } types[] = {
		{ "pred", 8 }, { "s4", 4 }, { "u4", 4 }, { "s8", 8 }, { "u8", 8 },
		{ "s16", 16 }, { "u16", 16 }, { "f16", 16 }, { "bf16", 16 },
		{ "s32", 32 }, { "u32", 32 }, { "f32", 32 }, { "s64", 64 }, { "u64", 64 },
		{ "f64", 64 }, { "c64", 64 }, { "c128", 128 },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(t, types[i].name) == 0)
			return types[i].bits;
	return strncmp(t, "f8", 2) == 0 ? 8 : 0;
}

static const char *int_list(const char *p, int64_t *out, int max, int *n, char close)
{
	*n = 0;
	while (*p && *p != close) {
		char *e;
		long long v;

		if (!isdigit((unsigned char)*p))
			return NULL;
		v = strtoll(p, &e, 10);
		if (*n >= max || v < 0 || v > (1LL << 40))
			return NULL;
		out[(*n)++] = v;
		p = e;
		if (*p == ',')
			p++;
	}
	return *p == close ? p + 1 : NULL;
}

void tp_oom_layout_read(struct tp_oom_layout *l, const char *shape)
{
	const char *p = shape, *b = strchr(shape, '[');
	int64_t dims[TP_OOM_MAX_DIMS], m2m[TP_OOM_MAX_DIMS];
	int n_dims = 0, n_m2m = 0;
	int64_t elems = 1, padded = 1;
	size_t tn;

	memset(l, 0, sizeof(*l));
	if (!b || b == p || (size_t)(b - p) >= sizeof(l->dtype) || !isalpha((unsigned char)*p))
		return;
	for (const char *t = p; t < b; t++)   /* a tuple is no array shape */
		if (!isalnum((unsigned char)*t))
			return;
	memcpy(l->dtype, p, (size_t)(b - p));
	l->dtype[b - p] = '\0';
	l->elem_bits = type_bits(l->dtype);
	if (!(p = int_list(b + 1, dims, TP_OOM_MAX_DIMS, &n_dims, ']')))
		return;
	if (*p == '{') {
		const char *c = p + 1;
		int64_t tile[4];
		int n_tile = 0;

		while (*c && *c != ':' && *c != '}')
			c++;
		{
			char buf[200];
			size_t n = (size_t)(c - p - 1);

			if (n >= sizeof(buf))
				return;
			memcpy(buf, p + 1, n);
			buf[n] = '\0';
			if (n && !int_list(buf, m2m, TP_OOM_MAX_DIMS, &n_m2m, '\0'))
				return;
		}
		if (*c == ':' && c[1] == 'T' && c[2] == '(') {
			const char *t = c + 1, *e = strchr(t, '}');

			tn = e ? (size_t)(e - t) : strlen(t);
			if (tn >= sizeof(l->tiles))
				tn = sizeof(l->tiles) - 1;
			memcpy(l->tiles, t, tn);
			l->tiles[tn] = '\0';
			if (int_list(c + 3, tile, 4, &n_tile, ')') && n_tile >= 1 && n_tile <= 2) {
				l->n_tile = n_tile;
				l->tile[0] = tile[0];
				l->tile[1] = n_tile == 2 ? tile[1] : 0;
			}
		}
	}
	if (n_m2m != n_dims) {      /* no layout: the default, major first */
		n_m2m = n_dims;
		for (int i = 0; i < n_dims; i++)
			m2m[i] = n_dims - 1 - i;
	}
	l->n_dims = n_dims;
	for (int i = 0; i < n_dims; i++) {
		l->dims[i].size = l->dims[i].padded = dims[i];
		l->dims[i].minor_rank = -1;
	}
	for (int k = 0; k < n_m2m; k++) {
		if (m2m[k] >= n_dims)
			return;
		l->dims[m2m[k]].minor_rank = k;
	}
	/* tile extent j from the end applies to the j-th most minor dimension */
	for (int j = 0; j < l->n_tile && j < n_dims; j++) {
		int64_t ext = l->tile[l->n_tile - 1 - j];
		struct tp_oom_dim *d = &l->dims[m2m[j]];

		if (ext > 0) {
			d->tile = (int)ext;
			d->padded = tp_sat_add(d->size / ext * ext, d->size % ext ? ext : 0);
		}
	}
	for (int i = 0; i < n_dims; i++) {
		elems = tp_sat_mul(elems, l->dims[i].size);
		padded = tp_sat_mul(padded, l->dims[i].padded);
	}
	if (l->elem_bits) {
		int64_t bytes = (l->elem_bits + 7) / 8;

		l->unpadded_bytes = tp_sat_mul(elems, bytes);
		l->padded_bytes = tp_sat_mul(padded, bytes);
	}
	l->parsed = true;
}
