/* millrace_heap.c - the C library's heap as the library's default allocator.
 *
 * Its own object file: millrace_create() links it (and with it malloc), a program that only
 * creates runtimes in its own buffers (millrace_create_in) does not. */
/* posix_memalign is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "millrace.h"
#include "millrace_memory.h"

static void *heap_allocate(void *context, size_t size, size_t alignment) {
    void *memory = NULL;

    (void)context;
    if (alignment < sizeof(void *)) {
        alignment = sizeof(void *);
    }
    return posix_memalign(&memory, alignment, size) == 0 ? memory : NULL;
}

static void heap_deallocate(void *context, void *memory) {
    (void)context;
    free(memory);
}

void millrace_heap_install(void) {
    static const millrace_allocator_t c_library = {heap_allocate, heap_deallocate, NULL};
    millrace_memory_set_fallback(&c_library);
}
