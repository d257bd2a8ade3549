/*
 * The system libpq (Debian's libpq-dev), the PostgreSQL client library of the FirestorePostgres product only: a
 * package that does not mirror into PostgreSQL never links it.
 *
 * Everything is a plain PQ* call; the one wrapper installs a notice processor that drops the server's notices
 * (libpq prints them on stderr by default: "relation ... already exists, skipping").
 */
#ifndef CPOSTGRES_SHIM_H
#define CPOSTGRES_SHIM_H

#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif

static void cpostgres_drop_notice(void *argument, const char *message) {
    (void)argument;
    (void)message;
}

/* Drops the server's notices on `connection` instead of printing them on stderr. */
static inline void cpostgres_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, cpostgres_drop_notice, NULL);
}

#endif
