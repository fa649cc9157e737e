/*
 * fetch.h - bringing captures to the local disk in the logdir layout
 * (DIR/plugins/profile/<run>/<host>.xplane.pb, <module>.hlo_proto.pb and
 * the tool JSON beside them), from a TensorBoard or standalone XProf
 * server (any version), a gs:// bucket (GCS JSON API), or a logdir served
 * as static files; and asking a server to capture first (`capture`).
 * docs/fetch.md describes what each source and server version gives.
 *
 * Ownership: tp_fetch_opts is borrowed for the call. The result owns all
 * its strings and arrays (malloc'd); tp_fetch_result_release() frees
 * them. Strings in the result that come from a server are raw (`name`,
 * `run`, `runs`); `notes` and `unavailable` are printable one-liners
 * (foreign names quoted with tp_quote_name). Tokens are never stored in
 * the result or in a message.
 *
 * The library never prints: the CLI prints the result, the notes and the
 * error. Failures: TP_ERR_NETWORK (server or network, exit 4),
 * TP_ERR_INPUT (a local SOURCE that is missing; no such run, exit 3),
 * TP_ERR_OUTPUT (DIR cannot be written, exit 5), TP_ERR_USAGE (a SOURCE
 * that is no URL or path; bad capture parameters, exit 2).
 */
#ifndef TPUPROF_FETCH_H
#define TPUPROF_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tpuprof/util/error.h"
#include "tpuprof/fetch/http.h"

/* What fetch asks a TensorBoard/XProf server for: tool JSON, and each
 * module's HloProto (the graph_viewer tool with type=pb). */
enum tp_tool {
	TP_TOOL_MEMORY_PROFILE = 1u << 0, /* JSON per host                  */
	TP_TOOL_MEMORY_VIEWER = 1u << 1,  /* JSON per module                */
	TP_TOOL_OP_PROFILE = 1u << 2,     /* JSON per host                  */
	TP_TOOL_HLO_STATS = 1u << 3,      /* JSON per host                  */
	TP_TOOL_OVERVIEW_PAGE = 1u << 4,  /* JSON per host                  */
	TP_TOOL_GRAPH_VIEWER = 1u << 5,   /* <module>.hlo_proto.pb          */
	TP_TOOL_ALL = (1u << 6) - 1,
};
/* Parses "memory_profile,op_profile", "all" or "none" into *tools. */
bool tp_tools_parse(const char *list, unsigned *tools);
/* The name of one tool bit, e.g. "op_profile". */
const char *tp_tool_name(unsigned tool);

struct tp_fetch_opts {
	const char *source;        /* SOURCE argument                        */
	const char *out_dir;       /* -o DIR                                 */
	const char *run;           /* --run NAME, or NULL for the newest     */
	unsigned tools;            /* TP_TOOL_* bits                         */
	bool force;                /* replace existing files                 */
	bool dry_run;              /* list, write nothing                    */
	const char *const *headers;/* -H lines, sent to the SOURCE server only */
	size_t n_headers;
	const char *token;         /* GCS bearer token, or NULL              */
	const char *token_command; /* command printing a token, or NULL      */
	const char *gcs_emulator;  /* STORAGE_EMULATOR_HOST, or NULL         */
	struct tp_http_config http;
};
/* Defaults: out_dir "tpuprof-logdir", every tool, http defaults. */
void tp_fetch_opts_init(struct tp_fetch_opts *o);

/* `tpuprof capture` parameters (the /capture_profile query). */
struct tp_capture_opts {
	const char *service_addr;  /* host:port[,host:port...] or a TPU name */
	uint64_t duration_ms;
	unsigned num_retry;
	const char *worker_list;   /* "" when none                            */
	int host_tracer_level;     /* default 2                               */
	int device_tracer_level;   /* default 1                               */
	int python_tracer_level;   /* default 0                               */
	uint64_t delay_ms;
	bool tpu_name;             /* service_addr is a TPU name              */
	long timeout_ms;           /* 0 = from duration, delay and retries    */
};
void tp_capture_opts_init(struct tp_capture_opts *c);
/* host:port items (a leading grpc:// allowed), exactly one ':' each, a
 * numeric port, no '/'; NULL when fine, else why not. */
