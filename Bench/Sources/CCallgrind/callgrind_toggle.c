#include "callgrind_toggle.h"

// Debian's `valgrind` package ships the client-request headers; Bench/scripts/instructions.sh
// installs it before building.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>

void bench_callgrind_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
int bench_callgrind_running(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }
#else
void bench_callgrind_toggle(void) {}
int bench_callgrind_running(void) { return -1; }
#endif
