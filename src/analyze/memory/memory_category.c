/*
 * memory_category.c - what kind of allocation a buffer lives in: its
 * category (Parameter, Output, Thread-local, Constant, Temporary) and
 * whether it is live for the whole program (format-facts §5 step 4).
 * Shared by the peak, the static sums and --why; calls none of them.
 */
#include "memory_internal.h"

const char *tp_mem_category_name(enum tp_mem_category c)
{
	static const char *const names[] = {
		[TP_MEM_PARAMETER] = "Parameter", [TP_MEM_OUTPUT] = "Output",
		[TP_MEM_THREAD_LOCAL] = "Thread-local", [TP_MEM_CONSTANT] = "Constant",
		[TP_MEM_TEMPORARY] = "Temporary",
	};
	return c < TP_MEM_N_CATEGORIES ? names[c] : "Temporary";
}

enum tp_mem_category tp_mem_allocation_category(const Xla__BufferAllocationProto *a)
{
	if (a->is_entry_computation_parameter)
		return TP_MEM_PARAMETER;
	if (a->maybe_live_out)
		return TP_MEM_OUTPUT;
	if (a->is_thread_local)
		return TP_MEM_THREAD_LOCAL;
	if (a->is_constant)
		return TP_MEM_CONSTANT;
	return TP_MEM_TEMPORARY;
}

bool tp_mem_allocation_indefinite(const Xla__BufferAllocationProto *a)
{
	return a->is_thread_local || a->is_entry_computation_parameter ||
	       a->is_constant || a->maybe_live_out;
}
