// Thin shim over SQLite 3 (Debian: libsqlite3-dev).
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
