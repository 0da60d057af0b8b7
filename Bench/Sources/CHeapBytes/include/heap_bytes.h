// Bytes the C heap has handed out and not taken back (glibc mallinfo2().uordblks), for the
// per-machine memory benchmark.
#ifndef HEAP_BYTES_H
#define HEAP_BYTES_H
#include <stddef.h>
size_t bench_heap_bytes_in_use(void);
#endif
