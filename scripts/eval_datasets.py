#!/usr/bin/python3
"""Writes the numeric datasets that scripts/eval-datasets.sh compares automatic λ on.

Deterministic: scikit-learn's bundled data (no network) and seeded synthetic sets. Needs
Debian's python3-sklearn (apt-get install -y python3-sklearn); the project's tests do not.
Usage: eval_datasets.py OUTDIR
"""
import csv
import os
import sys

import numpy as np
from sklearn import datasets


def write(path, names, X, y, labels):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(names) + ["target"])
        for row, t in zip(X, y):
            w.writerow([repr(float(v)) for v in row] + [labels[int(t)]])


def main(out):
    os.makedirs(out, exist_ok=True)
    # wine: 178 rows, 13 features, 3 classes.
    d = datasets.load_wine()
    write(os.path.join(out, "wine.csv"), d.feature_names, d.data, d.target, list(d.target_names))
    # diabetes: 442 rows, 10 features; the disease progression binarised at its median.
    d = datasets.load_diabetes()
    y = (d.target > np.median(d.target)).astype(int)
    write(os.path.join(out, "diabetes.csv"), d.feature_names, d.data, y, ["low", "high"])
    # digits 3 against 8 (a pair alike): 8×8 images pooled to 4×4 (2×2 means), 16 features.
    d = datasets.load_digits()
    keep = np.isin(d.target, [3, 8])
    img = d.images[keep].reshape(-1, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(-1, 16)
    y = (d.target[keep] == 8).astype(int)
    names = [f"p{r}{c}" for r in range(4) for c in range(4)]
    write(os.path.join(out, "digits38.csv"), names, img, y, ["three", "eight"])
    # synthetic: 1000 rows, 10 features (5 informative, 2 redundant), 2 classes.
    X, y = datasets.make_classification(n_samples=1000, n_features=10, n_informative=5,
                                        n_redundant=2, n_classes=2, class_sep=1.0, random_state=0)
    write(os.path.join(out, "synthetic.csv"), [f"x{i}" for i in range(10)], X, y, ["a", "b"])


if __name__ == "__main__":
    main(sys.argv[1])
