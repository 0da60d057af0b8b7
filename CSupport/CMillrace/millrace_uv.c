/* millrace_uv.c - attaches a Millrace runtime to a libuv loop (millrace.h, "libuv
 * attachment"), on top of the public C API only, so that libmillrace.a itself needs nothing
 * but libc.
 *
 * Three handles step the runtime: a prepare handle before each poll (inputs posted from
 * timer callbacks), a check handle after each poll (inputs posted from I/O callbacks), and a
 * timer at the runtime's next deadline. Prepare and check are unreferenced, so they never keep
 * the loop alive; the timer is referenced while a machine timer is armed. */
#include "millrace.h"

#include <stdlib.h>
#include <uv.h>

enum { MILLRACE_UV_HANDLES = 3 };

struct millrace_uv {
    uv_prepare_t prepare;
    uv_check_t check;
    uv_timer_t timer;
    millrace_runtime_t *runtime;
    uint64_t origin;   /* uv_hrtime() at runtime time 0 */
    uint64_t armed;    /* the deadline the timer is armed for; MILLRACE_NO_DEADLINE if none */
    size_t budget;
    int open_handles;
};

static void millrace_uv_on_timer(uv_timer_t *timer);

/* Arms the timer for `deadline`, rounding up to libuv's millisecond resolution so that it
 * never fires before the deadline; stops it when there is no deadline. */
static void millrace_uv_arm(millrace_uv_t *uv, uint64_t deadline, uint64_t now) {
    if (deadline == uv->armed) {
        return;
    }
    uv->armed = deadline;
    if (deadline == MILLRACE_NO_DEADLINE) {
        uv_timer_stop(&uv->timer);
        return;
    }
    uv_timer_start(&uv->timer, millrace_uv_on_timer,
                   deadline <= now ? 0 : (deadline - now + 999999) / 1000000, 0);
}

/* Steps the runtime to the current time and re-arms the timer. */
static void millrace_uv_step(millrace_uv_t *uv) {
    uint64_t now = uv_hrtime() - uv->origin;

    millrace_step(uv->runtime, now, uv->budget);
    millrace_uv_arm(uv, millrace_next_deadline(uv->runtime), now);
}

static void millrace_uv_on_prepare(uv_prepare_t *prepare) {
    millrace_uv_step(prepare->data);
}

static void millrace_uv_on_check(uv_check_t *check) {
    millrace_uv_step(check->data);
}

static void millrace_uv_on_timer(uv_timer_t *timer) {
    millrace_uv_t *uv = timer->data;

    uv->armed = MILLRACE_NO_DEADLINE; /* one-shot: it is no longer armed */
    millrace_uv_step(uv);
}

static void millrace_uv_on_close(uv_handle_t *handle) {
    millrace_uv_t *uv = handle->data;

    if (--uv->open_handles == 0) {
        free(uv);
    }
}

int millrace_uv_attach(millrace_runtime_t *runtime, struct uv_loop_s *loop, size_t budget,
                       millrace_uv_t **out) {
    millrace_uv_t *uv;
    int error;

    if (runtime == NULL || loop == NULL || out == NULL) {
        return MILLRACE_INVALID;
    }
    uv = calloc(1, sizeof *uv);
    if (uv == NULL) {
        return UV_ENOMEM;
    }
    error = uv_prepare_init(loop, &uv->prepare);
    if (error == 0) {
        uv->open_handles++;
        error = uv_check_init(loop, &uv->check);
    }
    if (error == 0) {
        uv->open_handles++;
        error = uv_timer_init(loop, &uv->timer);
    }
    if (error == 0) {
        uv->open_handles++;
    }
    uv->prepare.data = uv->check.data = uv->timer.data = uv;
    uv->runtime = runtime;
    uv->origin = uv_hrtime() - millrace_now(runtime);
    uv->armed = MILLRACE_NO_DEADLINE;
    uv->budget = budget;
    if (error != 0) {
        millrace_uv_detach(uv);
        return error;
    }
    uv_prepare_start(&uv->prepare, millrace_uv_on_prepare);
    uv_check_start(&uv->check, millrace_uv_on_check);
    uv_unref((uv_handle_t *)&uv->prepare);
    uv_unref((uv_handle_t *)&uv->check);
    millrace_uv_wake(uv);
    *out = uv;
    return MILLRACE_OK;
}

void millrace_uv_wake(millrace_uv_t *uv) {
    if (uv != NULL) {
        millrace_uv_arm(uv, 0, 0);
    }
}

void millrace_uv_detach(millrace_uv_t *uv) {
    uv_handle_t *handles[MILLRACE_UV_HANDLES];
    int open;

    if (uv == NULL) {
        return;
    }
    handles[0] = (uv_handle_t *)&uv->prepare;
    handles[1] = (uv_handle_t *)&uv->check;
    handles[2] = (uv_handle_t *)&uv->timer;
    open = uv->open_handles;
    if (open == 0) {
        free(uv);
        return;
    }
    for (int index = 0; index < open; index++) {
        uv_close(handles[index], millrace_uv_on_close);
    }
}
