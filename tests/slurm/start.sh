#!/usr/bin/env bash
# Start a one-node Slurm cluster on this machine (README.md, the srun tests):
# munged as the munge user, slurmctld and slurmd as root with a private slurm.conf in
# $ARBOR_SLURM_DIR (default /tmp/arbor-slurm), CPUs=8 (config_overrides) so 8 ranks fit on any
# machine, partition OverSubscribe=FORCE:8, MpiDefault=pmix. Waits (bounded) until sinfo shows
# the node idle, then prints the environment to use:   eval "$(tests/slurm/start.sh)"
# Needs root and the packages slurm-wlm and munge (scripts/setup-deps.sh). Stop: tests/slurm/stop.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/slurm/common.sh
source "$here/common.sh"
WAIT_S=${ARBOR_SLURM_WAIT_S:-60}

[ "$(id -u)" -eq 0 ] || die "must run as root (slurmd runs jobs as root here)"
for c in munged munge unmunge slurmctld slurmd sinfo srun scontrol runuser timeout; do
    command -v "$c" >/dev/null || die "missing command '$c' (install slurm-wlm and munge: scripts/setup-deps.sh)"
done
if [ -f "$ARBOR_SLURM_DIR/slurmctld.pid" ] && kill -0 "$(cat "$ARBOR_SLURM_DIR/slurmctld.pid")" 2>/dev/null; then
    die "a cluster already runs from $ARBOR_SLURM_DIR (stop it with $here/stop.sh)"
fi

ok=0
cleanup() {
    if [ "$ok" -ne 1 ]; then
        log "start failed; diagnostics follow"
        dump_logs
        "$here/stop.sh" >&2 || true
    fi
}
trap cleanup EXIT

rm -rf "$ARBOR_SLURM_DIR"
mkdir -p "$ARBOR_SLURM_DIR"/{state,spool,log}

# ---- munge ----------------------------------------------------------------------------------
if timeout 10 munge -n 2>/dev/null | timeout 10 unmunge >/dev/null 2>&1; then
    log "munged already running: reusing it"
else
    if [ ! -s /etc/munge/munge.key ]; then
        log "creating /etc/munge/munge.key"
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile=/etc/munge/munge.key
        else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        fi
    fi
    chown munge:munge /etc/munge /etc/munge/munge.key
    chmod 700 /etc/munge
    chmod 600 /etc/munge/munge.key
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    chown munge:munge /run/munge /var/lib/munge /var/log/munge
    chmod 755 /run/munge
    log "starting munged as user munge"
    # A stale socket or pid file of a dead munged makes it refuse to start.
    rm -f /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock /run/munge/munged.pid
    runuser -u munge -- munged
    touch "$ARBOR_SLURM_DIR/munged.ours" # stop.sh ends munged only when we started it
    for _ in $(seq 1 20); do
        if timeout 10 munge -n 2>/dev/null | timeout 10 unmunge >/dev/null 2>&1; then break; fi
        sleep 0.5
    done
    timeout 10 munge -n | timeout 10 unmunge >/dev/null || die "munge -n | unmunge fails"
fi
log "munge works"

# ---- slurm.conf -----------------------------------------------------------------------------
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() { # first free port from $1 that is not in the rest of the arguments
    local p=$1; shift
    while [ "$p" -lt 65000 ]; do
        if port_free "$p" && [[ " $* " != *" $p "* ]]; then echo "$p"; return 0; fi
        p=$((p + 1))
    done
    die "no free TCP port"
}
ctld_port=$(pick_port 16817)
slurmd_port=$(pick_port $((ctld_port + 1)) "$ctld_port")
host=$(hostname -s)
cat >"$SLURM_CONF_FILE" <<CONF
# one-node cluster of arbor's tests (tests/slurm/start.sh)
ClusterName=arbor
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$ARBOR_SLURM_DIR/state
SlurmdSpoolDir=$ARBOR_SLURM_DIR/spool
SlurmctldPidFile=$ARBOR_SLURM_DIR/slurmctld.pid
SlurmdPidFile=$ARBOR_SLURM_DIR/slurmd.pid
SlurmctldLogFile=$ARBOR_SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$ARBOR_SLURM_DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=pmix
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
InactiveLimit=0
MailProg=/bin/true
KillWait=5
MinJobAge=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
export SLURM_CONF=$SLURM_CONF_FILE
log "SLURM_CONF=$SLURM_CONF (slurmctld port $ctld_port, slurmd port $slurmd_port, node $host)"

# ---- daemons --------------------------------------------------------------------------------
log "starting slurmctld"
timeout 30 slurmctld -f "$SLURM_CONF" -c
log "starting slurmd"
timeout 30 slurmd -f "$SLURM_CONF"

log "waiting up to ${WAIT_S}s for the node to be idle"
state=
for _ in $(seq 1 $((WAIT_S * 2))); do
    state=$(timeout 10 sinfo -h -N -o '%T' 2>/dev/null | head -n 1 || true)
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || die "node state is '${state:-unknown}' after ${WAIT_S}s, not idle"
timeout 10 sinfo -N -l >&2 || true
printf 'export SLURM_CONF=%q\n' "$SLURM_CONF" >"$ARBOR_SLURM_DIR/env.sh"
ok=1
log "cluster up; environment in $ARBOR_SLURM_DIR/env.sh"
cat "$ARBOR_SLURM_DIR/env.sh"
