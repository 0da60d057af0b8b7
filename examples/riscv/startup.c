/* startup.c - the trap handler of a RISC-V 32 program run under QEMU (`-M virt`, machine
 * mode) with semihosting.
 *
 * Reset enters picolibc's crt0 (`_start` of `--crt0=hosted`: it sets the stack and global
 * pointers, copies .data, zeroes .bss, runs the constructors, calls main and passes main's
 * result to exit, which semihosting turns into QEMU's exit status). The constructor below
 * points mtvec at `trap` before main runs: every exception (a failed Swift precondition is an
 * illegal instruction, a bad access a load or store fault; no interrupt is enabled) prints FAIL
 * with mcause, mepc and mtval and ends the run as a failure, so that a trap fails the test
 * instead of hanging it until the timeout. The handler runs on its own stack, whatever state
 * the program's stack is in. The constructor also makes the lowest STACK_GUARD bytes of the
 * stack (virt.ld) inaccessible with a locked PMP entry, so that a stack overflow is a store
 * fault rather than a silent write over the heap. The CSR instructions are enabled where
 * they are used (`.option arch, +zicsr`), so that the file builds with the same -march as
 * the rest (rv32imac). */
#include <stdint.h>

/* Semihosting: `ebreak` between the two marker instructions QEMU looks for, all three
 * uncompressed, with the operation in a0 and its argument in a1. */
static void semihosting(uintptr_t operation, const void *argument) {
    register uintptr_t a0 __asm__("a0") = operation;
    register const void *a1 __asm__("a1") = argument;
    __asm__ volatile(".option push\n\t"
                     ".option norvc\n\t"
                     ".balign 16\n\t"
                     "slli zero, zero, 0x1f\n\t"
                     "ebreak\n\t"
                     "srai zero, zero, 7\n\t"
                     ".option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
}

enum {
    SYS_WRITE0 = 0x04,
    SYS_EXIT = 0x18,
    /* SYS_EXIT's reason for an error: QEMU exits with status 1. */
    ADP_STOPPED_RUNTIME_ERROR_UNKNOWN = 0x20023,
};

static void put_hex(char *at, uint32_t value) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++) {
        at[i] = digits[(value >> (28 - 4 * i)) & 0xf];
    }
}

/* Called by `trap` on the trap stack. Never returns: mepc would resume the faulting
 * instruction. */
__attribute__((used, noreturn)) static void trap_at(uint32_t cause, uint32_t pc, uint32_t value) {
    static char message[] = "FAIL trap: mcause 0x........ mepc 0x........ mtval 0x........ "
                            "(2: an illegal instruction, as a failed Swift precondition; "
                            "3: ebreak, as C's __builtin_trap; 5 or 7: a bad access, or a stack "
                            "overflow)\n";
    put_hex(message + 20, cause);
    put_hex(message + 36, pc);
    put_hex(message + 53, value);
    semihosting(SYS_WRITE0, message);
    semihosting(SYS_EXIT, (const void *)ADP_STOPPED_RUNTIME_ERROR_UNKNOWN);
    for (;;) {
    }
}

/* The stack `trap` switches to: the program's may be what failed. */
static uint32_t trap_stack[256] __attribute__((aligned(16)));

/* mtvec in direct mode needs a 4-byte aligned address. Naked: no frame on the failed
 * program's stack. */
__attribute__((naked, aligned(4))) static void trap(void) {
    __asm__ volatile(".option push\n\t"
                     ".option arch, +zicsr\n\t"
                     "la sp, %0 + %1\n\t"
                     "csrr a0, mcause\n\t"
                     "csrr a1, mepc\n\t"
                     "csrr a2, mtval\n\t"
                     "j trap_at\n\t"
                     ".option pop"
                     :
                     : "i"(trap_stack), "i"(sizeof trap_stack));
}

/* The bottom of the stack: picolibc.ld's end of the heap, a multiple of STACK_GUARD
 * (virt.ld checks). */
extern char __heap_end[];

enum {
    STACK_GUARD = 256,
    /* pmpcfg: locked (it binds machine mode too), naturally aligned power-of-two region, no
     * read, write or execute. */
    PMP_LOCKED_NAPOT_NONE = 0x80 | 0x18,
};

__attribute__((constructor)) static void install_trap(void) {
    /* A NAPOT region of 2^n bytes at `base`: pmpaddr is base / 4 with its n - 3 low bits set. */
    uintptr_t guard = ((uintptr_t)__heap_end >> 2) | (STACK_GUARD / 8 - 1);

    __asm__ volatile(".option push\n\t"
                     ".option arch, +zicsr\n\t"
                     "csrw mtvec, %0\n\t"
                     "csrw pmpaddr0, %1\n\t"
                     "csrw pmpcfg0, %2\n\t"
                     ".option pop"
                     :
                     : "r"(trap), "r"(guard), "r"(PMP_LOCKED_NAPOT_NONE)
                     : "memory");
}
