/*
 * format.h - the output formats a command can be asked for (--format).
 * The writers of one format live in one folder under src/report/; which
 * writer a command's output goes through is decided in src/report/write.c.
 */
#ifndef TPUPROF_FORMAT_H
#define TPUPROF_FORMAT_H

enum tp_format { TP_FORMAT_TEXT, TP_FORMAT_JSON };

#endif
