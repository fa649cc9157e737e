/*
 * op_modules.c - the HLO module a program id names, and each module's
 * HLO index, built once and shared by modules with one HLO. Called by
 * ops.c, op_keys.c and op_scopes.c; calls none of them.
 */
#include "ops_internal.h"

#include <stdint.h>

size_t tp_ops_find_module(const struct tp_capture *cap, uint64_t program_id)
{
	for (size_t i = 0; i < cap->n_modules; i++)
		if (cap->modules[i].hlo && cap->modules[i].program_id == program_id)
			return i;
	return SIZE_MAX;
}

const struct tp_hlo_index *tp_ops_index(struct tp_ops *ops,
					struct tp_capture *cap, size_t m)
{
	if (m >= ops->n_modules || !cap->modules[m].hlo)
		return NULL;
	/* modules sharing one HLO (tp_capture_decode_module) share its index */
	for (size_t i = 0; i < m; i++)
		if (cap->modules[i].hlo == cap->modules[m].hlo) {
			m = i;
			break;
		}
	if (!ops->indexed[m]) {
		tp_hlo_index_build(&ops->index[m], cap->modules[m].hlo);
		ops->indexed[m] = true;
	}
	return &ops->index[m];
}
