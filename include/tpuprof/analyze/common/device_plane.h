/*
 * device_plane.h - a capture plane's device: its plane stats read into
 * struct tp_plane_facts (device.h) and resolved against the device table
 * with the flags' hints. The one place the analyses read device stats.
 *
 * Ownership: the facts borrow strings from the plane (the capture must
 * outlive them); the figures hold no pointer into the capture.
 */
#ifndef TPUPROF_DEVICE_PLANE_H
#define TPUPROF_DEVICE_PLANE_H

#include "tpuprof/device/device.h"
#include "tpuprof/decode/xspace.h"

/* Reads pl's device stats (see struct tp_plane_facts). */
void tp_plane_facts_read(const struct tp_plane *pl, struct tp_plane_facts *out);

/* tp_device_detect / tp_device_resolve on pl's facts (pl NULL: none). */
const struct tp_device_row *tp_device_detect_plane(const struct tp_plane *pl);
void tp_device_resolve_plane(const struct tp_plane *pl, const struct tp_device_hints *h,
			     struct tp_device_figures *f);

#endif
