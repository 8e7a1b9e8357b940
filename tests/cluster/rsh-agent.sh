#!/bin/sh
# Open MPI's plm_rsh_agent for the simulated cluster (cluster.sh): runs a daemon on a host.
exec "$(dirname "$0")/cluster.sh" rsh "$@"
