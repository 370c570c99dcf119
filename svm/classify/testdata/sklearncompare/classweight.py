#!/usr/bin/env python3
"""Class weights: ntksvm's weighted SVM dual against scikit-learn's
SVC(kernel='precomputed', class_weight=...) on the same kernel.

For each binary dataset named (rows with missing values dropped, features
standardised with the whole set's statistics, ddof 0), the NTK Gram of depth
--depth with sigma_b = 0 (compare.py's ntk_grams, ntksvm's kernel step for
step) is written to a temporary folder with the class indices; then for every
C of --C and every weighting of --weights (balanced, or CLASS=W,... with the
placeholders {0} and {1} for the two class names):

  ntksvm    dual/main.go: the weighting resolved by classify.ClassWeight (as
            "ntksvm cv --class-weight" resolves it), svm.SolveDual to a
            relative duality gap of 1e-12;
  sklearn   SVC(kernel='precomputed', C, class_weight='balanced' or the dict,
            tol=1e-10); its dual objective sum(a) - 1/2 a'Qa from dual_coef_.

Prints both dual objectives, their relative difference and both weight
vectors; exits 1 if a relative difference exceeds --max-rel (1e-6).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from sklearn.svm import SVC
from sklearn.utils.class_weight import compute_class_weight

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", "..", ".."))
spec = importlib.util.spec_from_file_location(
    "compare", os.path.join(root, "cmd/internal/experiment/benchdata/compare/compare.py"))
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--dual", required=True, help="the built dual/main.go")
    ap.add_argument("--names", default="breast_cancer,ionosphere,diabetes")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--C", default="1,10")
    ap.add_argument("--weights", default="balanced;{0}=3,{1}=0.5")
    ap.add_argument("--max-rel", type=float, default=1e-6)
    args = ap.parse_args()
    worst = 0.0
    print("%-14s %5s %-28s %20s %20s %9s" % ("dataset", "C", "weights", "dual ntksvm", "dual sklearn", "rel diff"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.names.split(","):
            x, labels, _ = compare.load(args.folder, name)
            keep = ~np.isnan(x).any(1)
            x, labels = x[keep], labels[keep]
            classes = sorted(set(labels))
            if len(classes) != 2:
                sys.exit("%s has %d classes; this comparison is binary" % (name, len(classes)))
            y = np.array([classes.index(v) for v in labels], dtype=float)
            xs, _ = compare.standardise(x, x[:1])
            k, _ = compare.ntk_grams(xs, xs[:1], [(args.depth, 0)])[(args.depth, 0)]
            k = (k + k.T) / 2
            np.save(os.path.join(tmp, "K.npy"), k)
            np.save(os.path.join(tmp, "y.npy"), y)
            with open(os.path.join(tmp, "classes.txt"), "w") as f:
                f.write("\n".join(classes) + "\n")
            for c in [float(v) for v in args.C.split(",")]:
                for wspec in args.weights.split(";"):
                    wspec = wspec.format(*classes)
                    out = subprocess.run([args.dual, "-dir", tmp, "-C", repr(c), "-weight", wspec],
                                         check=True, capture_output=True, text=True).stdout
                    ours = json.loads(out)
                    if wspec == "balanced":
                        cw = "balanced"
                        theirs_w = compute_class_weight("balanced", classes=np.array(classes), y=labels)
                    else:
                        cw = {kv.rsplit("=", 1)[0]: float(kv.rsplit("=", 1)[1]) for kv in wspec.split(",")}
                        theirs_w = np.array([cw.get(k, 1.0) for k in classes])
                    svc = SVC(kernel="precomputed", C=c, class_weight=cw, tol=1e-10, cache_size=1000).fit(k, labels)
                    a = svc.dual_coef_[0]  # y_i a_i over the support vectors
                    sv = svc.support_
                    dual = np.abs(a).sum() - 0.5 * a @ k[np.ix_(sv, sv)] @ a
                    rel = abs(ours["dual"] - dual) / abs(dual)
                    worst = max(worst, rel)
                    print("%-14s %5g %-28s %20.12g %20.12g %9.2e   weights %s / %s" % (
                        name, c, wspec, ours["dual"], dual, rel, np.round(ours["class_weights"] or [1, 1], 6).tolist(),
                        np.round(theirs_w, 6).tolist()), flush=True)
    print("largest relative difference %.2e (limit %.0e)" % (worst, args.max_rel))
    sys.exit(0 if worst <= args.max_rel else 1)


if __name__ == "__main__":
    main()
