// glibc's heap statistics, which Swift's Glibc module does not export (malloc.h), for the
// daemon's INFO memory section.
#ifndef MILLRACE_CHEAP_SHIM_H
#define MILLRACE_CHEAP_SHIM_H
#include <stddef.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/// Bytes the allocator has handed out and not taken back (arenas plus mmap()ed blocks), or 0
/// where the C library cannot tell.
static inline size_t millrace_heap_bytes_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#else
  return 0;
#endif
}
#endif
