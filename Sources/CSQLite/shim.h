/*
 * The system SQLite 3 (Debian's libsqlite3-dev), for the feed's durable checkpoints.
 *
 * Everything is a plain sqlite3_* call; the wrappers exist only where SQLite's interface is a macro Swift
 * cannot import: SQLITE_TRANSIENT, the destructor value that makes SQLite copy a bound text or blob.
 */
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/* Binds `length` bytes of UTF-8 text, copied by SQLite before it returns. */
static inline int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/* Binds `length` bytes, copied by SQLite before it returns; a zero-length blob is bound as an empty blob. */
static inline int csqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    if (length == 0) {
        return sqlite3_bind_zeroblob(statement, index, 0);
    }
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
