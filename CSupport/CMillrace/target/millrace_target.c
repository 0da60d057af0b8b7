/* millrace_target.c - what Embedded Swift needs from a bare-metal target that newlib and the
 * compiler's runtime do not provide, built into the microcontroller builds of libmillrace.a
 * (mk/arm.mk, mk/riscv.mk) so that a program needs nothing hand-written:
 *
 * - posix_memalign: the Swift runtime allocates with it; newlib declares it but does not
 *   define it. Defined on top of newlib's memalign, weak so that a C library that has one
 *   keeps its own. Not with picolibc (the RISC-V builds, mk/riscv.mk), which defines it: its
 *   own is linked. picolibc has everything else Embedded Swift calls, and RISC-V's A
 *   extension (rv32imac) has the atomics, so a RISC-V build of this file is empty.
 * - On ARMv6-M (Cortex-M0/M0+/M1), which has no exclusive loads and stores, the 4-byte
 *   atomics that the Swift runtime's reference counting compiles to: each one a few
 *   instructions with interrupts masked, which makes it atomic on a single core. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if !defined(__PICOLIBC__)
#include <malloc.h>

__attribute__((weak)) int posix_memalign(void **memory, size_t alignment, size_t size) {
    void *block;

    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    block = memalign(alignment, size);
    if (block == NULL) {
        return ENOMEM;
    }
    *memory = block;
    return 0;
}
#endif

#if defined(__ARM_ARCH_6M__)
#include <stdbool.h>

/* The compiler's own declarations of these library functions use `void *` and `int`
 * orderings; these definitions match what it calls. */
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"

static inline uint32_t interrupts_off(void) {
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    return primask;
}

static inline void interrupts_restore(uint32_t primask) {
    __asm__ volatile("msr primask, %0" : : "r"(primask) : "memory");
}

uint32_t __atomic_load_4(const volatile void *address, int order) {
    uint32_t saved = interrupts_off();
    uint32_t value = *(const volatile uint32_t *)address;
    (void)order;
    interrupts_restore(saved);
    return value;
}

void __atomic_store_4(volatile void *address, uint32_t value, int order) {
    uint32_t saved = interrupts_off();
    (void)order;
    *(volatile uint32_t *)address = value;
    interrupts_restore(saved);
}

/* `*address = update(old)` with interrupts masked: `add` is added to the old value, or
 * replaces it when `replace` is set. Returns the old value. */
static uint32_t update(volatile void *address, uint32_t add, bool replace) {
    uint32_t saved = interrupts_off();
    uint32_t old = *(volatile uint32_t *)address;
    *(volatile uint32_t *)address = replace ? add : old + add;
    interrupts_restore(saved);
    return old;
}

uint32_t __atomic_exchange_4(volatile void *address, uint32_t value, int order) {
    (void)order;
    return update(address, value, true);
}

uint32_t __atomic_fetch_add_4(volatile void *address, uint32_t value, int order) {
    (void)order;
    return update(address, value, false);
}

uint32_t __atomic_fetch_sub_4(volatile void *address, uint32_t value, int order) {
    (void)order;
    return update(address, 0u - value, false);
}

bool __atomic_compare_exchange_4(volatile void *address, void *expected, uint32_t desired,
                                 bool weak, int success, int failure) {
    uint32_t saved = interrupts_off();
    uint32_t current = *(volatile uint32_t *)address;
    bool equal = current == *(uint32_t *)expected;
    (void)weak;
    (void)success;
    (void)failure;
    if (equal) {
        *(volatile uint32_t *)address = desired;
    } else {
        *(uint32_t *)expected = current;
    }
    interrupts_restore(saved);
    return equal;
}
#endif
