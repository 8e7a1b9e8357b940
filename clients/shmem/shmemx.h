/*
 * shmemx.h: OpenSHMEM implementation extensions. libshmem_arbor has none; the header exists
 * because portable programs and test suites include it unconditionally.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "shmem.h"

#endif
