#!/usr/bin/env bash
# A simulated cluster on one machine: one network namespace per
# host, each with its own host name, SysV IPC and /dev/shm (UTS, IPC and mount namespaces, so
# UCX and libfabric can reach ranks of other hosts only through the network), a bridge in the
# root namespace, and `tc netem` adding a one-way delay on every host's link where the kernel
# has it, so messages between hosts cost what they cost on a cluster.
#
#   tests/cluster/cluster.sh run [--hosts N] [--ranks-per-host K] [--delay-us D] [--] CMD...
#       builds the bed, runs CMD with $SIMCLUSTER_MPIRUN set to an mpirun prefix that
#       places K ranks on each of the N hosts (CMD appends "-n P ./prog args"; the caller's
#       ARBOR_*, UCX_* and FI_* variables are forwarded to every rank), and always tears
#       the bed down, also on failure or interrupt. Exit status: CMD's, or 77 (skip) when this
#       machine does not allow network namespaces.
#   tests/cluster/cluster.sh rsh HOST CMD...   (internal) Open MPI's plm_rsh_agent
#
# Names are unique per run (arbc<pid> ...); the address range is the documentation range
# 198.51.100.0/24 (root .1, hosts .10, .11, ...), never a real network.
set -euo pipefail

SUBNET=198.51.100
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ "${1:-}" = rsh ]; then
    # Open MPI calls the agent as `agent [ssh options] host command...`; the command is one
    # shell string (or several words to join).
    shift
    while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
    host=$1
    shift
    ns=$(cat "${SIMCLUSTER_DIR:?}/ns-$host")
    # Own host name (UTS), own SysV IPC and own /dev/shm (a private tmpfs in a private mount
    # namespace): the hosts of one kernel would otherwise share memory, and UCX reaches the
    # other "hosts" through its shared-memory transports instead of the network.
    exec ip netns exec "$ns" unshare --uts --ipc --mount --propagation private sh -c \
        'hostname "$0"; mount -t tmpfs tmpfs /dev/shm; exec sh -c "$1"' "$ns" "$*"
fi

[ "${1:-}" = run ] || { sed -n '2,16p' "$0"; exit 2; }
shift
hosts=3 rph=2 delay=20
while [ $# -gt 0 ]; do
    case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --ranks-per-host) rph=$2; shift 2 ;;
    --delay-us) delay=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "cluster.sh run: no command" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
    echo "SKIP: simulated cluster needs root and iproute2" >&2
    exit 77
fi

# One bed at a time on a machine: beds share the address range. A second run waits (up to
# 10 minutes) for the first instead of clashing with it.
if [ -z "${SIMCLUSTER_LOCKED:-}" ] && command -v flock >/dev/null; then
    export SIMCLUSTER_LOCKED=1
    exec flock -w 600 /tmp/arbor-simcluster.lock "$0" run --hosts "$hosts" --ranks-per-host "$rph" \
        --delay-us "$delay" -- "$@"
fi

id=$$
br=arbc$id
dir=$(mktemp -d /tmp/arbor-cluster.XXXXXX)
export SIMCLUSTER_DIR=$dir
nss=()
cleanup() {
    for ns in "${nss[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    ip link del "$br" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! ip link add "$br" type bridge 2>/dev/null; then
    echo "SKIP: cannot create a bridge here (no CAP_NET_ADMIN?)" >&2
    exit 77
fi
ip addr add "$SUBNET.1/24" dev "$br"
ip link set "$br" up
hostlist=()
for ((h = 0; h < hosts; h++)); do
    ns=arbh$id-$h
    addr=$SUBNET.$((10 + h))
    if ! ip netns add "$ns" 2>/dev/null; then
        echo "SKIP: cannot create network namespaces here" >&2
        exit 77
    fi
    nss+=("$ns")
    ip link add "v$id-$h" type veth peer name eth0 netns "$ns"
    ip link set "v$id-$h" master "$br" up
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" route add default via "$SUBNET.1"
    if [ "$delay" != 0 ] && ! ip netns exec "$ns" tc qdisc add dev eth0 root netem delay \
        "${delay}us" 2>/dev/null; then
        [ "$h" -gt 0 ] || echo "cluster.sh: this kernel has no netem qdisc: no delay added" \
            "(TCP between hosts still costs tens of us against <1 us on a host)" >&2
    fi
    echo "$ns" >"$dir/ns-$addr"
    hostlist+=("$addr:$rph")
done
# The launcher's daemons reach back to mpirun over the bridge; the ranks' transports must use
# the hosts' links too (not a loopback that every namespace has of its own).
hosts_csv=$(IFS=,; echo "${hostlist[*]}")
# Every ARBOR_*, UCX_* and FI_* variable of the caller travels to the ranks (mpirun forwards
# nothing to other hosts by itself).
fwd=""
for v in $(env | sed -n 's/^\(\(ARBOR\|UCX\|FI\)_[A-Za-z0-9_]*\)=.*/\1/p'); do fwd="$fwd -x $v"; done
export SIMCLUSTER_MPIRUN="mpirun --allow-run-as-root --oversubscribe --mca plm_rsh_agent $here/rsh-agent.sh --mca oob_tcp_if_include $SUBNET.0/24 --mca btl_tcp_if_include $SUBNET.0/24 -x UCX_NET_DEVICES=eth0 -x FI_TCP_IFACE=eth0 -x FI_SOCKETS_IFACE=eth0$fwd --host $hosts_csv"
export SIMCLUSTER_HOSTS=$hosts SIMCLUSTER_RPH=$rph
"$@"
