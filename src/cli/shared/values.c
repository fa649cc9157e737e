/*
 * values.c - option values every command reads alike: a SIZE (a number
 * and its unit, never bare bytes) and a fraction F (0.3 or 30%: one
 * reading for every share, fraction and growth option, a bare number
 * above 1 refused), each with the one message that names the option;
 * and that message's form, tp_cli_usage_error.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int tp_cli_usage_error(const struct tp_cmd *cmd, const char *fmt, const char *arg)
{
	fflush(stdout);
	fputs("tpuprof: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'tpuprof help %s')\n", cmd->name);
	return TP_EXIT_USAGE;
}

int tp_cli_size_option(const struct tp_cmd *cmd, const char *option, const char *arg,
		       bool nonzero, uint64_t *out)
{
	char *fmt;
	int code;

	if (tp_parse_size(arg, out) && (*out || !nonzero))
		return 0;
	fmt = tp_xasprintf("bad size '%%s' for --%s " TP_CLI_SIZE_EXAMPLE, option);
	code = tp_cli_usage_error(cmd, fmt, arg);
	free(fmt);
	return code;
}

int tp_cli_fraction_option(const struct tp_cmd *cmd, const char *option, const char *arg,
			   double lo, bool lo_inclusive, double hi, double *out)
{
	bool ok = tp_parse_fraction(arg, out);
	char *fmt;
	int code;

	if (ok && (lo_inclusive ? *out >= lo : *out > lo) && *out <= hi &&
	    (*out <= 1 || strchr(arg, '%')))
		return 0;
	/* One reading for every share: a bare number is a fraction, so a
	 * bare 20 (2000%) is far more likely a percent without its sign. */
	if (ok && *out > 1 && !strchr(arg, '%'))
		fmt = tp_xasprintf("bad value '%%s' for --%s: a bare number is a fraction (0.2 = 20%%%%), at most 1; write %s%%%% for percent",
				   option, arg);
	else
		fmt = tp_xasprintf(lo_inclusive ?
				   "bad value '%%s' for --%s (%g%%%% to %g%%%%: a fraction, e.g. 0.3, or a percent, e.g. 30%%%%)" :
				   "bad value '%%s' for --%s (above %g%%%%, at most %g%%%%: a fraction, e.g. 0.9, or a percent, e.g. 90%%%%)",
				   option, lo * 100, hi * 100);
	code = tp_cli_usage_error(cmd, fmt, arg);
	free(fmt);
	return code;
}
