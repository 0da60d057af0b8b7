/* footprint.c - measures the RAM one machine costs, by watching the allocator.
 *
 * Linked against libmillrace.a with the allocator wrapped (ld --wrap=posix_memalign and
 * friends), it records every block the library allocates while tracking is on and forgets
 * the ones it frees. It spawns a machine (after a first, untracked one, so that one-time
 * allocations do not count) and lists the blocks the spawn keeps. Spawning again with a
 * longer input ring, more effect slots, or more queues shows which block grows with which,
 * so every block is named by measurement, not by reading the code. Runtime tables sized per
 * machine slot are measured the same way, by creating runtimes of 8 and 16 machine slots. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "millrace.h"

enum { MAX_BLOCKS = 64, BUDGET_BYTES = 64 };

/* ---- allocator wrapper ---- */

struct blocks {
    void *pointer[MAX_BLOCKS];
    size_t size[MAX_BLOCKS];
    size_t count;
};

static struct blocks tracked;
static bool tracking;

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
int __real_posix_memalign(void **pointer, size_t alignment, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
void __real_free(void *pointer);

static void note_allocation(void *pointer, size_t size) {
    if (tracking && pointer != NULL && tracked.count < MAX_BLOCKS) {
        tracked.pointer[tracked.count] = pointer;
        tracked.size[tracked.count++] = size;
    }
}

static void note_free(void *pointer) {
    for (size_t index = 0; index < tracked.count; index++) {
        if (tracked.pointer[index] == pointer) {
            for (size_t next = index + 1; next < tracked.count; next++) {
                tracked.pointer[next - 1] = tracked.pointer[next];
                tracked.size[next - 1] = tracked.size[next];
            }
            tracked.count--;
            return;
        }
    }
}

void *__wrap_malloc(size_t size) {
    void *pointer = __real_malloc(size);
    note_allocation(pointer, size);
    return pointer;
}

void *__wrap_calloc(size_t count, size_t size) {
    void *pointer = __real_calloc(count, size);
    note_allocation(pointer, count * size);
    return pointer;
}

void *__wrap_realloc(void *old, size_t size) {
    void *pointer = __real_realloc(old, size);
    if (pointer != NULL) {
        note_free(old);
        note_allocation(pointer, size);
    }
    return pointer;
}

int __wrap_posix_memalign(void **pointer, size_t alignment, size_t size) {
    int result = __real_posix_memalign(pointer, alignment, size);
    if (result == 0) {
        note_allocation(*pointer, size);
    }
    return result;
}

void *__wrap_aligned_alloc(size_t alignment, size_t size) {
    void *pointer = __real_aligned_alloc(alignment, size);
    note_allocation(pointer, size);
    return pointer;
}

void __wrap_free(void *pointer) {
    note_free(pointer);
    __real_free(pointer);
}

static void track(bool on) {
    if (on) {
        tracked.count = 0;
    }
    tracking = on;
}

static size_t total(const struct blocks *blocks) {
    size_t sum = 0;
    for (size_t index = 0; index < blocks->count; index++) {
        sum += blocks->size[index];
    }
    return sum;
}

/* What glibc really sets aside for the blocks: usable size plus its 8-byte chunk header. */
static size_t heap_total(const struct blocks *blocks) {
    size_t sum = 0;
    for (size_t index = 0; index < blocks->count; index++) {
        sum += malloc_usable_size(blocks->pointer[index]) + sizeof(size_t);
    }
    return sum;
}

/* ---- measurements ---- */

static int idle(void *context, int32_t input, int32_t *state, millrace_effects_t *effects) {
    (void)context, (void)input, (void)state, (void)effects;
    return MILLRACE_HANDLED;
}

static void observer(void *context, millrace_machine_t machine, const millrace_event_t *event) {
    (void)context, (void)machine, (void)event;
}

/* The blocks one spawn keeps (and, if `observe`, one millrace_observe() keeps) with an input
 * ring of `inputs`, `effects` effect slots and `queues` merge queues. */
static struct blocks measure_spawn(uint32_t inputs, uint32_t effects, uint32_t queues,
                                   bool observe) {
    static const millrace_queue_t merge[4] = {{0}};
    const millrace_capacity_t capacity = {.machines = 4, .effects_per_machine = effects};
    const millrace_machine_config_t config = {
        .resolve = idle, .input_capacity = inputs, .queues = merge, .queue_count = queues};
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t machine;
    struct blocks kept;

    millrace_create(&capacity, &runtime);
    millrace_spawn(runtime, &config, &machine);
    millrace_observe(runtime, machine, observer, NULL);
    track(true);
    millrace_spawn(runtime, &config, &machine);
    if (observe) {
        tracked.count = 0;
        millrace_observe(runtime, machine, observer, NULL);
    }
    track(false);
    kept = tracked;
    millrace_destroy(runtime);
    return kept;
}

/* The bytes a runtime keeps at creation with `machines` machine slots. */
static size_t measure_create(uint32_t machines) {
    const millrace_capacity_t capacity = {.machines = machines};
    millrace_runtime_t *runtime = NULL;
    size_t bytes;

    track(true);
    millrace_create(&capacity, &runtime);
    track(false);
    bytes = total(&tracked);
    millrace_destroy(runtime);
    return bytes;
}

/* The index of the first block whose size differs between `base` and `other`, or -1. */
static int grown_block(const struct blocks *base, const struct blocks *other) {
    for (size_t index = 0; index < base->count; index++) {
        if (base->size[index] != other->size[index]) {
            return (int)index;
        }
    }
    return -1;
}

int main(void) {
    enum { INPUTS = 8, EFFECTS = 4, QUEUES = 1 };
    struct blocks base = measure_spawn(INPUTS, EFFECTS, QUEUES, false);
    struct blocks inputs = measure_spawn(2 * INPUTS, EFFECTS, QUEUES, false);
    struct blocks effects = measure_spawn(INPUTS, 2 * EFFECTS, QUEUES, false);
    struct blocks queues = measure_spawn(INPUTS, EFFECTS, QUEUES + 1, false);
    struct blocks observed = measure_spawn(INPUTS, EFFECTS, QUEUES, true);
    size_t per_slot = (measure_create(16) - measure_create(8)) / 8;
    int ring, slots, table;
    size_t fixed = 0, machine;

    if (inputs.count != base.count || effects.count != base.count || queues.count != base.count) {
        printf("footprint: spawns kept different numbers of blocks; cannot tell them apart\n");
        return 1;
    }
    ring = grown_block(&base, &inputs);
    slots = grown_block(&base, &effects);
    table = grown_block(&base, &queues);
    if (ring < 0 || slots < 0 || table < 0) {
        printf("footprint: a block did not grow with its parameter\n");
        return 1;
    }

    printf("RAM per machine (Embedded Swift build; method: the allocator is wrapped and the blocks\n"
           "one spawn keeps are listed; spawning with a longer ring, more effect slots or more\n"
           "queues names each block by which one grows; sizes are the bytes requested):\n");
    printf("  spawn(input ring %d, effect slots %d, queues %d) keeps %zu blocks, %zu bytes"
           " (%zu in glibc chunks):\n",
           INPUTS, EFFECTS, QUEUES, base.count, total(&base), heap_total(&base));
    for (size_t index = 0; index < base.count; index++) {
        size_t size = base.size[index];
        if ((int)index == ring) {
            printf("    %5zu  input ring    (%zu bytes per queued input)\n", size,
                   (inputs.size[index] - size) / INPUTS);
        } else if ((int)index == slots) {
            printf("    %5zu  effect slots  (%zu bytes per in-flight effect)\n", size,
                   (effects.size[index] - size) / EFFECTS);
        } else if ((int)index == table) {
            printf("    %5zu  queue table   (%zu bytes per queue, %zu of header)\n", size,
                   queues.size[index] - size, size - (queues.size[index] - size) * QUEUES);
        } else {
            printf("    %5zu  machine object (fixed size)\n", size);
            fixed += size;
        }
    }
    printf("  runtime tables, reserved at create per machine slot: %zu bytes\n", per_slot);
    printf("  millrace_observe() adds %zu bytes in %zu blocks (only for observed machines)\n",
           total(&observed), observed.count);
    machine = fixed + base.size[table] + per_slot;
    printf("  per machine beyond its queue slots (object + queue table + runtime slot): "
           "%zu + %zu + %zu = %zu bytes\n",
           fixed, base.size[table], per_slot, machine);
    if (machine <= BUDGET_BYTES) {
        printf("  budget %d bytes: met\n", BUDGET_BYTES);
    } else {
        printf("  budget %d bytes: OVER by %zu bytes (see docs/c-api.md, Footprint)\n",
               BUDGET_BYTES, machine - BUDGET_BYTES);
    }
    return 0;
}
