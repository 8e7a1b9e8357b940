/* Status code names. */
#include "arbor.h"

const char *arbor_strerror(arbor_status_t status)
{
    switch (status) {
    case ARBOR_OK:
        return "ARBOR_OK: success";
    case ARBOR_INPROGRESS:
        return "ARBOR_INPROGRESS: operation not complete yet";
    case ARBOR_ERR_INVALID_ARG:
        return "ARBOR_ERR_INVALID_ARG: invalid argument";
    case ARBOR_ERR_NOT_INITIALIZED:
        return "ARBOR_ERR_NOT_INITIALIZED: arbor_init has not succeeded";
    case ARBOR_ERR_CONFIG:
        return "ARBOR_ERR_CONFIG: bad ARBOR_* configuration value";
    case ARBOR_ERR_TEAM:
        return "ARBOR_ERR_TEAM: unknown, freed or failed team";
    case ARBOR_ERR_RANK:
        return "ARBOR_ERR_RANK: rank out of range";
    case ARBOR_ERR_ROOT:
        return "ARBOR_ERR_ROOT: root out of range";
    case ARBOR_ERR_COUNT:
        return "ARBOR_ERR_COUNT: invalid count or size";
    case ARBOR_ERR_DATATYPE:
        return "ARBOR_ERR_DATATYPE: unknown datatype";
    case ARBOR_ERR_OP:
        return "ARBOR_ERR_OP: unknown operation or not defined for the datatype";
    case ARBOR_ERR_FLAGS:
        return "ARBOR_ERR_FLAGS: invalid flags";
    case ARBOR_ERR_BUFFER:
        return "ARBOR_ERR_BUFFER: NULL buffer with a nonzero size";
    case ARBOR_ERR_HANDLE:
        return "ARBOR_ERR_HANDLE: unknown, completed or freed handle";
    case ARBOR_ERR_NO_MEMORY:
        return "ARBOR_ERR_NO_MEMORY: out of memory or segment space";
    case ARBOR_ERR_TRANSPORT:
        return "ARBOR_ERR_TRANSPORT: transport error";
    case ARBOR_ERR_TIMEOUT:
        return "ARBOR_ERR_TIMEOUT: no progress within ARBOR_TIMEOUT";
    case ARBOR_ERR_PEER_LOST:
        return "ARBOR_ERR_PEER_LOST: a peer process went away";
    case ARBOR_ERR_UNSUPPORTED:
        return "ARBOR_ERR_UNSUPPORTED: not supported";
    case ARBOR_ERR_BOOTSTRAP:
        return "ARBOR_ERR_BOOTSTRAP: PMIx bootstrap failed";
    case ARBOR_ERR_ALGORITHM:
        return "ARBOR_ERR_ALGORITHM: algorithm unknown or cannot run";
    case ARBOR_ERR_BUSY:
        return "ARBOR_ERR_BUSY: still in use";
    case ARBOR_ERR_ADDRESS:
        return "ARBOR_ERR_ADDRESS: remote range outside every live symmetric allocation";
    case ARBOR_ERR_ALIGNMENT:
        return "ARBOR_ERR_ALIGNMENT: misaligned atomic or accumulate address";
    case ARBOR_ERR_MISMATCH:
        return "ARBOR_ERR_MISMATCH: members called mismatched collectives";
    case ARBOR_ERR_PEER_STOPPED:
        return "ARBOR_ERR_PEER_STOPPED: a peer has finalized (stopped)";
    }
    return "unknown arbor status";
}

const char *arbor_version(void)
{
    return ARBOR_VERSION_STRING;
}
