// glibc's heap statistics, which Swift's Glibc module does not export (malloc.h), for the
// daemon's INFO memory section. Linux here means glibc 2.33 or later (mallinfo2); the test is
// on __linux__ because glibc's own version macros are not visible through Swift's module
// import of its headers.
#ifndef MILLRACE_CHEAP_SHIM_H
#define MILLRACE_CHEAP_SHIM_H
#include <stddef.h>
#if defined(__linux__)
#include <malloc.h>
#endif

/// Bytes the allocator has handed out and not taken back (arenas plus mmap()ed blocks), or 0
/// where the C library cannot tell.
static inline size_t millrace_heap_bytes_in_use(void) {
#if defined(__linux__)
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#else
  return 0;
#endif
}
#endif
