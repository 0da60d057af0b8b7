/* millrace_memory.c - every allocation of libmillrace.a: regions carved from callers'
 * buffers, or the heap (millrace_memory.h says how the library's calls arrive here).
 *
 * A region is a first-fit allocator over one buffer: blocks with a one-unit header (a unit
 * is two words), free blocks in a list in address order, merged with their neighbours when
 * freed. Allocation walks the free list; it runs when a runtime is created, a kind first
 * spawned or an observer added, never on the hot path.
 *
 * Not thread-safe: the region entered is one variable. Runtimes in buffers must not make
 * allocating calls (create, spawn, observe, remove, step, destroy) on several threads at
 * once; heap runtimes may, as far as their heap allows. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "millrace.h"
#include "millrace_memory.h"

/* The header of a block: its size in bytes, header included (a multiple of UNIT), and, while
 * it is free, the next free block; while it is in use, its region (checked when freed). */
typedef struct block {
    size_t size;
    void *link;
} block_t;

#define UNIT sizeof(block_t)

struct millrace_region {
    /* The next registered region. */
    millrace_region_t *next;
    /* The blocks: [start, end). */
    unsigned char *start;
    unsigned char *end;
    block_t *free;
    /* The buffer's size as given. */
    size_t size;
    size_t used;
    size_t high_water;
};

static millrace_region_t *regions;
static millrace_region_t *entered;
/* What the call in progress may still allocate unchecked (millrace_memory_reserve). */
static size_t reserve;
/* The allocator set with millrace_set_allocator(), if any, else the C library's once
 * millrace_heap_install() gave it. */
static millrace_allocator_t chosen;
static const millrace_allocator_t *fallback;

void millrace_free(void *memory);
int millrace_posix_memalign(void **memory, size_t alignment, size_t size);
void *millrace_aligned_alloc(size_t alignment, size_t size);

static uintptr_t round_up(uintptr_t value, uintptr_t to) { return (value + to - 1) / to * to; }

millrace_region_t *millrace_region_create(void *buffer, size_t size) {
    uintptr_t base = (uintptr_t)buffer;
    uintptr_t first;
    uintptr_t end;
    millrace_region_t *region;
    block_t *whole;

    if (buffer == NULL || size > UINTPTR_MAX - base) {
        return NULL;
    }
    end = (base + size) / UNIT * UNIT;
    first = round_up(round_up(base, UNIT) + sizeof(millrace_region_t), UNIT);
    if (first >= end || end - first < 2 * UNIT) {
        return NULL;
    }
    region = (millrace_region_t *)round_up(base, UNIT);
    whole = (block_t *)first;
    whole->size = end - first;
    whole->link = NULL;
    region->start = (unsigned char *)first;
    region->end = (unsigned char *)end;
    region->free = whole;
    region->size = size;
    region->used = 0;
    region->high_water = 0;
    region->next = regions;
    regions = region;
    return region;
}

void millrace_region_destroy(millrace_region_t *region) {
    millrace_region_t **link = &regions;

    while (*link != NULL && *link != region) {
        link = &(*link)->next;
    }
    if (*link != NULL) {
        *link = region->next;
    }
    if (entered == region) {
        entered = NULL;
    }
}

size_t millrace_region_size(const millrace_region_t *region) { return region->size; }

size_t millrace_region_used(const millrace_region_t *region) { return region->used; }

size_t millrace_region_high_water(const millrace_region_t *region) { return region->high_water; }

/* Where in `free` an allocation of `size` bytes aligned to `alignment` (a power of two, at
 * least UNIT) would start its payload, or 0 when it does not fit. Blocks start at multiples
 * of UNIT, so the gap before its header is 0 or a free block of at least a unit. */
static uintptr_t fit(const block_t *free, size_t size, size_t alignment) {
    uintptr_t start = (uintptr_t)free;
    uintptr_t payload = round_up(start + UNIT, alignment);
    if (payload - start > free->size || size > free->size - (payload - start)) {
        return 0;
    }
    return payload;
}

static void *region_allocate(millrace_region_t *region, size_t size, size_t alignment) {
    block_t **link = &region->free;
    size_t rounded;

    if (alignment < UNIT) {
        alignment = UNIT;
    }
    if (size > SIZE_MAX - 2 * UNIT || alignment > SIZE_MAX / 2) {
        return NULL;
    }
    rounded = round_up(size == 0 ? 1 : size, UNIT);
    for (block_t *free = region->free; free != NULL; link = (block_t **)&free->link,
                 free = free->link) {
        uintptr_t payload = fit(free, rounded, alignment);
        block_t *taken;
        uintptr_t end;
        uintptr_t free_end;

        if (payload == 0) {
            continue;
        }
        taken = (block_t *)(payload - UNIT);
        end = payload + rounded;
        free_end = (uintptr_t)free + free->size;
        if (free_end - end < UNIT) {
            end = free_end;
        } else {
            /* The rest after it stays free, in its place in the list. */
            block_t *rest = (block_t *)end;
            rest->size = free_end - end;
            rest->link = free->link;
            free->link = rest;
        }
        if (taken != free) {
            /* The gap before it stays free: `free` itself, shortened. */
            free->size = (uintptr_t)taken - (uintptr_t)free;
        } else {
            *link = free->link;
        }
        taken->size = end - (uintptr_t)taken;
        taken->link = region;
        region->used += taken->size;
        if (region->used > region->high_water) {
            region->high_water = region->used;
        }
        return (void *)payload;
    }
    return NULL;
}

