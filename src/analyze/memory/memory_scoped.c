/*
 * memory_scoped.c - the largest scoped allocation of a module in its
 * memory space: XLA's TPU backend puts each kernel's scoped VMEM in the
 * instruction's backend_config JSON (`used_scoped_memory_configs`, one
 * entry per memory space). XProf's memory viewer reports the largest one
 * for memory space 1 (format-facts §5, step 6, fields 21-22) and keeps it
 * out of the heap peak: so does tpuprof.
 */
#include "memory_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* An integer JSON value, which proto3's JSON writes as a string. */
static bool json_int64(const json_t *v, int64_t *out)
{
	char *end;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	if (!json_is_string(v) || !json_string_length(v))
		return false;
	*out = strtoll(json_string_value(v), &end, 10);
	return *end == '\0';
}

static bool contains(const uint8_t *data, size_t len, const char *key, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (data[i] == (uint8_t)key[0] && memcmp(data + i, key, n) == 0)
			return true;
	return false;
}

/* The largest entry of one instruction's list for this memory space. */
static int64_t largest_entry(const ProtobufCBinaryData *cfg, int64_t color)
{
	static const char key[] = "used_scoped_memory_configs";
	json_t *root, *list, *e;
	int64_t best = -1, space, size;
	size_t i;

	if (!cfg->len || cfg->data[0] != '{' ||
	    !contains(cfg->data, cfg->len, key, sizeof(key) - 1))
		return -1;
	root = json_loadb((const char *)cfg->data, cfg->len, 0, NULL);
	list = json_object_get(root, key);
	json_array_foreach(list, i, e) {
		if (json_int64(json_object_get(e, "memory_space"), &space) && space == color &&
		    json_int64(json_object_get(e, "size"), &size) && size > best)
			best = size;
	}
	json_decref(root);
	return best;
}

void tp_mem_scoped(struct tp_mem_module *m)
{
	m->max_scoped_bytes = 0;
	m->max_scoped_instr = -1;
	for (size_t k = 0; k < m->idx.n_instrs; k++) {
		int64_t size = largest_entry(&m->idx.instrs[k].proto->backend_config, m->color);

		/* the first of equal sizes, in module order */
		if (size > 0 && (uint64_t)size > m->max_scoped_bytes) {
			m->max_scoped_bytes = (uint64_t)size;
			m->max_scoped_instr = (long)k;
		}
	}
}
