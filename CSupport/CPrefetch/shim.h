// The processor's prefetch hint, which Swift has no spelling for: the daemon warms the cache
// lines a pipelined request will read while the requests before it run.
#ifndef MILLRACE_CPREFETCH_SHIM_H
#define MILLRACE_CPREFETCH_SHIM_H

/// Asks the processor to bring the cache line of `address` in, for reading soon. A hint: it
/// never faults (any address may be given) and changes nothing a program can observe.
static inline void millrace_prefetch(const void *address) {
  __builtin_prefetch(address, 0, 3);
}
#endif
