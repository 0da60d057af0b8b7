// Thin shim over libuv (Debian: libuv1-dev), and the kernel timer the loop polls beside it
// (`PeriodicTicker`: Linux's timerfd, which Glibc's Swift module leaves out). Only includes;
// helpers that Swift cannot express directly live in the MillraceUV C shims, not here.
#ifndef CLIBUV_SHIM_H
#define CLIBUV_SHIM_H
#include <uv.h>
#ifdef __linux__
#include <sys/timerfd.h>
#endif
#endif
