/* check.c - see check.h. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>

static unsigned check_passed;
static unsigned check_failed;

bool check(bool ok, const char *what, ...) {
    va_list arguments;
    if (ok) {
        check_passed++;
    } else {
        check_failed++;
    }
    fputs(ok ? "ok   " : "FAIL ", stdout);
    va_start(arguments, what);
    vprintf(what, arguments);
    va_end(arguments);
    putchar('\n');
    return ok;
}

int check_summary(void) {
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}
