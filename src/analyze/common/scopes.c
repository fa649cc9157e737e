/*
 * scopes.c - the name-scope tree (see scopes.h).
 */
#include "tpuprof/analyze/common/scopes.h"

#include <stdlib.h>
#include <string.h>

static void slots_insert(struct tp_scope_tree *t, uint64_t h, size_t node)
{
	size_t i = (size_t)h & (t->slot_cap - 1);

	while (t->slots[i])
		i = (i + 1) & (t->slot_cap - 1);
	t->hashes[i] = h;
	t->slots[i] = (uint32_t)(node + 1);
}

static void slots_grow(struct tp_scope_tree *t)
{
	size_t old_cap = t->slot_cap;
	uint64_t *old_h = t->hashes;
	uint32_t *old_s = t->slots;

	t->slot_cap = old_cap ? old_cap * 2 : 64;
	t->hashes = tp_xzalloc(t->slot_cap, sizeof(*t->hashes));
	t->slots = tp_xzalloc(t->slot_cap, sizeof(*t->slots));
	for (size_t i = 0; i < old_cap; i++)
		if (old_s[i])
			slots_insert(t, old_h[i], old_s[i] - 1);
	free(old_h);
	free(old_s);
}

static size_t new_node(struct tp_scope_tree *t, size_t parent, const char *path,
		       size_t len, size_t name_at)
{
	struct tp_scope_node *n;
	size_t idx = t->n;

	t->nodes = tp_xgrow(t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes));
	n = &t->nodes[t->n++];
	memset(n, 0, sizeof(*n));
	n->path = tp_str_dup(tp_str_make(path, len));
	n->name = tp_str_dup(tp_str_make(path + name_at, len - name_at));
	n->parent = parent;
	n->depth = idx ? t->nodes[parent].depth + 1 : 0;
	if (idx) {
		struct tp_scope_node *p = &t->nodes[parent];

		p->children = tp_xgrow(p->children, &p->cap_children,
				       p->n_children + 1, sizeof(*p->children));
		p->children[p->n_children++] = idx;
	}
	if (2 * t->n > t->slot_cap)
		slots_grow(t);
	slots_insert(t, tp_hash_bytes(path, len), idx);
	return idx;
}

void tp_scope_tree_init(struct tp_scope_tree *t)
{
	memset(t, 0, sizeof(*t));
	new_node(t, 0, "", 0, 0);
}

void tp_scope_tree_release(struct tp_scope_tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->nodes[i].name);
		free(t->nodes[i].path);
		free(t->nodes[i].children);
	}
	free(t->nodes);
	free(t->hashes);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

size_t tp_scope_tree_find(const struct tp_scope_tree *t, struct tp_str path)
{
	uint64_t h = tp_hash_bytes(path.ptr, path.len);

	for (size_t i = (size_t)h & (t->slot_cap - 1); t->slots[i];
	     i = (i + 1) & (t->slot_cap - 1)) {
		size_t node = t->slots[i] - 1;

		if (t->hashes[i] == h && tp_str_eq(path, t->nodes[node].path))
			return node;
	}
	return SIZE_MAX;
}

/* End of the component starting at i: the next '/' outside parentheses. */
static size_t component_end(struct tp_str path, size_t i)
{
	int depth = 0;

	for (; i < path.len; i++) {
		char ch = path.ptr[i];

		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0)
			depth--;
		else if (ch == '/' && depth == 0)
			break;
	}
	return i;
}

size_t tp_scope_tree_add(struct tp_scope_tree *t, struct tp_str path,
			 int64_t value, uint64_t count)
{
	size_t node = 0, start = 0;

	/* nothing hides as the root's own part: a value without a scope
	 * gets a row of its own */
	if (!path.len && !value && !count)
		return 0;
	if (!path.len)
		path = tp_str_make(TP_SCOPE_NONE, strlen(TP_SCOPE_NONE));
	t->nodes[0].inclusive = tp_sat_add(t->nodes[0].inclusive, value);
	t->nodes[0].count_inclusive += count;
	/* a path met before (most are: every core runs the same ops): its
	 * node and its parents, without finding each prefix again */
	if ((node = tp_scope_tree_find(t, path)) != SIZE_MAX) {
		t->nodes[node].exclusive = tp_sat_add(t->nodes[node].exclusive, value);
		t->nodes[node].count_exclusive += count;
		for (size_t n = node; n != 0; n = t->nodes[n].parent) {
			t->nodes[n].inclusive = tp_sat_add(t->nodes[n].inclusive, value);
			t->nodes[n].count_inclusive += count;
		}
		return node;
	}
	node = 0;
	while (start < path.len) {
		size_t end = component_end(path, start);
		struct tp_str prefix = tp_str_make(path.ptr, end);
		size_t next = tp_scope_tree_find(t, prefix);

		if (next == SIZE_MAX)
			next = new_node(t, node, path.ptr, end, start);
		node = next;
		t->nodes[node].inclusive = tp_sat_add(t->nodes[node].inclusive, value);
		t->nodes[node].count_inclusive += count;
		start = end + 1;
	}
	t->nodes[node].exclusive = tp_sat_add(t->nodes[node].exclusive, value);
	t->nodes[node].count_exclusive += count;
	return node;
}

/* qsort has no context argument: per thread, as trace lanes analyze
 * memory on several threads at once */
static _Thread_local const struct tp_scope_tree *sort_tree;

static int by_inclusive(const void *a, const void *b)
{
	const struct tp_scope_node *x = &sort_tree->nodes[*(const size_t *)a];
	const struct tp_scope_node *y = &sort_tree->nodes[*(const size_t *)b];

	if (x->inclusive != y->inclusive)
		return x->inclusive > y->inclusive ? -1 : 1;
	return strcmp(x->name, y->name);
}

void tp_scope_tree_sort(struct tp_scope_tree *t)
{
	sort_tree = t;
	for (size_t i = 0; i < t->n; i++)
		if (t->nodes[i].n_children > 1)
			qsort(t->nodes[i].children, t->nodes[i].n_children,
			      sizeof(size_t), by_inclusive);
	sort_tree = NULL;
}

struct tp_str tp_scope_from_tf_op(struct tp_str tf_op)
{
	for (size_t i = 0; i < tf_op.len; i++)
		if (tf_op.ptr[i] == ':')
			return tp_str_make(tf_op.ptr, i);
	return tf_op;
}
