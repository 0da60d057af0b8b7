// Bytes the C heap has handed out and not taken back, for the per-machine memory benchmark:
// glibc's mallinfo2() in-use bytes of the arenas (uordblks) plus its mmap()ed blocks (hblkhd),
// where large tables such as a runtime's machine records go.
#ifndef HEAP_BYTES_H
#define HEAP_BYTES_H
#include <stddef.h>
size_t bench_heap_bytes_in_use(void);
#endif
