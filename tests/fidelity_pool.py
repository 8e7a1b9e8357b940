#!/usr/bin/env python3
"""bench/fidelity's pooling (pool, parse_predictions) on made-up runs, no launcher: names with one
fingerprint are one schedule and their rounds are pooled; different schedules stay apart; a
forced run is looked up under the algorithm and copy path it printed; a one-copy choice joins the
forced runs of its schedule, or keeps the default runs' time; without fingerprints the pooled
figure is the raw one. Exits 1 on a failure."""
import importlib.machinery
import importlib.util
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
loader = importlib.machinery.SourceFileLoader("fidelity", os.path.join(ROOT, "bench", "fidelity"))
spec = importlib.util.spec_from_loader("fidelity", loader)
fid = importlib.util.module_from_spec(spec)
loader.exec_module(fid)

failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)


med = statistics.median
LINE = ("arbor: bcast bytes=8 ranks=2 nodes=1 root=0 -> karp; predicted: karp=0.201us "
        "binomial=0.201us flat=0.3us hwcoll=infus; schedules: chunk=65536 copy=two karp=aa "
        "binomial=aa flat=bb hwcoll=- copy=cma karp=cc binomial=cc flat=dd hwcoll=-")
preds = fid.parse_predictions(LINE + "\nunrelated\n", "bcast")
check(set(preds) == {8}, "one line parsed: %r" % preds)
chosen, times, sched = preds[8]
check(chosen == "karp" and times == {"karp": 0.201, "binomial": 0.201, "flat": 0.3,
                                     "hwcoll": float("inf")}, "predictions: %r" % (times,))
check(sched == {"": {"karp": "aa", "binomial": "aa", "flat": "bb", "hwcoll": None},
                "+cma": {"karp": "cc", "binomial": "cc", "flat": "dd", "hwcoll": None}},
      "schedules: %r" % (sched,))
old = fid.parse_predictions("arbor: bcast bytes=8 ranks=2 nodes=1 root=0 -> karp; predicted: "
                            "karp=0.201us", "bcast")
check(old[8][1] == {"karp": 0.201} and old[8][2] is None, "a line without schedules: %r" % old)

# karp and binomial one schedule: karp's 20 us round is pooled with binomial's 10s.
cell = {"": [11, 12, 13], "karp": [10, 20, 20], "binomial": [10, 10, 10], "flat": [12, 12, 12]}
ran = {"karp": {"karp"}, "binomial": {"binomial"}, "flat": {"flat"}}
pl = fid.pool(cell, "karp", ran, sched, med)
check(pl["chosen_us"] == med([10, 20, 20, 10, 10, 10]), "pooled chosen: %r" % pl)
check(pl["best_us"] == pl["chosen_us"] and pl["ratio"] == 1.0, "pooled best is the chosen: %r" % pl)
check(pl["best"] == "binomial(2)", "best schedule named by its fastest name: %r" % pl["best"])
check(pl["groups"] == [["binomial", "karp"]] and pl["pooled"], "groups: %r" % pl["groups"])
check(pl["schedules"] == "2/3", "schedules: %r" % pl["schedules"])
check(pl["fp"] == {"karp": "aa", "binomial": "aa", "flat": "bb"}, "fingerprints: %r" % pl["fp"])

# A different schedule stays apart and can still win.
cell2 = dict(cell, flat=[5, 5, 5])
pl = fid.pool(cell2, "karp", ran, sched, med)
check(pl["best"] == "flat" and pl["ratio"] == med([10, 20, 20, 10, 10, 10]) / 5,
      "distinct flat wins: %r" % pl)

# Forced karp went one copy (its own choice): not the chosen two-copy karp's schedule any more,
# which binomial's forced runs ran; with no such run either, the default runs' time.
ran3 = dict(ran, karp={"karp+cma"})
pl = fid.pool(cell, "karp", ran3, sched, med)
check(pl["fp"]["karp"] == "cc" and pl["groups"] == [["karp (chosen)", "binomial"]],
      "karp+cma apart, the chosen karp with binomial: %r" % pl)
check(pl["chosen_us"] == med(cell["binomial"]), "the chosen's time from binomial: %r" % pl)
pl = fid.pool(cell, "karp", dict(ran3, binomial={"binomial+cma"}), sched, med)
check(pl["chosen_us"] == med(cell[""]) and pl["groups"] == [["binomial", "karp"]],
      "no forced run of the chosen schedule: the default runs' time: %r" % pl)

# A fallback: forced flat printed binomial, so it ran binomial's schedule.
ran4 = dict(ran, flat={"binomial"})
pl = fid.pool(cell, "karp", ran4, sched, med)
check(pl["groups"] == [["binomial", "flat", "karp"]], "fallback pooled: %r" % pl["groups"])

# The chosen karp+cma joins the forced runs that also went one copy, under another name.
ran5 = {"karp": {"karp+cma"}, "binomial": {"binomial+cma"}, "flat": {"flat"}}
pl = fid.pool(cell, "karp+cma", ran5, sched, med)
check(pl["groups"] == [["karp+cma (chosen)", "binomial", "karp"]], "chosen joins: %r" % pl)
check(pl["chosen_us"] == med([10, 10, 10, 10, 20, 20]), "chosen time from forced runs: %r" % pl)

# No fingerprints (no prediction line): every name alone, pooled equals raw.
pl = fid.pool(cell, "karp", ran, None, med)
check(not pl["pooled"] and pl["schedules"] == "3/3", "no fingerprints, no pooling: %r" % pl)
check(pl["chosen_us"] == med(cell["karp"]) and pl["best_us"] == med(cell["binomial"]),
      "raw figures: %r" % pl)
# A forced algorithm whose runs printed two algorithms stands alone.
ran6 = dict(ran, binomial={"binomial", "flat"})
pl = fid.pool(cell, "karp", ran6, sched, med)
check(not pl["pooled"] and pl["fp"]["binomial"] is None, "mixed runs alone: %r" % pl)
# min statistic over the union.
pl = fid.pool(cell, "karp", ran, sched, min)
check(pl["chosen_us"] == 10 and pl["ratio"] == 1.0, "min over the union: %r" % pl)

print("fidelity_pool: %d checks, %d failures" % (checks, failures))
sys.exit(1 if failures else 0)
