#!/usr/bin/env python3
"""Probabilities: ntksvm's (cv --probability, predict --probability) against
scikit-learn's SVC(probability=True) on the same precomputed kernel.

For every dataset of a benchmark folder (CSV files and NAME.splits.json) and
each of its train/test splits:

  1. standardise the features with the train half's mean and standard
     deviation (ddof 0; a constant feature is left centred), write both halves
     as CSV (17 significant digits);
  2. ntksvm cv --no-standardize --probability on the train half (the grid of
     --depth, --sigma-b and --C below, 4 folds, the default 1se rule), then
     ntksvm predict --probability --json on the test half;
  3. the chosen kernel (read from the model file's header: depth, sigma_b) in
     NumPy (compare.py's ntk_grams, ntksvm's NTK step for step) and
     SVC(kernel='precomputed', C=the chosen C, probability=True,
     random_state=0) on it, predict_proba on the test half;
  4. log-loss (probabilities clipped to [1e-15, 1 - 1e-15], as
     sklearn.metrics.log_loss) and expected calibration error (15 equal bins
     of the largest probability: sum over bins of the share of examples times
     |accuracy - mean confidence|) of both, and the accuracy of the class of
     the largest probability.

Prints one line per dataset (mean over the splits) and the mean over the
datasets.
"""
import argparse
import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
from sklearn.svm import SVC

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", "..", ".."))
spec = importlib.util.spec_from_file_location(
    "compare", os.path.join(root, "cmd/internal/experiment/benchdata/compare/compare.py"))
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)


def model_header(path):
    b = open(path, "rb").read()
    hlen = struct.unpack("<I", b[20:24])[0]
    return json.loads(b[24:24 + hlen])


def write_csv(path, x, labels):
    with open(path, "w") as f:
        f.write(",".join("f%d" % j for j in range(x.shape[1])) + ",label\n")
        for row, lab in zip(x, labels):
            f.write(",".join(repr(float(v)) for v in row) + "," + lab + "\n")


def log_loss(p, truth):
    return float(-np.mean(np.log(np.clip(p[np.arange(len(truth)), truth], 1e-15, 1 - 1e-15))))


def ece(p, truth, bins=15):
    conf, pred = p.max(1), p.argmax(1)
    right = (pred == truth).astype(float)
    edges = np.linspace(0, 1, bins + 1)
    e = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            e += m.mean() * abs(right[m].mean() - conf[m].mean())
    return float(e)


def run(binary, folder, name, args, tmp):
    x, y, splits = compare.load(folder, name)
    keep = ~np.isnan(x).any(1)
    rows = []
    for si, s in enumerate(splits["splits"]):
        tr = np.array([i for i in s["train"] if keep[i]])
        te = np.array([i for i in s["test"] if keep[i]])
        xtr, xte = compare.standardise(x[tr], x[te])
        ftr, fte = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
        write_csv(ftr, xtr, y[tr])
        write_csv(fte, xte, y[te])
        model = os.path.join(tmp, "m.model")
        subprocess.run([binary, "cv", "--data", ftr, "--no-standardize", "--probability", "--depth", args.depth,
                        "--sigma-b", args.sigma_b, "--C", args.C, "--threads", "2", "--out", model],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out = subprocess.run([binary, "predict", "--model", model, "--data", fte, "--probability", "--json"],
                             check=True, capture_output=True, text=True).stdout
        js = json.loads(out)
        classes = js["classes"]
        ours = np.array([r["probability"] for r in js["predictions"]])
        h = model_header(model)
        depth, sb, c = h["kernel"].get("depth", 0), h["kernel"].get("sigma_b", 0.0), h["fit"]["c"]
        ktr, kte = compare.ntk_grams(xtr, xte, [(depth, 0)], sb * sb)[(depth, 0)] if depth > 0 else \
            (2 * xtr @ xtr.T / xtr.shape[1] + sb * sb, 2 * xte @ xtr.T / xtr.shape[1] + sb * sb)
        svc = SVC(kernel="precomputed", C=c, probability=True, random_state=0).fit(ktr, y[tr])
        theirs = svc.predict_proba(kte)
        # Their columns in our class order.
        theirs = theirs[:, [list(svc.classes_).index(k) for k in classes]]
        truth = np.array([classes.index(v) for v in y[te]])
        rows.append([log_loss(ours, truth), log_loss(theirs, truth), ece(ours, truth), ece(theirs, truth),
                     float((ours.argmax(1) == truth).mean()), float((theirs.argmax(1) == truth).mean())])
        print("  %s split %d: L=%d sigma_b=%g C=%g  log-loss %.4f / %.4f  ECE %.4f / %.4f" %
              (name, si, depth, sb, c, *rows[-1][:4]), file=sys.stderr, flush=True)
    return np.array(rows).mean(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--ntksvm", required=True)
    ap.add_argument("--names", default="")
    ap.add_argument("--depth", default="1-5")
    ap.add_argument("--sigma-b", default="0")
    ap.add_argument("--C", default="1e-2:1e4:7")
    args = ap.parse_args()
    names = args.names.split(",") if args.names else sorted(
        f[:-len(".splits.json")] for f in os.listdir(args.folder) if f.endswith(".splits.json"))
    print("%-14s %9s %9s %8s %8s %8s %8s" % ("dataset", "LL ours", "LL sk", "ECE ours", "ECE sk", "acc ours", "acc sk"))
    allrows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            m = run(args.ntksvm, args.folder, name, args, tmp)
            allrows.append(m)
            print("%-14s %9.4f %9.4f %8.4f %8.4f %7.2f%% %7.2f%%" % (name, m[0], m[1], m[2], m[3], 100 * m[4], 100 * m[5]), flush=True)
    m = np.array(allrows).mean(0)
    print("%-14s %9.4f %9.4f %8.4f %8.4f %7.2f%% %7.2f%%" % ("mean", m[0], m[1], m[2], m[3], 100 * m[4], 100 * m[5]))


if __name__ == "__main__":
    main()
