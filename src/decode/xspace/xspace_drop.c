/* Dropping the pages behind a reader: every reader of a mapped file (the
 * scan, the event iterator, the framing walk) calls down to this file, and
 * it calls nothing back, so the readers stay one way. */
#define _GNU_SOURCE   /* struct iovec, syscall: Linux only, optional */
#include "xspace_internal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* The first of n ascending pages at or after lo. */
static size_t first_kept(const uintptr_t *kept, size_t n, uintptr_t lo)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (kept[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* Runs of pages to drop, dropped in one call where the kernel can
 * (process_madvise on the process itself: Linux 6.13 and later), one
 * madvise each otherwise: a view with kept pages has a run every 64 KiB,
 * and a call each costs more than the dropping. */
#define RUNS 64
#define PIDFD_SELF_ID (-10000)

static atomic_bool no_batch;

static void drop_runs(struct iovec *runs, size_t n)
{
#ifdef SYS_process_madvise
	if (!atomic_load_explicit(&no_batch, memory_order_relaxed)) {
		size_t want = 0;

		for (size_t i = 0; i < n; i++)
			want += runs[i].iov_len;
		if (syscall(SYS_process_madvise, PIDFD_SELF_ID, runs, n,
			    MADV_DONTNEED, 0) == (long)want)
			return;
		atomic_store_explicit(&no_batch, true, memory_order_relaxed);
	}
#endif
	for (size_t i = 0; i < n; i++)
		madvise(runs[i].iov_base, runs[i].iov_len, MADV_DONTNEED);
}

/* [lo, hi) dropped in the runs between kept pages: a kept page is the
 * view's own copy, and dropping it would bring back the file's bytes. */
static void drop_around(const struct tp_xspace *xs, uintptr_t lo,
			uintptr_t hi, uintptr_t page)
{
	struct iovec runs[RUNS];
	size_t n = 0;

	for (size_t k = first_kept(xs->kept_pages, xs->n_kept_pages, lo);
	     k < xs->n_kept_pages && xs->kept_pages[k] < hi; k++) {
		if (xs->kept_pages[k] > lo) {
			runs[n++] = (struct iovec){ (void *)lo,
						    xs->kept_pages[k] - lo };
			if (n == RUNS) {
				drop_runs(runs, n);
				n = 0;
			}
		}
		lo = xs->kept_pages[k] + page;
	}
	if (hi > lo)
		runs[n++] = (struct iovec){ (void *)lo, hi - lo };
	if (n)
		drop_runs(runs, n);
}

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
	if (hi > lo && xs->n_kept_pages)
		drop_around(xs, lo, hi, (uintptr_t)page);
	else if (hi > lo)
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
