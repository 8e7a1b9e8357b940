# shellcheck shell=bash
# Shared settings of the one-node Slurm scripts (sourced, not run).
# ARBOR_SLURM_DIR: scratch folder of the cluster (config, state, spool, logs, pid files).
ARBOR_SLURM_DIR=${ARBOR_SLURM_DIR:-/tmp/arbor-slurm}
# shellcheck disable=SC2034 # used by the scripts that source this file
SLURM_CONF_FILE="$ARBOR_SLURM_DIR/slurm.conf"

log() { printf '[slurm] %s\n' "$*" >&2; }
die() { printf '[slurm] ERROR: %s\n' "$*" >&2; exit 1; }

# Print the tail of every log of the cluster (diagnostics on failure).
dump_logs() {
    local f
    for f in "$ARBOR_SLURM_DIR"/log/*.log; do
        [ -f "$f" ] || continue
        printf '[slurm] ---- last lines of %s ----\n' "$f" >&2
        tail -n 30 "$f" >&2 || true
    done
}
