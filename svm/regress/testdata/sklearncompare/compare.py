#!/usr/bin/env python3
"""Compare ntksvm's NTK regression (svm/regress) with scikit-learn.

On a regression data set that Debian's python3-sklearn installs (read from
the package's files, never copied into the repository):

  diabetes  scikit-learn's diabetes data (Efron, Hastie, Johnstone and
            Tibshirani, "Least Angle Regression", Annals of Statistics
            2004): 442 patients, 10 baseline variables (raw, unscaled), the
            target a measure of disease progression one year later;
            sklearn/datasets/data/diabetes_data_raw.csv.gz and
            diabetes_target.csv.gz
  boston    the Boston house prices (Harrison and Rubinfeld, 1978): 506
            tracts, 13 features, the median value MEDV;
            sklearn/datasets/data/boston_house_prices.csv

a fixed split (25 % test, numpy RandomState(0)) and fixed 4 folds of the
training rows (KFold(4, shuffle=True, random_state=0)), it runs:

  ntksvm    the Go side (main.go): regress.Regressor with these folds, the
            grid depth x sigma_b x C (x epsilon for SVR), best mean CV MSE
  sklearn   the same kernel in NumPy (the ReLU NTK, sigma_w^2 = 2, on the
            features standardised with the training rows' statistics),
            the targets standardised the same way, and
            KernelRidge(kernel='precomputed', alpha=1/C) or
            SVR(kernel='precomputed', C, epsilon) on every grid point and
            fold, best mean CV MSE, first in ntksvm's grid order
  RF-500    RandomForestRegressor(n_estimators=500, random_state=0) on
            the raw features, the same folds for its CV RMSE

and prints each one's CV RMSE (at its chosen point), test RMSE, MAE and
R^2, the largest difference between the two tables of CV MSE over the
grid, and the predictions check: at ntksvm's chosen point, both sides
refitted with a tight tolerance (1e-12) and their test predictions
compared: for KRR directly, for SVR also with ntksvm's dual solved on the
Gram rounded to float32, the numbers libsvm's kernel cache holds (Qfloat
is float: scikit-learn's SVR gives the same predictions, to 1e-12, on a
float32-rounded kernel as on the float64 one). That difference must be
below 1e-6; the one between the float64 and libsvm's float32 solves is
printed, in the targets' units and in units of their std.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.ensemble import RandomForestRegressor
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import KFold
from sklearn.svm import SVR

DATA = "/usr/lib/python3/dist-packages/sklearn/datasets/data"


def load(name):
    if name == "diabetes":
        x = np.loadtxt(gzip.open(os.path.join(DATA, "diabetes_data_raw.csv.gz")))
        y = np.loadtxt(gzip.open(os.path.join(DATA, "diabetes_target.csv.gz")))
        return x, y, "age,sex,bmi,bp,s1,s2,s3,s4,s5,s6".split(",")
    with open(os.path.join(DATA, "boston_house_prices.csv")) as f:
        next(f)
        cols = next(f).strip().replace('"', "").split(",")
        rows = np.array([[float(v) for v in line.split(",")] for line in f if line.strip()])
    return rows[:, :-1], rows[:, -1], cols[:-1]


def write_csv(path, x, y, cols):
    with open(path, "w") as f:
        f.write(",".join(cols + ["target"]) + "\n")
        for row, t in zip(x, y):
            f.write(",".join(repr(float(v)) for v in row) + ",%r\n" % float(t))


def ntk_grams(xtr, xte, depths, sb2, sw2=2.0):
    """NTK Grams {L: (train x train, test x train)}, ntksvm's convention."""
    d = xtr.shape[1]
    s_tt, s_et = sw2 * xtr @ xtr.T / d + sb2, sw2 * xte @ xtr.T / d + sb2
    n_tr, n_te = sw2 * (xtr * xtr).sum(1) / d + sb2, sw2 * (xte * xte).sum(1) / d + sb2
    th_tt, th_et = s_tt.copy(), s_et.copy()
    out = {}
    for h in range(1, max(depths) + 1):
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
        th_tt, th_et = s_tt + th_tt * kd_tt, s_et + th_et * kd_et
        if h in depths:
            out[h] = (th_tt.copy(), th_et.copy())
    return out


