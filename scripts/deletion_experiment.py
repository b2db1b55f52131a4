#!/usr/bin/python3
"""Replays eval's deletion game (docs/METHOD.md, "Why straight-line IG wins the deletion game")
on a `quce explain -json` run of testdata/models/wbc_raw.onnx, for QUCE's path attribution and
for straight-line IG to the same counterfactual (recomputed here from the model's weights),
with the training-mean baseline and with x_c as the baseline, and prints the path's
length/chord, IG from the mean baseline and random orderings for comparison.

    quce explain -model testdata/models/wbc_raw.onnx -n all -json run.json [-lambdas ...]
    /usr/bin/python3 scripts/deletion_experiment.py run.json testdata/models/wbc_raw.onnx

Needs Debian's python3-numpy and python3-onnx.
"""
import json
import sys

import numpy as np
import onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[2])
W = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in m.graph.initializer}
d = json.load(open(sys.argv[1]))
smean = np.array(d['scaler']['mean']); sstd = np.array(d['scaler'].get('std') or d['scaler'].get('scale'))
mmean, mstd = W['0.mean'], W['0.std']
W1, b1, W2, b2 = W['1.0.weight'], W['1.0.bias'], W['1.2.weight'][0], W['1.2.bias'][0]
def z_and_grad(xs):  # xs: [n,30] standardised (quce units)
    raw = smean + sstd * xs
    u = (raw - mmean) / mstd
    h = u @ W1.T + b1
    a = np.maximum(h, 0)
    z = a @ W2 + b2
    dz = ((h > 0) * W2) @ W1 / mstd * sstd  # [n,30]
    return z, dz
def F(xs, c):
    z, _ = z_and_grad(np.atleast_2d(xs))
    p1 = 1 / (1 + np.exp(-z))
    return p1 if c == 1 else 1 - p1
def gradF(xs, c):
    z, dz = z_and_grad(np.atleast_2d(xs))
    p1 = 1 / (1 + np.exp(-z))
    g = (p1 * (1 - p1))[:, None] * dz
    return g if c == 1 else -g
def ig(x, xc, c, n=1000):
    t = (np.arange(n) + 0.5) / n
    pts = x + t[:, None] * (xc - x)
    return (xc - x) * gradF(pts, c).mean(0)
def deletion(x, attr, base, corig):
    cur = x.copy(); ps = []
    for j in np.argsort(-attr, kind='stable'):
        cur[j] = base[j]; ps.append(F(cur, corig)[0])
    return np.mean(ps)
rows = []
chk = 0
for r in d['results']:
    if not r['valid']: continue
    x = np.array(r['x']); xc = np.array(r['counterfactual']); tau = r['target_class']; orig = r['predicted_class']
    chk = max(chk, abs(F(x, tau)[0] - r['prob_target_start']))
    phi_q = np.array(r['inputs']['attribution'])
    phi_ig = ig(x, xc, tau)
    zero = np.zeros_like(x)
    pts = np.array(r['path']['points'])
    plen = np.linalg.norm(np.diff(pts, axis=0), axis=1).sum(); chord = np.linalg.norm(xc - x)
    mass = np.abs(phi_q).sum(); net = abs(phi_q.sum())
    ig0 = ig(zero, x, orig)  # IG of F(orig) from the mean baseline to x
    rows.append(dict(
        dq=deletion(x, phi_q, zero, orig), di=deletion(x, phi_ig, zero, orig),
        dq_c=deletion(x, phi_q, xc, orig), di_c=deletion(x, phi_ig, xc, orig),
        d_ig0=deletion(x, ig0, zero, orig), d_rand=np.mean([deletion(x, np.random.RandomState(s).rand(len(x)), zero, orig) for s in range(5)]),
        curv=plen / chord, detour=(mass - net) / max(net, 1e-12),
        rho=np.corrcoef(phi_q, phi_ig)[0, 1]))
print("model check max|F - JSON|", chk, "valid rows", len(rows))
def mean(k): return np.mean([r[k] for r in rows])
for k in ['dq', 'di', 'dq_c', 'di_c', 'd_ig0', 'd_rand', 'curv', 'detour', 'rho']:
    print(k, round(mean(k), 4))
diff = np.array([r['dq'] - r['di'] for r in rows])
for k in ['curv', 'detour', 'rho']:
    v = np.array([r[k] for r in rows]); print('corr(dq-di,', k, ')', round(np.corrcoef(diff, v)[0, 1], 3))
print('share of rows where IG beats QUCE (baseline 0):', np.mean(diff > 0), ' (baseline x_c):', np.mean([r['dq_c'] > r['di_c'] for r in rows]))
# by curvature tercile
c = np.array([r['curv'] for r in rows]); q = np.quantile(c, [1/3, 2/3])
for lo, hi, name in [(-1, q[0], 'straightest third'), (q[0], q[1], 'middle third'), (q[1], 1e9, 'most curved third')]:
    sel = [r for r in rows if lo < r['curv'] <= hi]
    print(name, 'curv %.2f' % np.mean([r['curv'] for r in sel]), 'QUCE %.4f IG %.4f' % (np.mean([r['dq'] for r in sel]), np.mean([r['di'] for r in sel])))
