// Callgrind's client requests for the instruction counter (Sources/instructions): collection
// is switched on around the measured operations only (valgrind runs with
// --collect-atstart=no), so that what a hot path prepares and checks outside a benchmark's
// measurement is outside the count as well. Outside valgrind both are cheap no-ops.
#ifndef CALLGRIND_TOGGLE_H
#define CALLGRIND_TOGGLE_H
/// Switches callgrind's event collection on if off, off if on.
void bench_callgrind_toggle(void);
/// 1 when running under valgrind, 0 otherwise; -1 when built without valgrind's headers
/// (then the toggle does nothing and a callgrind run would count nothing).
int bench_callgrind_running(void);
#endif
