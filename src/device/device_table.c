/*
 * device_table.c - the built-in device table (devices.def compiled in)
 * and lookup by device-kind string or alias.
 */
#include "tpuprof/device/device.h"

#include <ctype.h>
#include <string.h>

#define DEVICE(key, aliases, vendor, planes, hbm, bf16, f16, f32, int8, fp8, \
	       hbm_gbps, ic_gbps, ic, ccma, ccmi, arch, pcores, clock, cores, src) \
	{ key, aliases, TP_VENDOR_##vendor, planes, hbm, \
	  { bf16, f16, f32, int8, fp8 }, hbm_gbps, ic_gbps, ic, \
	  ccma, ccmi, arch, pcores, clock, cores, src },

static const struct tp_device_row table[] = {
#include "devices.def"
};

#undef DEVICE

size_t tp_device_count(void)
{
	return sizeof(table) / sizeof(table[0]);
}

const struct tp_device_row *tp_device_at(size_t i)
{
	return i < tp_device_count() ? &table[i] : NULL;
}

const char *tp_precision_name(enum tp_precision p)
{
	static const char *const names[TP_PREC_N] = { "bf16", "f16", "f32", "int8", "fp8" };

	return p < TP_PREC_N ? names[p] : "unknown";
}

const char *tp_fig_source_name(enum tp_fig_source s)
{
	switch (s) {
	case TP_FIG_CAPTURE:
		return "capture";
	case TP_FIG_TABLE:
		return "table";
	case TP_FIG_FLAG:
		return "flag";
	case TP_FIG_NONE:
		break;
	}
	return NULL;
}

static bool same_name(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return false;
	for (size_t i = 0; i < alen; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return false;
	return true;
}

/* Whether name is the row's key or one of its '|'-separated aliases. */
static bool row_matches(const struct tp_device_row *r, const char *name, size_t len)
{
	const char *a = r->aliases;

	if (same_name(r->key, strlen(r->key), name, len))
		return true;
	while (a && *a) {
		const char *bar = strchr(a, '|');
		size_t n = bar ? (size_t)(bar - a) : strlen(a);

		if (same_name(a, n, name, len))
			return true;
		a = bar ? bar + 1 : NULL;
	}
	return false;
}

const struct tp_device_row *tp_device_lookup_n(const char *name, size_t len)
{
	if (!name)
		return NULL;
	while (len && isspace((unsigned char)*name))
		name++, len--;
	while (len && isspace((unsigned char)name[len - 1]))
		len--;
	if (!len)
		return NULL;
	for (size_t i = 0; i < tp_device_count(); i++)
		if (row_matches(&table[i], name, len))
			return &table[i];
	return NULL;
}

const struct tp_device_row *tp_device_lookup(const char *name)
{
	return name ? tp_device_lookup_n(name, strlen(name)) : NULL;
}

double tp_device_plane(const struct tp_device_row *r, double chip_value)
{
	return r && r->planes_per_chip ? chip_value / r->planes_per_chip : 0.0;
}
