// Thin shim over libuv (Debian: libuv1-dev). Only includes; helpers that Swift cannot express
// directly live in the MillraceUV C shims, not here.
#ifndef CLIBUV_SHIM_H
#define CLIBUV_SHIM_H
#include <uv.h>
#endif