def model(machine, c, eps, tol):
    if machine == "krr":
        return KernelRidge(kernel="precomputed", alpha=1 / c)
    return SVR(kernel="precomputed", C=c, epsilon=eps, tol=tol, cache_size=500)


def metrics(pred, y):
    e = pred - y
    return {"rmse": float(np.sqrt(np.mean(e * e))), "mae": float(np.mean(np.abs(e))),
            "r2": float(1 - np.sum(e * e) / np.sum((y - y.mean()) ** 2))}


def sklearn_side(machine, xtr, ztr, xte, folds, grid, scale, tol=1e-3):
    """CV MSE (targets' units) of every grid point in ntksvm's order, the
    best point, and its test predictions in z units."""
    t0 = time.perf_counter()
    scores = []
    grams = {}
    for sb in grid["sigma_b"]:
        grams[sb] = ntk_grams(xtr, xte, grid["depth"], sb * sb)
        for L in grid["depth"]:
            k = grams[sb][L][0]
            for eps in (grid["epsilon"] if machine == "svr" else [0.0]):
                for c in grid["C"]:
                    mse = []
                    for f in range(folds.max() + 1):
                        tr, va = folds != f, folds == f
                        m = model(machine, c, eps, tol).fit(k[np.ix_(tr, tr)], ztr[tr])
                        p = m.predict(k[np.ix_(va, tr)])
                        mse.append(np.mean((p - ztr[va]) ** 2) * scale * scale)
                    scores.append(((L, sb, c, eps), float(np.mean(mse))))
    best = min(range(len(scores)), key=lambda i: (scores[i][1], i))
    (L, sb, c, eps), mse = scores[best]
    ktr, kte = grams[sb][L]
    pred = model(machine, c, eps, tol).fit(ktr, ztr).predict(kte)
    return scores, scores[best], pred, time.perf_counter() - t0


