/* auth.c - see auth.h. */
#include "auth.h"

#include <stddef.h>

enum { AUTH_QUEUE_DEFAULT, AUTH_QUEUE_REQUEST, AUTH_QUEUE_COUNT };

static const char *const auth_state_names[] = {"loggedOut", "loggingIn", "loggedIn", "loggingOut"};
static const char *const auth_input_names[] = {"login", "loginOK", "logout",
                                               "logoutOK", "forceLogout", "stop"};
static const char *const auth_output_names[] = {"welcome", "stopped"};

static const char *auth_name(const char *const *names, size_t count, int32_t value) {
    return value >= 0 && (size_t)value < count ? names[value] : "?";
}

const char *auth_state_name(int32_t state) {
    return auth_name(auth_state_names, sizeof auth_state_names / sizeof *auth_state_names, state);
}

const char *auth_input_name(int32_t input) {
    return auth_name(auth_input_names, sizeof auth_input_names / sizeof *auth_input_names, input);
}

const char *auth_output_name(int32_t output) {
    return auth_name(auth_output_names, sizeof auth_output_names / sizeof *auth_output_names,
                     output);
}

/* Starts the request that answers with `reply` after the delay, replacing any in flight. */
static int auth_request(const struct auth *auth, millrace_effects_t *effects, int32_t reply) {
    millrace_effects_after(effects, auth->delay_ns, reply, AUTH_QUEUE_REQUEST, auth->request_id);
    return MILLRACE_HANDLED;
}

static int auth_resolve(void *context, int32_t input, int32_t *state,
                        millrace_effects_t *effects) {
    const struct auth *auth = context;

    switch (input) {
    case AUTH_LOGIN:
        if (*state != AUTH_LOGGED_OUT) {
            return MILLRACE_REJECTED;
        }
        *state = AUTH_LOGGING_IN;
        return auth_request(auth, effects, AUTH_LOGIN_OK);
    case AUTH_LOGIN_OK:
        if (*state != AUTH_LOGGING_IN) {
            return MILLRACE_REJECTED;
        }
        *state = AUTH_LOGGED_IN;
        millrace_effects_emit(effects, AUTH_WELCOME);
        return MILLRACE_HANDLED;
    case AUTH_LOGOUT:
        if (*state != AUTH_LOGGED_IN) {
            return MILLRACE_REJECTED;
        }
        *state = AUTH_LOGGING_OUT;
        return auth_request(auth, effects, AUTH_LOGOUT_OK);
    case AUTH_FORCE_LOGOUT:
        if (*state != AUTH_LOGGING_IN && *state != AUTH_LOGGED_IN) {
            return MILLRACE_REJECTED;
        }
        *state = AUTH_LOGGING_OUT;
        return auth_request(auth, effects, AUTH_LOGOUT_OK);
    case AUTH_LOGOUT_OK:
        if (*state != AUTH_LOGGING_OUT) {
            return MILLRACE_REJECTED;
        }
        *state = AUTH_LOGGED_OUT;
        return MILLRACE_HANDLED;
    case AUTH_STOP:
        millrace_effects_cancel(effects, auth->request_id);
        millrace_effects_emit(effects, AUTH_STOPPED);
        return MILLRACE_HANDLED;
    default:
        return MILLRACE_REJECTED;
    }
}

int auth_spawn(millrace_runtime_t *runtime, struct auth *auth, uint64_t delay_ns,
               millrace_machine_t *machine) {
    static const millrace_queue_t queues[AUTH_QUEUE_COUNT] = {
        [AUTH_QUEUE_DEFAULT] = {.policy = MILLRACE_MERGE},
        [AUTH_QUEUE_REQUEST] = {.policy = MILLRACE_LATEST, .max = 1},
    };
    const millrace_machine_config_t config = {
        .resolve = auth_resolve,
        .context = auth,
        .initial_state = AUTH_LOGGED_OUT,
        .queues = queues,
        .queue_count = AUTH_QUEUE_COUNT,
    };

    auth->delay_ns = delay_ns;
    auth->request_id = millrace_effect_id("req", 3);
    return millrace_spawn(runtime, &config, machine);
}
