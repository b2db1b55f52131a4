#!/usr/bin/python3
"""Prints the comparison table of scripts/eval-datasets.sh from its JSON reports.

Usage: eval_table.py OUTDIR NAME... (reads OUTDIR/NAME.json, written by quce eval -seeds).
Per dataset: mean ± sd over the seeds of the test split's L1 (also matched: over the
instances every method made valid), validity, counterfactual uncertainty (paper form L_ε(x_c)) and seconds per instance, and the goal's checks for
quce-auto: L1 ≤ AGI's and ≤ Wachter's, uncertainty < AGI's and < DiCE-random's, validity ≥
0.98, each on the mean and as the number of seeds where it holds (the seeds pair: each
seed's methods share its split and models).
"""
import json
import statistics
import sys

METHODS = ["quce", "quce-auto", "agi", "wachter", "dice-random"]


def ms(v):
    return f"{statistics.mean(v):.3g} ± {statistics.stdev(v):.2g}" if len(v) > 1 else f"{v[0]:.3g}"


def main(out, names):
    met = 0
    checks_rows = []
    for name in names:
        reps = json.load(open(f"{out}/{name}.json"))["reports"]
        col = lambda m, k: [r["metrics"][m]["test"][k] for r in reps]
        n = reps[0]["counts"]["quce"]["test"]["instances"]
        print(f"**{name}** ({n} test instances with seed 1)\n")
        matched = [r.get("matched", {}).get("test") for r in reps]
        print("| method | L1 | L1 matched | validity | cf. uncertainty | s / instance |")
        print("|---|---|---|---|---|---|")
        for m in METHODS:
            l1m = col(m, 'proximity_l1_matched') if all('proximity_l1_matched' in r["metrics"][m]["test"] for r in reps) else None
            print(f"| {m} | {ms(col(m, 'proximity_l1'))} | {ms(l1m) if l1m else '—'} | {ms(col(m, 'validity'))} | "
                  f"{ms(col(m, 'cf_uncertainty'))} | {ms(col(m, 'seconds_per_instance'))} |")
        if all(x is not None for x in matched):
            print(f"\nL1 matched: over the test instances every method made valid ({', '.join(map(str, matched))} with seeds "
                  f"{', '.join(str(i + 1) for i in range(len(reps)))}), so no method is compared on easier instances.")
        print()
        a = lambda k: col("quce-auto", k)
        checks = [
            ("L1 ≤ AGI", a("proximity_l1"), col("agi", "proximity_l1"), lambda x, y: x <= y),
            ("L1 ≤ Wachter", a("proximity_l1"), col("wachter", "proximity_l1"), lambda x, y: x <= y),
            ("unc < AGI", a("cf_uncertainty"), col("agi", "cf_uncertainty"), lambda x, y: x < y),
            ("unc < DiCE", a("cf_uncertainty"), col("dice-random", "cf_uncertainty"), lambda x, y: x < y),
            ("validity ≥ 0.98", a("validity"), [0.98] * len(reps), lambda x, y: x >= y),
        ]
        ok, cells = True, []
        for label, x, y, holds in checks:
            seeds = sum(holds(p, q) for p, q in zip(x, y))
            mean_ok = holds(statistics.mean(x), statistics.mean(y))
            ok = ok and mean_ok and seeds == len(reps)
            cells.append(f"{label}: {'yes' if mean_ok else 'NO'} ({seeds}/{len(reps)} seeds)")
        ratio = [p / q for p, q in zip(a("seconds_per_instance"), col("quce", "seconds_per_instance"))]
        met += ok
        checks_rows.append(f"| {name} | {'; '.join(cells)} | {ms(ratio)}× | {'met' if ok else 'NOT met'} |")
    print("| data | quce-auto against the goal (on the mean; seeds where it holds) | time vs fixed quce | goal |")
    print("|---|---|---|---|")
    print("\n".join(checks_rows))
    print(f"\nGoal met (on the mean and on every seed) on {met} of {len(names)} datasets.")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
