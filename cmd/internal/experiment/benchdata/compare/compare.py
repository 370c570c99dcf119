#!/usr/bin/env python3
"""Compare ntksvm's cross-validated NTK classifier with scikit-learn.

For every dataset of a benchmark folder (CSV files and NAME.splits.json), on
the same four train/test splits and the same cross-validation folds (the
splits file's cv_fold), run, interleaved, in one process tree:

  ntksvm    `ntksvm bench datasets DIR --names NAME --own-folds --select best`
  NTK-SVM   the same kernel in NumPy (the infinite-width ReLU NTK with
            sigma_w^2 = 2 and bias sigma_b^2: Sigma1 = 2 x.x'/d + sigma_b^2,
            the arc-cosine recursion) and SVC(kernel='precomputed'), grid
            sigma_b x depth x C (--sigma-b, default 0 only), with --fixed
            also the NTKs whose first F = 1..L-1 layers are not trained
            (Arora et al., ICLR 2020; ntksvm's --kernel ntk,fixed), first
            best in grid order: the protocol ntksvm runs, step for step
  RBF-SVM   SVC(kernel='rbf'), C 1e-2..1e4 (7) x gamma {scale, 1e-3..1e1}
  RF-500    RandomForestClassifier(n_estimators=500, random_state=0)

Features are standardised with the train half's statistics; rows with
missing values are dropped. Each tool gets two threads (n_jobs=2, BLAS
threads 2). Prints accuracy (mean +- std over the splits, %) and wall
seconds per split, and the ratio of the NTK-SVM protocol's time to ntksvm's.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.svm import SVC

CS = [1e-2, 1e-1, 1, 10, 100, 1e3, 1e4]
DEPTHS = [1, 2, 3, 4, 5]
SIGMA_B = [0.0]
FIXED = [False]


def kernels():
    """The grid's kernels (depth L, fixed layers F) in ntksvm's order."""
    ks = [(d, 0) for d in DEPTHS]
    if FIXED[0]:
        ks += [(d, f) for d in DEPTHS for f in range(1, d)]
    return ks


def load(folder, name):
    with open(os.path.join(folder, name + ".splits.json")) as f:
        splits = json.load(f)
    rows, labels = [], []
    for fn in splits["files"]:
        with open(os.path.join(folder, fn), newline="") as f:
            r = csv.reader(f)
            next(r)
            for rec in r:
                rows.append([float(v) if v not in ("", "?") else np.nan for v in rec[:-1]])
                labels.append(rec[-1])
    return np.array(rows), np.array(labels), splits


def ntk_grams(xtr, xte, wanted, sb2=0.0, sw2=2.0):
    """NTK Grams (train x train, test x train) for each (depth L, fixed
    layers F) of wanted, ntksvm's convention: Theta_F starts as Sigma at
    depth F and accumulates as the NTK after it (F = 0: the NTK)."""
    d = xtr.shape[1]
    s_tt, s_et = sw2 * xtr @ xtr.T / d + sb2, sw2 * xte @ xtr.T / d + sb2
    n_tr, n_te = sw2 * (xtr * xtr).sum(1) / d + sb2, sw2 * (xte * xte).sum(1) / d + sb2
    th = {0: (s_tt.copy(), s_et.copy())}  # F -> (train, test) Theta_F
    out = {}
    for h in range(1, max(L for L, _ in wanted) + 1):
        def step(s, na, nb):
            nrm = np.sqrt(np.outer(na, nb))
            with np.errstate(invalid="ignore", divide="ignore"):
                c = np.clip(np.where(nrm > 0, s / nrm, 0.0), -1, 1)
            t = np.arccos(c)
            k = nrm * (np.sin(t) + (np.pi - t) * np.cos(t)) / (2 * np.pi)
            return sw2 * k + sb2, sw2 * (np.pi - t) / (2 * np.pi)
        s_tt, kd_tt = step(s_tt, n_tr, n_tr)
        s_et, kd_et = step(s_et, n_te, n_tr)
        n_tr, n_te = sw2 * n_tr / 2 + sb2, sw2 * n_te / 2 + sb2
        for f, (a, b) in th.items():
            th[f] = (s_tt + a * kd_tt, s_et + b * kd_et)
        if any(f == h for _, f in wanted):
            th[h] = (s_tt.copy(), s_et.copy())
        for L, f in wanted:
            if L == h:
                out[(L, f)] = (th[f][0].copy(), th[f][1].copy())
    return out


def standardise(xtr, xte):
    mu, sd = xtr.mean(0), xtr.std(0)
    sd[sd == 0] = 1
    return (xtr - mu) / sd, (xte - mu) / sd


def ntk_svm(xtr, ytr, xte, yte, folds):
    best = None
    for sb in SIGMA_B:
        grams = ntk_grams(xtr, xte, kernels(), sb * sb)
        for d, f in kernels():
            ktr, kte = grams[(d, f)]
            gs = GridSearchCV(SVC(kernel="precomputed"), {"C": CS}, cv=PredefinedSplit(folds), n_jobs=2)
            gs.fit(ktr, ytr)
            if best is None or gs.best_score_ > best[0]:
                best = (gs.best_score_, kte, gs, "L=%d F=%d sigma_b=%g C=%g" % (d, f, sb, gs.best_params_["C"]))
    _, kte, gs, point = best
    return gs.score(kte, yte), point


def rbf_svm(xtr, ytr, xte, yte, folds):
    grid = {"C": CS, "gamma": ["scale", 1e-3, 1e-2, 1e-1, 1, 10]}
    gs = GridSearchCV(SVC(kernel="rbf"), grid, cv=PredefinedSplit(folds), n_jobs=2).fit(xtr, ytr)
    return gs.score(xte, yte), ""


def rf(xtr, ytr, xte, yte, folds):
    m = RandomForestClassifier(n_estimators=500, random_state=0, n_jobs=2).fit(xtr, ytr)
    return m.score(xte, yte), ""


def run_sklearn(x, y, splits, fn):
    accs, secs = [], []
    for s in splits["splits"]:
        t0 = time.perf_counter()
        tr, te = np.array(s["train"]), np.array(s["test"])
        xtr, xte = standardise(x[tr], x[te])
        acc, _ = fn(xtr, y[tr], xte, y[te], np.array(s["cv_fold"]))
        secs.append(time.perf_counter() - t0)
        accs.append(acc)
    return np.array(accs), np.array(secs)


def run_ntksvm(binary, folder, name):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        subprocess.run([binary, "bench", "datasets", folder, "--names", name, "--own-folds",
                        "--select", "best", "--threads", "2", "--json", out,
                        "--sigma-b", ",".join("%g" % b for b in SIGMA_B),
                        "--kernel", "ntk,fixed" if FIXED[0] else "ntk"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            r = json.load(f)[0]
    return np.array(r["test_accuracy"]), np.array(r["seconds"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--ntksvm", default="bin/ntksvm")
    ap.add_argument("--names", default="")
    ap.add_argument("--only-ntk", action="store_true", help="skip RBF-SVM and RF")
    ap.add_argument("--sigma-b", default="0", help="bias standard deviations of the NTK grid, e.g. 0,0.5,1,2")
    ap.add_argument("--fixed", action="store_true",
                    help="add the NTKs with the first F = 1..L-1 layers fixed for every depth L (ntksvm --kernel ntk,fixed)")
    args = ap.parse_args()
    SIGMA_B[:] = [float(v) for v in args.sigma_b.split(",")]
    FIXED[0] = args.fixed
    names = args.names.split(",") if args.names else sorted(
        f[:-len(".splits.json")] for f in os.listdir(args.folder) if f.endswith(".splits.json"))
    tools = [("NTK-SVM", ntk_svm)] + ([] if args.only_ntk else [("RBF-SVM", rbf_svm), ("RF-500", rf)])
    print("%-14s %-16s %-16s" % ("dataset", "ntksvm", "NTK-SVM (sklearn)") +
          "".join(" %-16s" % t for t, _ in tools[1:]) + " %9s %9s %7s" % ("ntksvm s", "sklearn s", "ratio"))
    means = {}
    ratios = []
    for i, name in enumerate(names):
        x, y, splits = load(args.folder, name)
        keep = ~np.isnan(x).any(1)
        assert sorted(np.flatnonzero(~keep).tolist()) == sorted(splits["dropped_rows"])
        res = {}
        order = [("ntksvm", None)] + tools
        if i % 2:
            order = order[1:] + order[:1]  # interleave: alternate who runs first
        for tool, fn in order:
            if fn is None:
                res[tool] = run_ntksvm(args.ntksvm, args.folder, name)
            else:
                res[tool] = run_sklearn(x, y, splits, fn)
        line = "%-14s" % name
        for tool in ["ntksvm"] + [t for t, _ in tools]:
            a = 100 * res[tool][0]
            means.setdefault(tool, []).append(a.mean())
            line += " %6.2f +- %5.2f " % (a.mean(), a.std())
        r = res["NTK-SVM"][1].mean() / res["ntksvm"][1].mean()
        ratios.append(r)
        line += " %9.3f %9.3f %6.1fx" % (res["ntksvm"][1].mean(), res["NTK-SVM"][1].mean(), r)
        print(line, flush=True)
    print("%-14s" % "mean" + "".join(" %6.2f          " % np.mean(means[t]) for t in ["ntksvm"] + [t for t, _ in tools]) +
          "   median ratio %.1fx" % np.median(ratios))


if __name__ == "__main__":
    sys.exit(main())
