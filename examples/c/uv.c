/* uv.c - the auth scenario on a libuv loop in real time (a tick is 20 ms, the scenario takes
 * under a second), against the normal (non-embedded) build: the runtime is attached to the
 * loop with millrace_uv_attach(), and a uv timer performs the scenario's acts. */
#include <stdio.h>
#include <uv.h>

#include "scenario.h"

enum { UV_TICK_MS = 20, UV_BATCH = 64 };

struct driver {
    struct scenario scenario;
    millrace_uv_t *attachment;
    uv_timer_t timer;
    uint64_t start_ms;
    size_t act;
};

static void driver_schedule(struct driver *driver);

static void driver_on_timer(uv_timer_t *timer) {
    struct driver *driver = timer->data;

    scenario_act(&driver->scenario, driver->act++);
    if (driver->act < scenario_acts()) {
        driver_schedule(driver);
        return;
    }
    millrace_uv_detach(driver->attachment);
    uv_close((uv_handle_t *)&driver->timer, NULL);
}

/* Arms the timer for the next act, counted from the start so that delays do not add up. */
static void driver_schedule(struct driver *driver) {
    uint64_t due = driver->start_ms + scenario_time(&driver->scenario, driver->act) / 1000000;
    uint64_t now = uv_now(driver->timer.loop);

    uv_timer_start(&driver->timer, driver_on_timer, due > now ? due - now : 0, 0);
}

int main(void) {
    static struct driver driver;
    uv_loop_t loop;
    int result;

    if (uv_loop_init(&loop) != 0 ||
        scenario_start(&driver.scenario, (uint64_t)UV_TICK_MS * 1000000) != 0) {
        return 1;
    }
    result = millrace_uv_attach(driver.scenario.runtime, &loop, UV_BATCH, &driver.attachment);
    if (result != MILLRACE_OK) {
        printf("FAIL millrace_uv_attach: %d\n", result);
        return 1;
    }
    uv_timer_init(&loop, &driver.timer);
    driver.timer.data = &driver;
    driver.start_ms = uv_now(&loop);
    driver_schedule(&driver);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return scenario_finish(&driver.scenario);
}
