/* millrace_libc.h - the C library functions that the library's Swift calls, declared here
 * because an Embedded Swift build for a microcontroller has no C library module. Not part of
 * the API (the CMillrace.LibC submodule; millrace.h does not include it). */
#ifndef MILLRACE_LIBC_H
#define MILLRACE_LIBC_H

#include <stddef.h>

void *malloc(size_t size);
void free(void *memory);

#endif
