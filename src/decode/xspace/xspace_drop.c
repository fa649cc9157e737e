/* Dropping the pages behind a reader: every reader of a mapped file (the
 * scan, the event iterator, the framing walk) calls down to this file, and
 * it calls nothing back, so the readers stay one way. */
#define _GNU_SOURCE   /* MADV_DONTDUMP */
#include "xspace_internal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void tp_xspace_drop(const struct tp_xspace *xs, const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	long page;

	if (!xs->drop_pages)
		return;
	page = sysconf(_SC_PAGESIZE); /* from the auxiliary vector: cheap */
	if (page <= 0)
		return;
	/* only whole pages inside the range: a page shared with the next
	 * message stays */
	lo = (lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	hi &= ~((uintptr_t)page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* A long line's pages as an area of the mapping of their own (a
 * madvise that differs from the pages around it splits the kernel's
 * area there; MADV_DONTDUMP: only a core dump would see it, and it can
 * do without the capture's events). The kernel maps a whole large folio
 * of the page cache on a read fault (Linux 6.18: megabytes, as the file
 * was read or written), but never past the area faulted in: without
 * this, a name read from a plane's metadata after the open mapped the
 * megabytes of the lines around it, and they stayed to the end of the
 * run (7 MB of the many-step capture's 35 MB peak). Two areas a line,
 * at most a sixteenth of the system's map count in the process (4,095
 * of the usual 65,530; a pod's hosts are mapped at once, and a chunked
 * capture's views need areas too): never given back, as a run opens its
 * captures once. */
#define OWN_AREA_MIN ((size_t)1 << 20)

static atomic_size_t own_areas;

void tp_xspace_own_area(const struct tp_xspace *xs, const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	long page;

	if (!xs->drop_pages || len < OWN_AREA_MIN)
		return;
	page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		return;
	lo = (lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	hi &= ~((uintptr_t)page - 1);
	if (hi <= lo ||
	    atomic_fetch_add(&own_areas, 2) + 2 > tp_system_map_count() / 16)
		return;
	madvise((void *)lo, hi - lo, MADV_DONTDUMP);
}

/* Long lines are read once front to back: the pages behind the reader
 * are dropped every 2 MiB (when the bytes map a file), so resident
 * memory stays near the parts being read, not the whole capture. Each
 * drop unmaps and flushes the other cores' TLBs; every MiB (the sixth
 * session's step) cost 7 ms more CPU on the bench's 200 MB TPU report
 * and 20 ms on its JAX one than every 2 MiB, whose peak is the same
 * (0.4 MB more on the many-step capture); every 4 MiB saves no more
 * and peaks 3 MB higher. */
#define DROP_STEP ((size_t)2 << 20)

void tp_event_iter_drop_behind(struct tp_event_iter *it)
{
	if ((size_t)(it->w.p - it->dropped) >= DROP_STEP) {
		tp_xspace_drop(it->xs, it->dropped, (size_t)(it->w.p - it->dropped));
		it->dropped = it->w.p;
	}
}