const char *tp_capture_addr_problem(const char *service_addr);

enum tp_fetch_source {
	TP_FETCH_LOCAL,            /* a local path: nothing to fetch         */
	TP_FETCH_GCS,
	TP_FETCH_STATIC,           /* a logdir served as files               */
	TP_FETCH_TENSORBOARD,      /* TensorBoard with the profile plugin    */
	TP_FETCH_XPROF,            /* standalone XProf                       */
};
const char *tp_fetch_source_name(enum tp_fetch_source s);

enum tp_fetch_kind { TP_FILE_XPLANE, TP_FILE_HLO_PROTO, TP_FILE_TOOL_JSON };
enum tp_fetch_status {
	TP_FILE_PLANNED,           /* --dry-run: would be fetched            */
	TP_FILE_FETCHED,
	TP_FILE_KEPT,              /* already there; --force replaces it     */
	TP_FILE_MISSING,           /* the server has no such data (404)      */
};
const char *tp_fetch_kind_name(enum tp_fetch_kind k);
const char *tp_fetch_status_name(enum tp_fetch_status s);

struct tp_fetch_file {
	enum tp_fetch_kind kind;
	enum tp_fetch_status status;
	char *name;      /* host or module as the source named it (raw)   */
	char *tool;      /* tool JSON: the tool as the server names it    */
	char *from;      /* token-free URL, or local path                 */
	char *path;      /* destination                                   */
	uint64_t bytes;  /* written (fetched) or on disk (kept)           */
	/* private to the library */
	char *url;       /* what to request                               */
	enum tp_http_expect expect;
	bool gcs_auth;   /* send the GCS bearer token                     */
	bool source_headers; /* send the -H headers                       */
	bool local_file; /* url is file://                                */
	uint64_t size_hint;
};

struct tp_fetch_result {
	enum tp_fetch_source source_kind;
	char *source;              /* token-free SOURCE                      */
	char *server;              /* what the server is, in words, or NULL  */
	char *version;             /* plugin version from /version, or NULL  */
	char *tb_version;          /* TensorBoard version, or NULL           */
	char *raw_from;            /* where raw files were listed, or NULL   */
	char **runs;               /* every run, newest first (raw names)    */
	size_t n_runs, cap_runs;
	char *run;                 /* the run taken (raw), or NULL           */
	char *out_dir;
	char *run_dir;             /* out_dir/plugins/profile/<safe run>     */
	struct tp_fetch_file *files;
	size_t n_files, cap_files;
	char **unavailable;        /* what could not be had, and why         */
	size_t n_unavailable, cap_unavailable;
	char **notes;              /* choices made, names changed            */
	size_t n_notes, cap_notes;
	bool dry_run;
	char *capture_message;     /* capture: the server's result text      */
};

void tp_fetch_result_release(struct tp_fetch_result *r);

/* `tpuprof fetch SOURCE`. The result is filled as far as the fetch got,
 * also on failure (release it either way). */
enum tp_err tp_fetch(const struct tp_fetch_opts *o, struct tp_fetch_result *r,
		     struct tp_error *err);

/* `tpuprof capture URL`: asks the server at o->source to capture, then
 * fetches the run that appeared. */
enum tp_err tp_fetch_capture(const struct tp_fetch_opts *o,
			     const struct tp_capture_opts *c,
			     struct tp_fetch_result *r, struct tp_error *err);

/* What the fetched files allow, for the summary. */
struct tp_fetch_analyses {
	size_t xplanes, hlo_protos, tool_json;
	bool info;                 /* something info can read               */
	bool memory_compiler;      /* HLO buffer assignment (modules)        */
	bool memory_runtime;       /* runtime memory events (.xplane.pb)     */
	bool ops;                  /* op times (.xplane.pb)                  */
};
void tp_fetch_analyses(const struct tp_fetch_result *r,
		       struct tp_fetch_analyses *a);

#endif
