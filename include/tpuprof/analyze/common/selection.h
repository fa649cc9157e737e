/*
 * selection.h - which hosts, device cores and HLO modules the --host,
 * --core and --module options keep, decided once per capture and handed
 * to every analysis (memory, ops and what builds on it, trace), so that
 * every command reads the same names the same way and says the same when
 * one matches nothing.
 *
 * --host: a host name as the capture names it.
 * --core: a device plane's name (/device:TPU:0), that name without
 *         "/device:" (TPU:0), or its device ordinal (0).
 * --module: a module name or its program id in decimal.
 *
 * Ownership: the selection owns its flag arrays (malloc'd) and borrows
 * the option strings and the capture, which must outlive it;
 * tp_selection_release() frees the arrays.
 */
#ifndef TPUPROF_SELECTION_H
#define TPUPROF_SELECTION_H

#include <stdbool.h>
#include <stddef.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/util/error.h"

struct tp_selection {
	const char *host;    /* --host, or NULL for every host            */
	const char *core;    /* --core, or NULL for every core: a plane
			      * name or number, or "HOST PLANE" as the
			      * text prints a core (then host is HOST)   */
	const char *module;  /* --module, or NULL for every module        */
	bool *host_kept;     /* [n_hosts]                                 */
	bool *module_kept;   /* [n_modules]: of a kept host (or of none)
			      * and matching --module                     */
	size_t n_hosts, n_modules;
	size_t n_cores;      /* device cores on the kept hosts            */
	size_t n_cores_kept; /* device planes there that --core keeps     */
	char *printed_host;  /* malloc'd: HOST of --core "HOST PLANE"     */
};

/* A device core: a TPU TensorCore or SparseCore plane, or a GPU. */
bool tp_plane_is_core(const struct tp_plane *pl);
/* A device plane --core may name: a core, or a /device:CUSTOM: plane. */
bool tp_plane_is_device(const struct tp_plane *pl);

/* Whether a device plane is the one --core names (true without --core). */
bool tp_core_matches(const struct tp_plane *pl, const char *want);

/* Whether a module is the one --module names (true without --module). */
bool tp_module_matches(const struct tp_module *m, const char *want);
/* Whether want is a module's label as the text prints it where several
 * programs share a name, "NAME #ID" (name, name_len; id its program id in
 * decimal). */
bool tp_module_label_is(const char *want, const char *name, size_t name_len, const char *id);

/* Decides the selection for cap. With --module, decodes the modules of
 * the kept hosts to match their names (a module that does not decode
 * fails here, TP_ERR_INPUT, before any verdict on the options); without
 * it, every module of a kept host is kept and none is decoded. A --host,
 * --module or --core that matches nothing is TP_ERR_USAGE with one
 * message for every command, in that order. On failure sel is left
 * released. */
enum tp_err tp_selection_make(struct tp_selection *sel, struct tp_capture *cap,
			      const char *host, const char *core,
			      const char *module, struct tp_error *err);
void tp_selection_release(struct tp_selection *sel);

static inline bool tp_selection_host(const struct tp_selection *sel, size_t h)
{
	return h < sel->n_hosts && sel->host_kept[h];
}

/* A plane --core keeps: with --core, the device plane it names; without
 * it, every plane. */
bool tp_selection_core(const struct tp_selection *sel, const struct tp_plane *pl);
/* A plane of a kept host that --core keeps. */
bool tp_selection_plane(const struct tp_selection *sel, size_t h,
			const struct tp_plane *pl);

static inline bool tp_selection_module(const struct tp_selection *sel, size_t m)
{
	return m < sel->n_modules && sel->module_kept[m];
}

#endif
