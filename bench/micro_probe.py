"""Medians of arbor-micro benchmarks for bench/compare and bench/fidelity (Python 3 standard
library only): one memcpy, or half a cache-line round trip between two cores, measured in the
same run as the collectives they are read against. On this project's 2-vCPU VMs the round trip
moves between about 0.07 and 0.27 us one way from one minute to the next (where the host puts
the two vCPUs), and an 8-byte collective's time moves with it."""
import csv
import io
import os
import subprocess


def micro_times(build, name, columns=("real_time",)):
    """Median times (us) of one arbor-micro benchmark, one per column: (values, name) or
    (None, why)."""
    exe = os.path.join(os.path.abspath(build), "bin", "arbor-micro")
    if not os.access(exe, os.X_OK):
        return None, "arbor-micro not built"
    try:
        cp = subprocess.run([exe, "--benchmark_filter=^%s$" % name,
                             "--benchmark_format=csv", "--benchmark_repetitions=3",
                             "--benchmark_report_aggregates_only=true"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            timeout=120)
    except subprocess.TimeoutExpired:
        return None, "arbor-micro timed out"
    lines = cp.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("name,")), None)
    if start is None:
        return None, "arbor-micro has no " + name
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if r["name"] in (name, name + "_median") and all(r.get(c) for c in columns):
            scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}.get(r.get("time_unit", "ns"), 1e-3)
            return [float(r[c]) * scale for c in columns], name
    return None, "arbor-micro printed no %s row" % name


def micro_us(build, name):
    """Median real time of one arbor-micro benchmark, in us: (value, name) or (None, why)."""
    v, why = micro_times(build, name)
    return (v[0], why) if v else (None, why)


def cache_line_floor_us(build):
    """Half of a flag round trip between two cores (us), or None: the least an 8-byte
    collective at P = 2 costs."""
    rt, _ = micro_us(build, "BM_flag_roundtrip/real_time")
    return rt / 2 if rt is not None else None
