/*
 * millrace_memory.h - where the library's memory comes from (internal: the Swift half of
 * the C API calls these; programs use millrace.h).
 *
 * The Embedded Swift objects of libmillrace.a are built with their allocator calls renamed
 * (posix_memalign -> millrace_posix_memalign for Swift's objects, aligned_alloc ->
 * millrace_aligned_alloc for the core's checked allocations, free -> millrace_free; see
 * mk/c.mk), so every byte the library allocates or frees passes through
 * memory/millrace_memory.c:
 *
 * - While a runtime created in a caller's buffer (millrace_create_in) is entered, allocations
 *   are carved from that buffer (a region). Nothing else is ever called.
 * - Otherwise they go to the heap: the allocator set with millrace_set_allocator(), or the C
 *   library's (installed by millrace_create(), so that a program that only creates runtimes
 *   in buffers links no malloc).
 * - A free goes back to the region whose bytes it names, else to the heap.
 *
 * A full region or heap answers ENOMEM or NULL: the core checks its allocations that grow
 * with the capacities, and the C API reserves room for the small ones it cannot check
 * (Swift's objects) before each allocating call, so that running out is an error code,
 * never a crash.
 */
#ifndef MILLRACE_MEMORY_H
#define MILLRACE_MEMORY_H

#include <stddef.h>

#include "millrace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A caller's buffer formatted for allocation. Opaque. */
typedef struct millrace_region millrace_region_t;

/* Formats `size` bytes at `buffer` as a region and registers it; NULL when the buffer cannot
 * hold the region's header and one allocation. */
millrace_region_t *millrace_region_create(void *buffer, size_t size);

/* Unregisters a region; its bytes are the caller's again. */
void millrace_region_destroy(millrace_region_t *region);

/* The buffer's size, the bytes handed out now (with their headers), and the most ever. */
size_t millrace_region_size(const millrace_region_t *region);
size_t millrace_region_used(const millrace_region_t *region);
size_t millrace_region_high_water(const millrace_region_t *region);

/* Makes later allocations come from `region` (NULL: the heap) until millrace_memory_leave()
 * is given the value returned. */
millrace_region_t *millrace_memory_enter(millrace_region_t *region);
void millrace_memory_leave(millrace_region_t *previous);

/* Reserves `bytes` for the unchecked allocations of the call in progress (until
 * millrace_memory_leave): 0 when they cannot be had now in one piece (the region's largest
 * free block, or a heap allocation tried). The Swift objects allocated then use up the
 * reserve; a checked allocation (the core's, renamed from aligned_alloc) that would leave
 * less than what remains of it is refused. */
int millrace_memory_reserve(size_t bytes);

/* Makes the C library's posix_memalign and free the heap while no allocator is set
 * (millrace_heap.c, linked only by programs that call millrace_create()). */
void millrace_heap_install(void);

/* The heap while no allocator is set (NULL: none). */
void millrace_memory_set_fallback(const millrace_allocator_t *allocator);

#ifdef __cplusplus
}
#endif

#endif /* MILLRACE_MEMORY_H */