static void region_free(millrace_region_t *region, void *memory) {
    block_t *freed = (block_t *)((unsigned char *)memory - UNIT);
    block_t *before = NULL;
    block_t *after = region->free;

    if (freed->link != region) {
        return; /* not a block in use here (a double free): leave the lists intact */
    }
    region->used -= freed->size;
    while (after != NULL && after < freed) {
        before = after;
        after = after->link;
    }
    freed->link = after;
    if (after != NULL && (unsigned char *)freed + freed->size == (unsigned char *)after) {
        freed->size += after->size;
        freed->link = after->link;
    }
    if (before == NULL) {
        region->free = freed;
    } else if ((unsigned char *)before + before->size == (unsigned char *)freed) {
        before->size += freed->size;
        before->link = freed->link;
    } else {
        before->link = freed;
    }
}

static millrace_region_t *region_of(const void *memory) {
    for (millrace_region_t *region = regions; region != NULL; region = region->next) {
        if ((const unsigned char *)memory >= region->start &&
            (const unsigned char *)memory < region->end) {
            return region;
        }
    }
    return NULL;
}

millrace_region_t *millrace_memory_enter(millrace_region_t *region) {
    millrace_region_t *previous = entered;
    entered = region;
    reserve = 0;
    return previous;
}

void millrace_memory_leave(millrace_region_t *previous) {
    entered = previous;
    reserve = 0;
}

static const millrace_allocator_t *heap(void) {
    return chosen.allocate != NULL ? &chosen : fallback;
}

/* Whether `bytes` can be had now in one piece: the largest free block of the region
 * entered, or a heap allocation tried and given back. */
static int has_room(size_t bytes) {
    const millrace_allocator_t *allocator = heap();
    void *probe;

    if (entered != NULL) {
        for (block_t *free = entered->free; free != NULL; free = free->link) {
            if (free->size >= bytes + UNIT) {
                return 1;
            }
        }
        return 0;
    }
    if (allocator == NULL) {
        return 0;
    }
    probe = allocator->allocate(allocator->context, bytes, UNIT);
    if (probe == NULL) {
        return 0;
    }
    allocator->deallocate(allocator->context, probe);
    return 1;
}

int millrace_memory_reserve(size_t bytes) {
    if (!has_room(bytes)) {
        return 0;
    }
    reserve = bytes;
    return 1;
}

int millrace_set_allocator(const millrace_allocator_t *allocator) {
    if (allocator != NULL && (allocator->allocate == NULL || allocator->deallocate == NULL)) {
        return MILLRACE_INVALID;
    }
    if (allocator == NULL) {
        memset(&chosen, 0, sizeof chosen);
    } else {
        chosen = *allocator;
    }
    return MILLRACE_OK;
}

void millrace_memory_set_fallback(const millrace_allocator_t *allocator) { fallback = allocator; }

static void *allocate(size_t size, size_t alignment) {
    const millrace_allocator_t *allocator = heap();

    if (entered != NULL) {
        return region_allocate(entered, size, alignment);
    }
    return allocator != NULL ? allocator->allocate(allocator->context, size, alignment) : NULL;
}

/* Called by the library's Swift code (renamed from posix_memalign): Swift's own objects and
 * arrays, which it cannot refuse. They use up the reserve. */
int millrace_posix_memalign(void **memory, size_t alignment, size_t size) {
    void *allocated = allocate(size, alignment);

    if (allocated == NULL) {
        return ENOMEM;
    }
    reserve -= size < reserve ? size : reserve;
    *memory = allocated;
    return 0;
}

/* Called by the library's Swift code (renamed from aligned_alloc): the core's checked
 * allocations (Memory.swift), refused when they would leave less than the reserve. */
void *millrace_aligned_alloc(size_t alignment, size_t size) {
    void *allocated = allocate(size, alignment);

    if (allocated != NULL && reserve > 0 && !has_room(reserve)) {
        millrace_free(allocated);
        return NULL;
    }
    return allocated;
}

/* Called by the library's Swift code (renamed from free). */
void millrace_free(void *memory) {
    const millrace_allocator_t *allocator = heap();
    millrace_region_t *region;

    if (memory == NULL) {
        return;
    }
    region = region_of(memory);
    if (region != NULL) {
        region_free(region, memory);
    } else if (allocator != NULL) {
        allocator->deallocate(allocator->context, memory);
    }
}
