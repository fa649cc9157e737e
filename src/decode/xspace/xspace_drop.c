/* Dropping the pages behind a reader: every reader of a mapped file (the
 * scan, the event iterator, the framing walk) calls down to this file, and
 * it calls nothing back, so the readers stay one way. */
#include "xspace_internal.h"

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

/* Long lines are read once front to back: the pages behind the reader
 * are dropped every few MiB (when the bytes map a file), so resident
 * memory stays near the parts being read, not the whole capture. */
#define DROP_STEP ((size_t)4 << 20)

void tp_event_iter_drop_behind(struct tp_event_iter *it)
{
	if ((size_t)(it->w.p - it->dropped) >= DROP_STEP) {
		tp_xspace_drop(it->xs, it->dropped, (size_t)(it->w.p - it->dropped));
		it->dropped = it->w.p;
	}
}
