/*
 * names.c - foreign names made safe as file names, quoted for messages,
 * kept unique, and runs ordered newest first.
 *
 * A server or a bucket chooses run, host, module and object names; they
 * reach the disk only through tp_safe_name(), which yields one path
 * component that cannot climb out of its directory, and reach the
 * terminal only through tp_quote_name(), which escapes control bytes.
 */
#include "tpuprof/fetch/fetch_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

static bool safe_byte(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '/' && c != '\\';
}

char *tp_safe_name(const char *name)
{
	size_t n = strlen(name);
	char *out;

	if (n > TP_SAFE_NAME_MAX)
		n = TP_SAFE_NAME_MAX;
	if (n == 0)
		return tp_xstrdup("_");
	out = tp_xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		out[i] = safe_byte((unsigned char)name[i]) ? name[i] : '_';
	out[n] = '\0';
	for (size_t i = 0; i < n && out[i] == '.'; i++)
		out[i] = '_';
	return out;
}

/* The length of the UTF-8 character at s (n bytes left) that a terminal
 * shows as itself, or 0: a valid sequence (no overlong form, surrogate
 * or code point past U+10FFFF) that is no C1 control, line separator or
 * bidirectional control (which would reorder the line around it). */
static size_t shown_utf8(const unsigned char *s, size_t n)
{
	size_t k = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	uint32_t cp;

	if (!k || k > n || s[0] > 0xf4)
		return 0;
	cp = s[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp < 0xe000) || cp < 0xa0 || cp == 0x200e || cp == 0x200f ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return k;
}

char *tp_quote_name(const char *name)
{
	size_t n = strlen(name), cut = n > 300 ? 300 : n;
	char *out = tp_xmalloc(cut * 4 + 4), *o = out;

	for (size_t i = 0; i < cut; i++) {
		unsigned char c = (unsigned char)name[i];
		size_t k;

		if (c >= 0x80 && (k = shown_utf8((const unsigned char *)name + i, cut - i))) {
			memcpy(o, name + i, k);   /* "hé" as itself */
			o += k;
			i += k - 1;
		} else if (c == '\n')
			o += sprintf(o, "\\n");
		else if (c == '\t')
			o += sprintf(o, "\\t");
		else if (c == '\\')
			o += sprintf(o, "\\\\");
		else if (c < 0x20 || c >= 0x7f)
			o += sprintf(o, "\\x%02x", c);
		else
			*o++ = (char)c;
	}
	if (cut < n)
		o += sprintf(o, "...");
	*o = '\0';
	return out;
}

void tp_namemap_init(struct tp_namemap *m)
{
	memset(m, 0, sizeof(*m));
}

static const char *namemap_find(const struct tp_namemap *m, const char *s,
				bool by_safe)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(by_safe ? m->v[i].safe : m->v[i].raw, s) == 0)
			return m->v[i].safe;
	return NULL;
}

const char *tp_namemap_get(struct tp_namemap *m, const char *raw,
			   bool *changed)
{
	const char *hit = namemap_find(m, raw, false);

	if (!hit) {
		char *safe = tp_safe_name(raw);

		if (namemap_find(m, safe, true)) {
			/* Taken by another raw name: number this one. */
			char *base = safe;

			if (strlen(base) > TP_SAFE_NAME_MAX - 12)
				base[TP_SAFE_NAME_MAX - 12] = '\0';
			safe = NULL;
			for (unsigned k = 2; !safe || namemap_find(m, safe, true); k++) {
				free(safe);
				safe = tp_xasprintf("%s~%u", base, k);
			}
			free(base);
		}
		m->v = tp_xgrow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
		m->v[m->n].raw = tp_xstrdup(raw);
		m->v[m->n].safe = safe;
		hit = m->v[m->n++].safe;
	}
	if (changed)
		*changed = strcmp(hit, raw) != 0;
	return hit;
}

void tp_namemap_release(struct tp_namemap *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].raw);
		free(m->v[i].safe);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

bool tp_rel_path_safe(const char *rel)
{
	const char *p = rel;

	if (!*rel)
		return false;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f ||
			    p[i] == '\\')
				return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

/* Whether the run's last component starts with YYYY_MM_DD_HH_MM_SS ('_'
 * or '-' between fields: TensorFlow 1.x wrote "%Y-%m-%d_%H-%M-%S"); the
 * 14 digits go to key. */
static bool session_time(const char *run, char key[15])
{
	const char *s = strrchr(run, '/');
	static const int widths[] = { 4, 2, 2, 2, 2, 2 };
	size_t k = 0;

	s = s ? s + 1 : run;
	for (size_t f = 0; f < 6; f++) {
		if (f > 0) {
			if (*s != '_' && *s != '-')
				return false;
			s++;
		}
		for (int i = 0; i < widths[f]; i++, s++) {
			if (*s < '0' || *s > '9')
				return false;
			key[k++] = *s;
		}
	}
	key[k] = '\0';
	return true;
}

void tp_runs_sort_newest(char **runs, size_t n)
{
	/* Insertion sort: stable, and run lists are short. */
	for (size_t i = 1; i < n; i++) {
		char *cur = runs[i], kc[15], kp[15];
		bool tc = session_time(cur, kc);
		size_t j = i;

		while (j > 0) {
			bool tp = session_time(runs[j - 1], kp);

			/* cur goes before runs[j-1] when it is timed and the
			 * other is not, or both timed and cur is later. */
			if (!tc || (tp && strcmp(kc, kp) <= 0))
				break;
			runs[j] = runs[j - 1];
			j--;
		}
		runs[j] = cur;
	}
}
