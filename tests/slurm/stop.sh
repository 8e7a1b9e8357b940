#!/usr/bin/env bash
# Stop the one-node Slurm cluster of start.sh: slurmd and slurmctld by their pid files, munged
# only if start.sh started it; then remove $ARBOR_SLURM_DIR (ARBOR_SLURM_KEEP=1 keeps it).
# Safe to run when nothing runs. Bounded: TERM, up to 15 s, then KILL.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/slurm/common.sh
source "$here/common.sh"

stop_pidfile() { # name pidfile
    local name=$1 pf=$2 pid
    [ -s "$pf" ] || return 0
    pid=$(cat "$pf")
    if ! kill -0 "$pid" 2>/dev/null; then rm -f "$pf"; return 0; fi
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$pf"; return 0; }
        sleep 0.5
    done
    log "$name did not stop in 15 s: killing it"
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pf"
}

if [ -f "$SLURM_CONF_FILE" ] && [ -s "$ARBOR_SLURM_DIR/slurmctld.pid" ] && command -v scancel >/dev/null; then
    SLURM_CONF=$SLURM_CONF_FILE timeout 10 scancel --full -u "$(id -un)" 2>/dev/null || true
fi
stop_pidfile slurmd "$ARBOR_SLURM_DIR/slurmd.pid"
stop_pidfile slurmctld "$ARBOR_SLURM_DIR/slurmctld.pid"
if [ -f "$ARBOR_SLURM_DIR/munged.ours" ]; then
    stop_pidfile munged /run/munge/munged.pid
fi
if [ "${ARBOR_SLURM_KEEP:-0}" = 1 ]; then
    log "kept $ARBOR_SLURM_DIR"
else
    rm -rf "$ARBOR_SLURM_DIR"
fi
log "stopped"
