/*
 * fuzz_hlo.c - libFuzzer target for HloProto decoding: the nesting guard,
 * protobuf-c unpacking into the arena, and the module counts.
 */
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/decode/hlo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_arena a;
	struct tp_error err = { 0 };
	struct tp_module m = { 0 };

	if (size > (4u << 20))
		return 0;
	tp_arena_init(&a);
	m.raw = tp_str_make((const char *)data, size);
	m.path = "fuzz";
	if (tp_module_decode(&m, &a, &err) == TP_OK) {
		struct tp_hlo_counts c;

		tp_hlo_count(m.hlo, &c);
	}
	tp_arena_release(&a);
	return 0;
}
