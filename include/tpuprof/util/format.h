/*
 * format.h - the output formats a command can be asked for (--format).
 * The writers of one format live in one folder under src/report/; which
 * writer a command's output goes through is decided in src/report/write.c.
 */
#ifndef TPUPROF_FORMAT_H
#define TPUPROF_FORMAT_H

/* HTML: one self-contained page (include/tpuprof/html.h), only for the
 * commands whose table entry says so (report, memory, ops, diff). */
enum tp_format { TP_FORMAT_TEXT, TP_FORMAT_JSON, TP_FORMAT_HTML };

#endif
