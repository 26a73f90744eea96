#ifndef CPREFS_PQ_H
#define CPREFS_PQ_H
// libpq from libpq-dev (Debian installs its headers under /usr/include/postgresql).
#include <postgresql/libpq-fe.h>
#endif
