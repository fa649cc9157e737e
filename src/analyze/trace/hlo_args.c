/*
 * hlo_args.c - what the HLO knows of an op event and its stats do not
 * say: the module's name, the instruction's shape and source line, and
 * its name-scope path (metadata.op_name), looked up by program id and
 * instruction name (the TPU op's display name, a GPU kernel's hlo_op).
 * Each module is decoded and indexed once, when an event first needs it;
 * texts are pooled, so their pointers are stable and writers intern them.
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/common/hlo_index.h"
#include "tpuprof/analyze/common/shape.h"
#include "tpuprof/util/strbuf.h"

struct tl_module {
	uint64_t program_id;
	struct tp_module *module;         /* NULL: none usable              */
	struct tp_hlo_index idx;
	int memory;                       /* 0 not analyzed, 1 done, -1 failed */
	struct tp_mem_module mm;
};

/* The capture's module with this program id, this host's first. */
static struct tp_module *find_module(struct tl *t, uint64_t program_id)
{
	struct tp_module *any = NULL;

	for (size_t i = 0; i < t->cap->n_modules; i++) {
		struct tp_module *m = &t->cap->modules[i];

		if (!m->program_id_known || m->program_id != program_id)
			continue;
		if (m->host == (int)t->host)
			return m;
		if (!any)
			any = m;
	}
	return any;
}

static struct tl_module *module_of(struct tl *t, uint64_t program_id)
{
	struct tl_module *tm;
	struct tp_module *m;
	struct tp_error err = { 0 };

	for (size_t i = 0; i < t->n_mods; i++)
		if (t->mods[i].program_id == program_id)
			return t->mods[i].module ? &t->mods[i] : NULL;
	if (t->mods_shared)
		return NULL; /* every module was looked up before the threads */
	t->mods = tp_xgrow(t->mods, &t->cap_mods, t->n_mods + 1, sizeof(*t->mods));
	tm = &t->mods[t->n_mods++];
	memset(tm, 0, sizeof(*tm));
	tm->program_id = program_id;
	m = find_module(t, program_id);
	/* a module that does not decode gives no HLO args: the timeline is
	 * still the capture's */
	if (!m || tp_capture_decode_module(t->cap, m, &err) != TP_OK || !m->hlo)
		return NULL;
	tm->module = m;
	tp_hlo_index_build(&tm->idx, m->hlo);
	return tm;
}

void tl_hlo_prepare(struct tl *t)
{
	for (size_t i = 0; i < t->cap->n_modules; i++) {
		const struct tp_module *m = &t->cap->modules[i];

		if (!m->program_id_known)
			continue;
		if (t->opts->no_derived)
			(void)module_of(t, m->program_id);
		else
			(void)tl_memory_of(t, m->program_id);
	}
}

void tl_hlo_share(struct tl *worker, const struct tl *base)
{
	worker->mods = base->mods;
	worker->n_mods = base->n_mods;
	worker->mods_shared = true;
}

void tl_hlo_release(struct tl *t)
{
	if (t->mods_shared) { /* the walk's own */
		t->mods = NULL;
		t->n_mods = 0;
		return;
	}
	for (size_t i = 0; i < t->n_mods; i++) {
		if (t->mods[i].module)
			tp_hlo_index_release(&t->mods[i].idx);
		if (t->mods[i].memory > 0)
			tp_mem_module_release(&t->mods[i].mm);
	}
	free(t->mods);
	t->mods = NULL;
	t->n_mods = t->cap_mods = 0;
}

/* The instruction, by name; a GPU hlo_op may say "outer::inner". */
static const Xla__HloInstructionProto *instr_of(struct tl *t, uint64_t program_id,
						struct tp_str name,
						struct tl_module **mod)
{
	struct tl_module *tm = module_of(t, program_id);
	size_t cut = name.len;
	long i;

	if (!tm)
		return NULL;
	for (size_t k = 0; k + 1 < name.len; k++)
		if (name.ptr[k] == ':' && name.ptr[k + 1] == ':') {
			cut = k;
			break;
		}
	i = tp_hlo_find_name(&tm->idx, tp_str_make(name.ptr, cut));
	*mod = tm;
	return i < 0 ? NULL : tm->idx.instrs[i].proto;
}

static void str_arg(struct tl *t, const char *name, struct tp_str v)
{
	struct tp_trace_arg *a = tl_new_arg(t);

	a->name = tp_str_make(name, strlen(name));
	a->kind = TP_ARG_STR;
	a->stable = true;
	a->v.s = tp_strpool_intern(&t->pool, v);
}

void tl_hlo_args(struct tl *t, uint64_t program_id, struct tp_str instr,
		 bool with_module, bool with_source)
{
	struct tl_module *tm = NULL;
	const Xla__HloInstructionProto *ins = instr_of(t, program_id, instr, &tm);
	struct tp_strbuf sb;
	const char *file;
	int line;

	if (!ins)
		return;
	if (with_module)
		str_arg(t, "hlo_module", tp_module_name(tm->module));
	tp_strbuf_init(&sb);
	if (with_source && tp_hlo_source(&tm->idx, ins, &file, &line)) {
		tp_strbuf_addf(&sb, "%s:%d", file, line);
		str_arg(t, "source", tp_str_make(sb.buf, sb.len));
	}
	if (ins->shape) {
		tp_strbuf_reset(&sb);
		tp_shape_format(&sb, ins->shape);
		str_arg(t, "shape", tp_str_make(sb.buf, sb.len));
	}
	tp_strbuf_release(&sb);
}

struct tp_str tl_hlo_scope(struct tl *t, uint64_t program_id, struct tp_str instr)
{
	struct tl_module *tm = NULL;
	const Xla__HloInstructionProto *ins = instr_of(t, program_id, instr, &tm);
	const char *scope = ins ? tp_hlo_scope(ins) : "";

	return tp_str_make(scope, strlen(scope));
}

const struct tp_mem_module *tl_memory_of(struct tl *t, uint64_t program_id)
{
	struct tl_module *tm = module_of(t, program_id);
	struct tp_mem_options opt = { 0 };
	struct tp_error err = { 0 };

	if (!tm)
		return NULL;
	if (!tm->memory && !t->mods_shared) {
		/* HBM, as `tpuprof memory` by default; no what-if splits */
		tm->memory = tp_mem_module_analyze(&tm->mm, tm->module, &opt, &err) == TP_OK ? 1 : -1;
		if (tm->memory < 0)
			tp_mem_module_release(&tm->mm);
	}
	return tm->memory > 0 ? &tm->mm : NULL;
}