def run_go(binary, tmp, machine, grid, tol, single=None, extra=()):
    g = single or grid
    args = [binary, *extra, "-train", os.path.join(tmp, "train.csv"), "-test", os.path.join(tmp, "test.csv"),
            "-folds", os.path.join(tmp, "folds.txt"), "-machine", machine, "-tol", repr(tol),
            "-depth", ",".join(str(v) for v in g["depth"]), "-sigma-b", ",".join(repr(v) for v in g["sigma_b"]),
            "-C", ",".join(repr(v) for v in g["C"]), "-epsilon", ",".join(repr(v) for v in g["epsilon"])]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="diabetes", choices=["diabetes", "boston"])
    ap.add_argument("--go", required=True, help="the built main.go")
    ap.add_argument("--ntksvm", default="", help="the ntksvm command: also run `ntksvm cv` with its defaults on the split")
    args = ap.parse_args()
    x, y, cols = load(args.dataset)
    perm = np.random.RandomState(0).permutation(len(y))
    nte = len(y) // 4
    te, tr = np.sort(perm[:nte]), np.sort(perm[nte:])
    folds = np.zeros(len(tr), dtype=int)
    for f, (_, va) in enumerate(KFold(4, shuffle=True, random_state=0).split(tr)):
        folds[va] = f
    grid = {"depth": [1, 2, 3, 4, 5], "sigma_b": [0.0, 0.5, 1.0, 2.0],
            "C": [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4], "epsilon": [0.01, 0.1, 0.5]}
    xtr, xte, ytr, yte = x[tr], x[te], y[tr], y[te]
    mu, sd = xtr.mean(0), xtr.std(0)
    sd[sd == 0] = 1
    xs, xts = (xtr - mu) / sd, (xte - mu) / sd
    ym, ys = ytr.mean(), ytr.std()
    z = (ytr - ym) / ys
    print("%s: %d training rows (4 folds), %d test rows, %d features; target mean %.4g, std %.4g"
          % (args.dataset, len(tr), len(te), x.shape[1], ym, ys))
    print("%-22s %9s %9s %9s %8s %8s  %s" % ("method", "CV RMSE", "test RMSE", "test MAE", "test R2", "seconds", "chosen"))
    with tempfile.TemporaryDirectory() as tmp:
        write_csv(os.path.join(tmp, "train.csv"), xtr, ytr, cols)
        write_csv(os.path.join(tmp, "test.csv"), xte, yte, cols)
        with open(os.path.join(tmp, "folds.txt"), "w") as f:
            f.write("\n".join(str(v) for v in folds) + "\n")
        checks = []
        for machine in ["krr", "svr"]:
            ours = run_go(args.go, tmp, machine, grid, 1e-3)
            sk, (pt, mse), pred, secs = sklearn_side(machine, xs, z, xts, folds, grid, ys)
            om = ours["test"]
            ch = ours["chosen"]
            print("%-22s %9.4f %9.4f %9.4f %8.4f %8.2f  L=%d sigma_b=%g C=%g%s" % (
                "ntksvm " + machine, ours["cv_rmse"], om["rmse"], om["mae"], om["r2"], ours["seconds"],
                ch["depth"], ch["sigma_b"], ch["c"], " eps=%g" % ch.get("epsilon", 0) if machine == "svr" else ""))
            m = metrics(ym + ys * pred, yte)
            print("%-22s %9.4f %9.4f %9.4f %8.4f %8.2f  L=%d sigma_b=%g C=%g%s" % (
                "sklearn " + ("KernelRidge" if machine == "krr" else "SVR"), np.sqrt(mse), m["rmse"], m["mae"], m["r2"], secs,
                pt[0], pt[1], pt[2], " eps=%g" % pt[3] if machine == "svr" else ""))
            rel = max(abs(s["mse"] - v) / v for s, (_, v) in zip(ours["scores"], sk))
            # The predictions check: both sides at ntksvm's chosen point,
            # solved tightly.
            one = {"depth": [ch["depth"]], "sigma_b": [ch["sigma_b"]], "C": [ch["c"]], "epsilon": [ch.get("epsilon", 0.0)]}
            tight = run_go(args.go, tmp, machine, one, 1e-12)
            ktr, kte = ntk_grams(xs, xts, [ch["depth"]], ch["sigma_b"] ** 2)[ch["depth"]]
            skp = ym + ys * model(machine, ch["c"], ch.get("epsilon", 0.0), 1e-12).fit(ktr, z).predict(kte)
            diff = float(np.max(np.abs(np.array(tight["test_pred"]) - skp)))
            diff32 = None
            if machine == "svr":
                r32 = run_go(args.go, tmp, machine, one, 1e-12, extra=["-round32"])
                diff32 = float(np.max(np.abs(np.array(r32["test_pred"]) - skp)))
            checks.append((machine, rel, diff, diff32))
        for machine in (["svr", "krr"] if args.ntksvm else []):
            cmd = [args.ntksvm, "cv", "--data", os.path.join(tmp, "train.csv"), "--test", os.path.join(tmp, "test.csv"), "--machine", machine]
            t0 = time.perf_counter()
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
            chosen = [l for l in out if "chosen" in l][0].split()
            print("%-22s %9s  %s  (L=%s sigma_b=%s C=%s%s) %.2f s" % ("ntksvm cv " + machine, chosen[6], out[-1].split(": ", 1)[1],
                  chosen[1], chosen[3], chosen[5], " eps=" + chosen[4] if machine == "svr" else "", time.perf_counter() - t0))
        rf = RandomForestRegressor(n_estimators=500, random_state=0, n_jobs=2)
        t0 = time.perf_counter()
        cvm = []
        for f in range(4):
            p = rf.fit(xtr[folds != f], ytr[folds != f]).predict(xtr[folds == f])
            cvm.append(np.mean((p - ytr[folds == f]) ** 2))
        m = metrics(rf.fit(xtr, ytr).predict(xte), yte)
        print("%-22s %9.4f %9.4f %9.4f %8.4f %8.2f" % ("RandomForest(500)", np.sqrt(np.mean(cvm)), m["rmse"], m["mae"], m["r2"],
                                                     time.perf_counter() - t0))
    ok = True
    for machine, rel, diff, diff32 in checks:
        print("%s: CV MSE over the grid, largest relative difference ntksvm/sklearn %.2e" % (machine, rel))
        print("  test predictions at ntksvm's point (tolerance 1e-12): max |difference| %.2e = %.2e of the target's std"
              % (diff, diff / ys))
        last = diff
        if diff32 is not None:
            print("  the same ε-SVR dual solved by svm.SolveDual on the Gram rounded to float32, as libsvm's kernel "
                  "cache holds it: max |difference| %.2e" % diff32)
            last = diff32
        good = last < 1e-6
        ok = ok and good
        print("  " + ("ok (below 1e-6)" if good else "ABOVE 1e-6"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
