/* footprint.c - measures the RAM one machine costs, by watching the allocator.
 *
 * Linked against libmillrace.a with the allocator wrapped (ld --wrap=posix_memalign and
 * friends), it records every block the library allocates while tracking is on and forgets
 * the ones it frees. Machines of one variant take their blocks from chunks of 1, 2, 4, ... up
 * to 64 blocks, so it spawns a first machine (untracked: the variant and its first chunk) and
 * then SPAWNS more, which fill the chunks of 2 to 32 blocks exactly, and divides. Spawning
 * with more queues shows what they add, so every part is named by measurement, not by reading
 * the code. Runtime tables sized per machine slot are measured the same way, by creating
 * runtimes of 8 and 16 machine slots, and the cells of the runtime-wide input and effect
 * pools by a first spawn into runtimes whose pools differ by 64 cells. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "millrace.h"

enum { MAX_BLOCKS = 64, BUDGET_BYTES = 64, SPAWNS = 62 };

/* ---- allocator wrapper ---- */

struct blocks {
    void *pointer[MAX_BLOCKS];
    size_t size[MAX_BLOCKS];
    size_t count;
    size_t heap; /* what glibc set aside for them, read while they were allocated */
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

/* The blocks SPAWNS spawns keep (after a first one) with an input ring of `inputs`,
 * `effects` effect slots, a merge queue and `bounded` latest queues; with `observe`, the
 * blocks one millrace_observe() of a machine not yet observed keeps instead. */
static struct blocks measure_spawns(uint32_t inputs, uint32_t effects, uint32_t bounded,
                                    bool observe) {
    static const millrace_queue_t queues[4] = {
        {MILLRACE_MERGE, 0}, {MILLRACE_LATEST, 1}, {MILLRACE_LATEST, 1}, {MILLRACE_LATEST, 1}};
    const millrace_capacity_t capacity = {.machines = SPAWNS + 2,
                                          .effects_per_machine = effects};
    const millrace_machine_config_t config = {
        .resolve = idle, .input_capacity = inputs, .queues = queues, .queue_count = 1 + bounded};
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t machine;
    struct blocks kept;

    millrace_create(&capacity, &runtime);
    millrace_spawn(runtime, &config, &machine);
    millrace_observe(runtime, machine, observer, NULL);
    if (observe) {
        millrace_spawn(runtime, &config, &machine);
        track(true);
        millrace_observe(runtime, machine, observer, NULL);
    } else {
        track(true);
        for (int index = 0; index < SPAWNS; index++) {
            millrace_spawn(runtime, &config, &machine);
        }
    }
    track(false);
    kept = tracked;
    kept.heap = heap_total(&kept);
    millrace_destroy(runtime);
    return kept;
}

/* The bytes the first spawn (which makes the variant) and SPAWNS more allocate when the runtime
 * reserved `block_bytes` at creation. */
static size_t measure_reserved_spawns(uint32_t inputs, uint32_t effects, size_t *first) {
    const millrace_capacity_t capacity = {.machines = SPAWNS + 1,
                                          .effects_per_machine = effects,
                                          .block_bytes = (SPAWNS + 1) * 2048};
    const millrace_machine_config_t config = {.resolve = idle, .input_capacity = inputs};
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t machine;
    size_t bytes;
    int refused = 0;

    millrace_create(&capacity, &runtime);
    track(true);
    refused += millrace_spawn(runtime, &config, &machine) != MILLRACE_OK;
    track(false);
    *first = total(&tracked);
    track(true);
    for (int index = 0; index < SPAWNS; index++) {
        refused += millrace_spawn(runtime, &config, &machine) != MILLRACE_OK;
    }
    track(false);
    bytes = total(&tracked);
    millrace_destroy(runtime);
    return refused == 0 ? bytes : (size_t)-1;
}

/* The bytes a runtime allocates from its creation through its first spawn (which makes the
 * variant and the pools of queued inputs and in-flight effects), with pools of `inputs` and
 * `effects` cells. */
static size_t measure_first_spawn(uint32_t inputs, uint32_t effects) {
    const millrace_capacity_t capacity = {.machines = 8, .inputs = inputs, .effects = effects};
    const millrace_machine_config_t config = {.resolve = idle};
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t machine;
    size_t bytes;

    track(true);
    millrace_create(&capacity, &runtime);
    millrace_spawn(runtime, &config, &machine);
    track(false);
    bytes = total(&tracked);
    millrace_destroy(runtime);
    return bytes;
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

int main(void) {
    enum { INPUTS = 8, EFFECTS = 4 };
    enum { CELLS = 64 };
    struct blocks base = measure_spawns(INPUTS, EFFECTS, 0, false);
    struct blocks longer = measure_spawns(2 * INPUTS, 2 * EFFECTS, 0, false);
    struct blocks bounded = measure_spawns(INPUTS, EFFECTS, 1, false);
    struct blocks observed = measure_spawns(INPUTS, EFFECTS, 0, true);
    size_t record = (measure_create(16) - measure_create(8)) / 8;
    size_t first = measure_first_spawn(CELLS, CELLS);
    size_t per_input = (measure_first_spawn(2 * CELLS, CELLS) - first) / CELLS;
    size_t per_effect = (measure_first_spawn(CELLS, 2 * CELLS) - first) / CELLS;
    /* Each chunk after a variant's first ends with one pointer linking the chunks. */
    size_t links = base.count * sizeof(void *);
    size_t block, per_bounded, reserved, variant;
    double chunk_overhead, framework;

    if (base.count != bounded.count || total(&base) != total(&longer)) {
        printf("footprint: a machine's block changed with its queue limits, or the spawns kept"
               " different numbers of chunks\n");
        return 1;
    }
    block = (total(&base) - links) / SPAWNS;
    per_bounded = (total(&bounded) - total(&base)) / SPAWNS;
    /* What the chunks cost beyond their blocks: the links, and glibc's header and rounding. */
    chunk_overhead = (double)(base.heap - SPAWNS * block) / SPAWNS;
    framework = (double)record + chunk_overhead;

    printf("RAM per machine (Embedded Swift build; method: the allocator is wrapped and the bytes\n"
           "a runtime keeps per machine slot and %d spawns of one variant keep are measured;\n"
           "spawning with a bounded queue, or into pools of more cells, tells the parts\n"
           "apart; sizes are the bytes requested, unless marked glibc):\n",
           SPAWNS);
    printf("  machine record, reserved at create per machine slot: %zu bytes\n", record);
    printf("  queued inputs (but one alone in its queue, which waits in the block) and in-flight\n"
           "  effects are cells of runtime-wide pools (capacity.inputs, capacity.effects), made at\n"
           "  a variant's first spawn: %zu bytes per input cell, %zu per effect cell; an idle machine\n"
           "  holds none, and its per-machine limits (%d inputs, %d effects) reserve nothing\n",
           per_input, per_effect, INPUTS, EFFECTS);
    printf("  %d spawns (one merge queue) keep %zu chunks, %zu bytes (%zu as glibc sets them"
           " aside):\n  a block of %zu bytes each, the machine's own data: its int32 state, a slot"
           " for one\n  queued input (in the padding) and its extra (resolver and context"
           " pointers), with alignment\n",
           SPAWNS, base.count, total(&base), base.heap, block);
    printf("  each latest/oldest queue adds %zu bytes of lists to the block (merge queues none)\n",
           per_bounded);
    printf("  millrace_observe() adds %zu bytes in %zu blocks (only for observed machines)\n",
           total(&observed), observed.count);
    printf("  the chunks' links, glibc headers and rounding: %.1f bytes per machine\n",
           chunk_overhead);
    printf("  per machine beyond its own data: %.1f bytes"
           " (record %zu + %.1f of chunk overhead)\n",
           framework, record, chunk_overhead);
    printf("  a variant's first machine has a chunk of its own: record %zu + glibc's header %zu"
           " (+ 0 to 15 of rounding, by slot counts)\n",
           record, sizeof(size_t));
    printf("  with its own data: %.1f bytes\n", framework + (double)block);
    reserved = measure_reserved_spawns(INPUTS, EFFECTS, &variant);
    if (reserved == (size_t)-1) {
        printf("footprint: spawns into reserved block bytes were refused\n");
        return 1;
    }
    printf("  with block_bytes reserved at create: a variant's first spawn allocates %zu bytes (the"
           " variant,\n  shared), the %d after it %zu; every machine costs its record (%zu) beyond"
           " its %zu-byte block\n",
           variant, SPAWNS, reserved, record, block);
    if (framework < BUDGET_BYTES) {
        printf("  budget under %d bytes: met\n", BUDGET_BYTES);
    } else {
        printf("  budget under %d bytes: OVER by %.1f bytes (see docs/c-api.md, Footprint)\n",
               BUDGET_BYTES, framework - BUDGET_BYTES);
    }
    return 0;
}
