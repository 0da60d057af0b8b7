/* startup.c - the vector table of a Cortex-M program run under QEMU with semihosting.
 *
 * Reset enters newlib's crt0 (`_start` of rdimon.specs: it zeroes .bss, opens the
 * semihosting console, calls main and passes main's result to exit). Every fault prints
 * which one and ends the run as a failure, so that a trap fails the test instead of hanging
 * it until the timeout. */
#include <stdint.h>

extern void _start(void);
extern uint32_t __stack_top;

/* Semihosting: `bkpt 0xab` with the operation in r0 and its argument in r1. */
static void semihosting(uint32_t operation, const void *argument) {
    register uint32_t r0 __asm__("r0") = operation;
    register const void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

enum {
    SYS_WRITE0 = 0x04,
    SYS_EXIT = 0x18,
    /* SYS_EXIT's reason for an error: QEMU exits with status 1. */
    ADP_STOPPED_RUNTIME_ERROR_UNKNOWN = 0x20023,
};

static void fail(const char *what) {
    semihosting(SYS_WRITE0, what);
    semihosting(SYS_EXIT, (const void *)ADP_STOPPED_RUNTIME_ERROR_UNKNOWN);
    for (;;) {
    }
}

static void nmi(void) { fail("FAIL NMI\n"); }

/* Called by `hard_fault` with the stacked exception frame: r0-r3, r12, lr, pc, xpsr. */
__attribute__((used)) static void hard_fault_at(const uint32_t *frame) {
    static char message[] = "FAIL HardFault at pc 0x........ lr 0x........ (a trap: a failed "
                            "Swift precondition, or a bad access)\n";
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++) {
        message[23 + i] = digits[(frame[6] >> (28 - 4 * i)) & 0xf];
        message[37 + i] = digits[(frame[5] >> (28 - 4 * i)) & 0xf];
    }
    fail(message);
}

/* The frame is on the main stack: no task here runs on the process stack. */
__attribute__((naked)) static void hard_fault(void) {
    __asm__ volatile("mrs r0, msp\n\tb hard_fault_at");
}
static void other_fault(void) { fail("FAIL fault (MemManage, BusFault or UsageFault)\n"); }
static void unexpected(void) { fail("FAIL unexpected exception\n"); }

/* The 16 system vectors; no device interrupt is enabled. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))&__stack_top,
    _start,
    nmi,
    hard_fault,
    other_fault,
    other_fault,
    other_fault,
    0,
    0,
    0,
    0,
    unexpected,
    unexpected,
    0,
    unexpected,
    unexpected,
};
