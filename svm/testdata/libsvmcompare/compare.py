#!/usr/bin/env python3
"""scikit-learn's libsvm (SVC, kernel='precomputed') on the Gram that
main.go wrote, timed as main.go times svm.SolveDual: prints one JSON line.

    python3 compare.py DIR [--C 15.625] [--runs 5] [--tol 1e-3] [--text]

The Gram is read with numpy.load (timed); each fit is timed alone (median
reported, after one untimed fit). The dual objective is computed in
libsvm's form, sum(a) - 1/2 a'Qa with a = |dual_coef_|, so that it can be
compared with main.go's. With --text it also times reading K.libsvm, the
precomputed kernel in libsvm's text format, with sklearn's
load_svmlight_file (a C parser, as libsvm's own svm-train reads it).
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np
from sklearn.svm import SVC


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--C", type=float, default=1 / 0.064)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--cache", type=float, default=200, help="libsvm's kernel cache in MB (sklearn's default 200)")
    ap.add_argument("--text", action="store_true")
    a = ap.parse_args()
    t0 = time.perf_counter()
    k = np.load(f"{a.dir}/K.npy")
    read = time.perf_counter() - t0
    y = np.load(f"{a.dir}/y.npy")
    out = {"side": "libsvm", "n": int(k.shape[0]), "C": a.C, "bias": True, "read_npy_seconds": read,
           "sklearn": __import__("sklearn").__version__}
    if a.text:
        from sklearn.datasets import load_svmlight_file
        t0 = time.perf_counter()
        load_svmlight_file(f"{a.dir}/K.libsvm", zero_based=True)
        out["read_text_seconds"] = time.perf_counter() - t0
    clf = SVC(kernel="precomputed", C=a.C, tol=a.tol, cache_size=a.cache, shrinking=True)
    clf.fit(k, y)  # warm-up
    secs = []
    for _ in range(max(a.runs, 1)):
        t0 = time.perf_counter()
        clf.fit(k, y)
        secs.append(time.perf_counter() - t0)
    sv = clf.support_
    al = np.abs(clf.dual_coef_[0])
    ysv = y[sv]
    q = (ysv[:, None] * ysv[None, :]) * k[np.ix_(sv, sv)]
    out.update({"solve_seconds": statistics.median(secs), "solve_all": secs,
                "dual": float(al.sum() - 0.5 * al @ q @ al),
                "iterations": int(np.sum(clf.n_iter_)) if hasattr(clf, "n_iter_") else None,
                "support_vectors": int(len(sv))})
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
