/*
 * scopes.h - a tree of name-scope paths (`jit(train_step)/jit(main)/
 * decoder/mlp/dot_general`) with values rolled up at every depth: bytes
 * live at a memory peak, picoseconds of op time, and so on.
 *
 * Paths split on '/' outside parentheses, so `transpose(jvp(a/b))` stays
 * one component. A value added at a path counts as exclusive there and
 * inclusive there and in every ancestor. The root (node 0) has the empty
 * path and holds the grand total; an empty path is added at
 * TP_SCOPE_NONE.
 *
 * Ownership: the tree owns all nodes and strings (malloc'd);
 * tp_scope_tree_release() frees them.
 */
#ifndef TPUPROF_SCOPES_H
#define TPUPROF_SCOPES_H

#include <stddef.h>
#include <stdint.h>

#include "tpuprof/util/util.h"

struct tp_scope_node {
	char *name;            /* last component; "" for the root         */
	char *path;            /* full path from the root                 */
	size_t parent;         /* node index; the root's is itself (0)    */
	size_t *children;      /* node indexes, malloc'd                  */
	size_t n_children, cap_children;
	int depth;             /* root 0, first component 1, ...          */
	int64_t inclusive;     /* values here and below                   */
	int64_t exclusive;     /* values added exactly here               */
	uint64_t count_inclusive, count_exclusive;
};

struct tp_scope_tree {
	struct tp_scope_node *nodes; /* malloc'd; node 0 is the root       */
	size_t n, cap;
	uint64_t *hashes;            /* path hash -> node, open addressing */
	uint32_t *slots;
	size_t slot_cap;
};

/* The node a value with an empty path is added at: bytes and time with
 * no name scope get a row of their own, never the root's exclusive part
 * (the root's exclusive value stays 0). */
#define TP_SCOPE_NONE "(no scope)"

void tp_scope_tree_init(struct tp_scope_tree *t);
void tp_scope_tree_release(struct tp_scope_tree *t);
/* Adds value (and count) at path; creates missing nodes. Returns the
 * node index of path. */
size_t tp_scope_tree_add(struct tp_scope_tree *t, struct tp_str path,
			 int64_t value, uint64_t count);
/* Node of an exact path, or SIZE_MAX. */
size_t tp_scope_tree_find(const struct tp_scope_tree *t, struct tp_str path);
/* Sorts every node's children by inclusive value, descending, then name,
 * for deterministic reports. */
void tp_scope_tree_sort(struct tp_scope_tree *t);

/* The scope of a TF/JAX op full name "<path>:<type>": the part before the
 * first ':' (XProf's ParseTfOpFullname). */
struct tp_str tp_scope_from_tf_op(struct tp_str tf_op);

#endif
