/*
 * Who this process is (rank, size, whether ARMCI is initialized) and the error paths every
 * module reports through. Apart from ARMCI_Init / Finalize (armci_init.c), which calls into every
 * module: the modules depend on this file, and nothing here on them.
 */
#include "armci_arbor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int armcia_me = -1;
int armcia_nproc = 0;
int armcia_init_count; /* ARMCI_Init may be called more than once; Finalize as often */

void armcia_die(const char *where, int status)
{
    fprintf(stderr, "[armci-arbor %d] %s failed: %s\n", armcia_me, where,
            arbor_strerror((arbor_status_t)status));
    fflush(stderr);
    abort();
}

int armcia_status(const char *where, arbor_status_t status)
{
    if (status == ARBOR_OK) return 0;
    const char *verbose = getenv("ARMCI_ARBOR_VERBOSE");
    if (verbose && strcmp(verbose, "0") != 0)
        fprintf(stderr, "[armci-arbor %d] %s: %s\n", armcia_me, where, arbor_strerror(status));
    return (int)status;
}

int armcia_unsupported(const char *name)
{
    fprintf(stderr, "[armci-arbor %d] %s is not implemented by libarmci_arbor\n", armcia_me, name);
    fflush(stderr);
    return ARBOR_ERR_UNSUPPORTED;
}

int armcia_check_init(const char *where)
{
    if (armcia_init_count > 0) return 0;
    fprintf(stderr, "[armci-arbor] %s called before ARMCI_Init\n", where);
    return ARBOR_ERR_NOT_INITIALIZED;
}
