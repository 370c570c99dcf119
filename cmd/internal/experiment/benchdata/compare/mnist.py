#!/usr/bin/env python3
"""Ten-class MNIST: ntksvm against NumPy + scikit-learn, same run.

Trains on the first N training images (pixels/255, all ten classes) and
scores the 10,000 test images, at one grid point (the NTK of depth L,
sigma_b = 0, C), one-vs-one, two threads each:

  ntksvm    `ntksvm cv --data mnist --first N --test mnist-test
            --no-standardize --depth L --sigma-b 0 --C C` (float64; it also
            cross-validates the point over 4 folds, work scikit-learn is
            not asked to do, so the ratio is conservative)
  NumPy     the same NTK (sigma_w^2 = 2, Sigma1 = 2 x.x'/d, the arc-cosine
            recursion, as compare.py's ntk_grams) train x train and test x
            train in float64, computed in blocks of rows so that only the
            two Grams are held, then SVC(kernel='precomputed', C=C).fit /
            .score

Prints wall seconds of each phase, peak RSS of each tool, both accuracies,
and what scikit-learn would need at 60,000 points (the float64 Gram alone).
"""
import argparse
import gzip
import os
import resource
import subprocess
import sys
import time

import numpy as np
from sklearn.svm import SVC


def ntk_rows(z, x, depth, block=1000):
    """The depth-L NTK (sigma_b = 0) of the rows of z against x, float64,
    block rows at a time."""
    d = x.shape[1]
    nx = 2 * (x * x).sum(1) / d
    nz = 2 * (z * z).sum(1) / d
    out = np.empty((z.shape[0], x.shape[0]))
    for i in range(0, z.shape[0], block):
        s = 2 * z[i:i + block] @ x.T / d
        na, nb = nz[i:i + block], nx
        th = s.copy()
        for _ in range(depth):
            nrm = np.sqrt(np.outer(na, nb))
            with np.errstate(invalid="ignore", divide="ignore"):
                c = np.clip(np.where(nrm > 0, s / nrm, 0.0), -1, 1)
            t = np.arccos(c)
            s = nrm * (np.sin(t) + (np.pi - t) * np.cos(t)) / np.pi
            th = s + th * (np.pi - t) / np.pi
            # sigma_w^2 = 2 keeps the diagonal: Sigma(x, x) stays 2|x|^2/d
        out[i:i + block] = th
    return out


def idx(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        b = f.read()
    nd = b[3]
    dims = [int.from_bytes(b[4 + 4 * i:8 + 4 * i], "big") for i in range(nd)]
    return np.frombuffer(b, np.uint8, offset=4 + 4 * nd).reshape(dims)


def find(d, name):
    for p in (name, name + ".gz"):
        if os.path.exists(os.path.join(d, p)):
            return os.path.join(d, p)
    sys.exit("mnist.py: %s not found in %s" % (name, d))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mnist-dir", default=os.environ.get("NTKSVM_MNIST_DIR"))
    ap.add_argument("--ntksvm", default="bin/ntksvm")
    ap.add_argument("--first", type=int, default=20000)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--C", type=float, default=10.0)
    a = ap.parse_args()
    if not a.mnist_dir:
        sys.exit("mnist.py: set NTKSVM_MNIST_DIR or pass --mnist-dir")
    n = a.first

    t0 = time.perf_counter()
    cmd = [a.ntksvm, "cv", "--data", "mnist", "--first", str(n), "--test", "mnist-test",
           "--mnist-dir", a.mnist_dir, "--no-standardize", "--depth", str(a.depth), "--sigma-b", "0",
           "--C", "%g" % a.C, "--threads", "2"]
    out = subprocess.run(["/usr/bin/time", "-f", "peak RSS %M KB"] + cmd, check=True,
                         capture_output=True, text=True)
    t_ntk = time.perf_counter() - t0
    acc_line = [ln for ln in out.stdout.splitlines() if "accuracy" in ln][0]
    rss_ntk = [ln for ln in out.stderr.splitlines() if ln.startswith("peak RSS")][-1]
    print("ntksvm: %.1f s wall (kernel, 4-fold CV, refit, test), %s; %s" % (t_ntk, rss_ntk, acc_line.strip()))

    t0 = time.perf_counter()
    x = idx(find(a.mnist_dir, "train-images-idx3-ubyte"))[:n].reshape(n, -1) / 255.0
    y = idx(find(a.mnist_dir, "train-labels-idx1-ubyte"))[:n]
    xt = idx(find(a.mnist_dir, "t10k-images-idx3-ubyte")).reshape(10000, -1) / 255.0
    yt = idx(find(a.mnist_dir, "t10k-labels-idx1-ubyte"))
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    ktr, kte = ntk_rows(x, x, a.depth), ntk_rows(xt, x, a.depth)
    t_kernel = time.perf_counter() - t0
    t0 = time.perf_counter()
    m = SVC(kernel="precomputed", C=a.C, cache_size=1000).fit(ktr, y)
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    acc = m.score(kte, yt)
    t_pred = time.perf_counter() - t0
    t_sk = t_load + t_kernel + t_fit + t_pred
    rss_sk = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("NumPy + scikit-learn: %.1f s wall (load %.1f, kernel %.1f, fit %.1f, predict %.1f), peak RSS %d KB; accuracy %.2f%%"
          % (t_sk, t_load, t_kernel, t_fit, t_pred, rss_sk, 100 * acc))
    print("ratio (scikit-learn / ntksvm wall): %.1fx" % (t_sk / t_ntk))
    g = 60000 * 60000 * 8
    print("at 60,000 points the precomputed float64 kernel SVC needs is %.1f GB by itself (the test one "
          "another %.1f GB); ntksvm fits 60,000 points on demand within --mem 4G" % (g / 1e9, 10000 * 60000 * 8 / 1e9))


if __name__ == "__main__":
    main()
