/*
 * advice_debug_print.c - the debug-print rule's per-host figure, as
 * XProf's event time fraction analysis makes it for "debug_print": per
 * step and core, debug_print device time / the step's time; per step of
 * a host, the mean over the cores with such events in it; per host, the
 * mean over those steps. Steps without debug_print events, on a core or
 * on the whole host, count in neither mean (XProf keeps no entry for
 * them), so a host whose steps hold none has the figure 0. The rule
 * (XProf's DebugPrintRule) fires when some host's figure is >= 5%.
 */
#include "tpuprof/analyze/advice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

/* One step of one core that holds debug_print events. */
struct dp_entry {
	size_t host, core;
	struct tp_str step;
	double fraction;
};

static int by_host_step_core(const void *pa, const void *pb)
{
	const struct dp_entry *a = pa, *b = pb;
	int r;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if ((r = tp_str_cmp(a->step, b->step)))
		return r;
	return (a->core > b->core) - (a->core < b->core);
}

/* The index of the core's host in hosts, added when new. */
static size_t host_of(struct tp_advice_host **hosts, size_t *n, size_t *cap, const char *name,
		      size_t last)
{
	if (last < *n && !strcmp((*hosts)[last].host, name))
		return last;
	for (size_t h = 0; h < *n; h++)
		if (!strcmp((*hosts)[h].host, name))
			return h;
	*hosts = tp_xgrow(*hosts, cap, *n + 1, sizeof(**hosts));
	(*hosts)[*n] = (struct tp_advice_host){ name, 0, 0 };
	return (*n)++;
}

/* Per host: the mean over its steps of the mean over cores. */
static void host_means(struct tp_advice_host *hosts, const struct dp_entry *e, size_t n)
{
	size_t i = 0;

	while (i < n) {
		struct tp_advice_host *h = &hosts[e[i].host];
		double sum = 0;
		size_t cores = 0;
		size_t j = i;

		/* one step of one host: sum per core, mean over the cores */
		while (j < n && e[j].host == e[i].host && !tp_str_cmp(e[j].step, e[i].step)) {
			if (j == i || e[j].core != e[j - 1].core)
				cores++;
			sum += e[j].fraction;
			j++;
		}
		/* share holds the running sum of step means until the end */
		h->share += sum / (double)cores;
		h->steps++;
		i = j;
	}
}

size_t tp_advice_debug_print_hosts(const struct tp_advice_input *in,
				   struct tp_advice_host **out)
{
	struct tp_advice_host *hosts = NULL;
	struct dp_entry *e = NULL;
	size_t n = 0, cap = 0, n_e = 0, cap_e = 0, last = SIZE_MAX;

	for (size_t c = 0; c < in->n_cores; c++) {
		const struct tp_advice_core *k = &in->cores[c];

		if (!k->n_steps)
			continue;
		/* a document without a host name: one unnamed host */
		last = host_of(&hosts, &n, &cap, k->host ? k->host : "", last);
		for (size_t s = 0; s < k->n_steps; s++) {
			const struct tp_advice_step *st = &k->steps[s];

			if (st->dur_ps <= 0 || st->debug_print_ps <= 0)
				continue;
			e = tp_xgrow(e, &cap_e, n_e + 1, sizeof(*e));
			e[n_e++] = (struct dp_entry){ last, c, st->name,
				(double)st->debug_print_ps / (double)st->dur_ps };
		}
	}
	if (n_e > 1)
		qsort(e, n_e, sizeof(*e), by_host_step_core);
	host_means(hosts, e, n_e);
	for (size_t h = 0; h < n; h++)
		if (hosts[h].steps)
			hosts[h].share /= (double)hosts[h].steps;
	free(e);
	*out = hosts;
	return n;
}

/* The finding's text, replacing any before. */
#define SAY(f, ...) (free((f)->text), (f)->text = tp_xasprintf(__VA_ARGS__))

void tp_advice_debug_print_judge(struct tp_advice_finding *f, const struct tp_advice_input *in)
{
	char over[256] = "";
	size_t n_over = 0, len = 0, with = 0;

	for (size_t c = 0; c < in->n_cores; c++)
		if (in->cores[c].no_debug_print) {
			SAY(f, "debug-print: could not be judged: a merged report predates the figure "
			    "(steps without debug_print_ps: make it again)");
			return;
		}
	f->n_hosts = tp_advice_debug_print_hosts(in, &f->hosts);
	if (!f->n_hosts) {
		SAY(f, "debug-print: could not be judged: no core has steps");
		return;
	}
	for (size_t h = 0; h < f->n_hosts; h++) {
		const struct tp_advice_host *x = &f->hosts[h];

		with += x->steps > 0;
		if (!f->has_measured || x->share > f->measured) {
			f->measured = x->share;
			f->has_measured = true;
			f->host = x->host;
		}
		if (x->share < f->threshold)
			continue;
		/* the first few hosts over the limit; the JSON lists them all */
		if (n_over++ < 4 && len < sizeof(over))
			len += (size_t)snprintf(over + len, sizeof(over) - len, "%s%s %.1f%%",
						n_over > 1 ? ", " : "", x->host, 100 * x->share);
	}
	f->verdict = n_over ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	if (!with)
		SAY(f, "debug-print: no step holds debug_print events, on %zu host%s (limit >= 5%% "
		    "of step time per host)", f->n_hosts, f->n_hosts == 1 ? "" : "s");
	else if (n_over)
		SAY(f, "debug-print: debug_print events take >= 5%% of step time on %zu of %zu "
		    "host%s: %s%s (look for jax.debug.print calls)", n_over, f->n_hosts,
		    f->n_hosts == 1 ? "" : "s", over, n_over > 4 ? ", ..." : "");
	else
		SAY(f, "debug-print: debug_print events take at most %.1f%% of step time per host, "
		    "on %s (limit >= 5%%)", 100 * f->measured, f->host);
}
