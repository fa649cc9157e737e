/*
 * version.h - the version of tpuprof, as `tpuprof --version` prints it and
 * as the documents a baseline is kept in record it (tpuprof_version), so
 * that a saved report says which build wrote it.
 */
#ifndef TPUPROF_VERSION_H
#define TPUPROF_VERSION_H

#define TPUPROF_VERSION "0.1.0"

#endif
