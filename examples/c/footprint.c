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
 * ring of `inputs`, `effects` effect slots, a merge queue and `bounded` latest queues. */
static struct blocks measure_spawn(uint32_t inputs, uint32_t effects, uint32_t bounded,
                                   bool observe) {
    static const millrace_queue_t queues[4] = {
        {MILLRACE_MERGE, 0}, {MILLRACE_LATEST, 1}, {MILLRACE_LATEST, 1}, {MILLRACE_LATEST, 1}};
    const millrace_capacity_t capacity = {.machines = 4, .effects_per_machine = effects};
    const millrace_machine_config_t config = {
        .resolve = idle, .input_capacity = inputs, .queues = queues, .queue_count = 1 + bounded};
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

int main(void) {
    enum { INPUTS = 8, EFFECTS = 4 };
    struct blocks base = measure_spawn(INPUTS, EFFECTS, 0, false);
    struct blocks inputs = measure_spawn(2 * INPUTS, EFFECTS, 0, false);
    struct blocks effects = measure_spawn(INPUTS, 2 * EFFECTS, 0, false);
    struct blocks bounded = measure_spawn(INPUTS, EFFECTS, 1, false);
    struct blocks observed = measure_spawn(INPUTS, EFFECTS, 0, true);
    size_t record = (measure_create(16) - measure_create(8)) / 8;
    size_t per_input, per_effect, per_bounded, own, framework;

    if (base.count != 1 || inputs.count != 1 || effects.count != 1 || bounded.count != 1) {
        printf("footprint: a spawn kept %zu blocks, expected its one block\n", base.count);
        return 1;
    }
    per_input = (inputs.size[0] - base.size[0]) / INPUTS;
    per_effect = (effects.size[0] - base.size[0]) / EFFECTS;
    per_bounded = bounded.size[0] - base.size[0];
    own = base.size[0] - INPUTS * per_input - EFFECTS * per_effect;

    printf("RAM per machine (Embedded Swift build; method: the allocator is wrapped and the blocks\n"
           "a runtime keeps per machine slot and one spawn keeps are measured; spawning with a\n"
           "longer ring, more effect slots or a bounded queue tells the parts of the block apart;\n"
           "sizes are the bytes requested):\n");
    printf("  machine record, reserved at create per machine slot: %zu bytes\n", record);
    printf("  spawn(input ring %d, effect slots %d, one merge queue) keeps 1 block, %zu bytes"
           " (%zu in a glibc chunk):\n",
           INPUTS, EFFECTS, base.size[0], heap_total(&base));
    printf("    %5zu  input ring    (%zu bytes per queued input)\n", INPUTS * per_input, per_input);
    printf("    %5zu  effect slots  (%zu bytes per in-flight effect)\n", EFFECTS * per_effect,
           per_effect);
    printf("    %5zu  the machine's own data: its int32 state and its extra (resolver and"
           " context pointers), with alignment\n",
           own);
    printf("  each latest/oldest queue adds %zu bytes of lists to the block (merge queues none)\n",
           per_bounded);
    printf("  millrace_observe() adds %zu bytes in %zu blocks (only for observed machines)\n",
           total(&observed), observed.count);
    /* The block's allocator header is part of what a machine costs; glibc's is one size_t
     * (its chunks also round to 16 bytes, which depends on the slot counts, not the machine). */
    framework = record + sizeof(size_t);
    printf("  per machine beyond its queue slots and its own data: %zu bytes"
           " (record %zu + the block's allocator header %zu)\n",
           framework, record, sizeof(size_t));
    printf("  glibc also rounds each block up to 16 bytes: %zu more for this block (0 to 15"
           " depending on the slot counts)\n",
           heap_total(&base) - base.size[0] - sizeof(size_t));
    printf("  with its own data: %zu bytes\n", framework + own);
    if (framework <= BUDGET_BYTES) {
        printf("  budget %d bytes: met\n", BUDGET_BYTES);
    } else {
        printf("  budget %d bytes: OVER by %zu bytes (see docs/c-api.md, Footprint)\n",
               BUDGET_BYTES, framework - BUDGET_BYTES);
    }
    return 0;
}
