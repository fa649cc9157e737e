/*
 * merge_groups.c - replica group ids against the merged pod's devices:
 * the same rule as collective_link.c (tp_collective_ids_outside), on the
 * document, since the merged report has no capture; and the host
 * collectives a pod with HLO does not list.
 */
#include "merge_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* "/device:TPU:3" or "/device:GPU:0": a device's own plane. */
static bool numbered_device(const char *name)
{
	static const char *const kinds[] = { "/device:TPU:", "/device:GPU:" };

	for (size_t k = 0; name && k < 2; k++) {
		size_t n = strlen(kinds[k]);

		if (strncmp(name, kinds[k], n) == 0 && name[n] &&
		    strspn(name + n, "0123456789") == strlen(name + n))
			return true;
	}
	return false;
}

static int64_t merged_devices(json_t *m)
{
	json_t *host, *plane;
	size_t i, j;
	int64_t n = 0;

	json_array_foreach(json_object_get(json_object_get(m, "info"), "hosts"), i, host)
		json_array_foreach(json_object_get(host, "planes"), j, plane)
			n += numbered_device(json_string_value(json_object_get(plane, "name")));
	return n;
}

/* The ids of groups at or above devices: how many distinct, least, most. */
static json_t *outside(json_t *groups, int64_t devices)
{
	json_t *grp, *id, *seen = json_object();
	int64_t lo = INT64_MAX, hi = -1;
	size_t i, j;
	char key[32];

	json_array_foreach(groups, i, grp)
		json_array_foreach(grp, j, id) {
			int64_t v = json_integer_value(id);

			if (!json_is_integer(id) || v < devices)
				continue;
			snprintf(key, sizeof(key), "%lld", (long long)v);
			json_object_set_new(seen, key, json_true());
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	i = json_object_size(seen);
	json_decref(seen);
	if (!i)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:I}", "count", (json_int_t)i, "lowest", (json_int_t)lo,
			 "highest", (json_int_t)hi, "devices_in_capture", (json_int_t)devices);
}

/* TF-era host collectives are listed only for captures without any HLO
 * module (collectives.c): one host's HLO removes them all. */
static bool has_modules(json_t *info)
{
	json_t *h;
	size_t i;

	if (json_array_size(json_object_get(info, "modules")))
		return true;
	json_array_foreach(json_object_get(info, "hosts"), i, h)
		if (json_array_size(json_object_get(h, "modules")))
			return true;
	return false;
}

void tp_merge_finish_collectives(json_t *m)
{
	int64_t devices = merged_devices(m);
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(m, "collectives"), "collectives"), i, c) {
		json_t *groups = json_object_get(c, "replica_groups");

		if (!json_object_get(c, "replica_group_ids_outside_capture"))
			continue;   /* a report of before the field */
		json_object_set_new(c, "replica_group_ids_outside_capture",
				    devices && json_is_array(groups) ? outside(groups, devices)
								     : json_null());
	}
	if (has_modules(json_object_get(m, "info")))
		json_object_set_new(json_object_get(m, "collectives"), "host_collectives",
				    json_array());
}
