// The process's memory, where Swift's Glibc module does not reach: glibc's heap statistics
// (malloc.h), for the daemon's INFO memory section, and the process's transparent huge pages
// (prctl, which is variadic and so not callable from Swift). Linux here means glibc 2.33 or
// later (mallinfo2); the test is on __linux__ because glibc's own version macros are not
// visible through Swift's module import of its headers.
#ifndef MILLRACE_CHEAP_SHIM_H
#define MILLRACE_CHEAP_SHIM_H
#include <stddef.h>
#if defined(__linux__)
#include <malloc.h>
#include <sys/prctl.h>
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

/// Turns transparent huge pages off for the whole process and the threads it starts
/// (`PR_SET_THP_DISABLE`, Linux 3.15 and later); returns whether the system took it (0 where
/// there is no such option, or not Linux: nothing changes).
static inline int millrace_disable_transparent_huge_pages(void) {
#if defined(__linux__) && defined(PR_SET_THP_DISABLE)
  return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0;
#else
  return 0;
#endif
}
#endif
