#!/usr/bin/env python3
"""Times one training step of the paper's Fig. 1 network in PyTorch.

The network of "On the Equivalence between Neural Network and Support Vector
Machine" (Chen et al., NeurIPS 2021), Fig. 1: L hidden ReLU layers of width m,
no biases, NTK parameterisation (N(0, 1) weights, each layer's output scaled
by 1/sqrt(fan_in)), one full-batch subgradient step of the mean hinge loss on
f(x; W) - f(x; W_0) with the penalty, as ntksvm's NetworkStepper does (and as
`go test -bench BenchmarkNetworkStep ./svm` times it):

  paper:  lambda/2 * ||W_last / sqrt(m)||^2      (the authors' train_sgd.py)
  theory: lambda/2 * sum_l ||W_l - W_l,0||^2

The step is forward, backward (autograd) and the in-place SGD update with the
penalty's gradient folded in (torch._foreach ops), which is the fastest
formulation we found; f_0 is computed once, outside the timed step.

Prints one JSON line: {"impl": "torch", "threads", "coretype", "reg",
"seconds" (median of RUNS timed steps after one warm-up), "all"}.
"""
import argparse
import json
import os
import statistics
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--width", type=int, default=10000)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("-n", type=int, default=128)
    ap.add_argument("-d", type=int, default=784)
    ap.add_argument("--reg", choices=["paper", "theory"], default="paper")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--lam", type=float, default=0.001)
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    torch.set_flush_denormal(True)
    g = torch.Generator().manual_seed(1)
    dims = [a.d] + [a.width] * a.depth + [1]
    ws = [torch.randn(dims[i + 1], dims[i], generator=g) for i in range(len(dims) - 1)]
    for w in ws:
        w.requires_grad_(True)
    scale = [1.0 / dims[i] ** 0.5 for i in range(len(dims) - 1)]
    w0 = [w.detach().clone() for w in ws] if a.reg == "theory" else None
    x = torch.rand(a.n, a.d, generator=g)
    y = torch.tensor([1.0 - 2.0 * (i % 2) for i in range(a.n)])

    def forward(x):
        h = x
        for l, w in enumerate(ws):
            h = torch.matmul(h, w.t()) * scale[l]
            if l < len(ws) - 1:
                h = torch.relu(h)
        return h.squeeze(1)

    with torch.no_grad():
        f0 = forward(x)

    m = float(a.width)

    def step():
        for w in ws:
            w.grad = None
        f = forward(x) - f0
        loss = torch.clamp(1.0 - y * f, min=0.0).mean()
        loss.backward()
        with torch.no_grad():
            grads = [w.grad for w in ws]
            if a.reg == "theory":
                # w -= lr*(grad + lam*(w - w0)) = (1 - lr*lam) w + lr*lam*w0 - lr*grad
                torch._foreach_mul_(ws, 1.0 - a.lr * a.lam)
                torch._foreach_add_(ws, w0, alpha=a.lr * a.lam)
                torch._foreach_add_(ws, grads, alpha=-a.lr)
            else:
                torch._foreach_add_(ws, grads, alpha=-a.lr)
                ws[-1].mul_(1.0 - a.lr * a.lam / m)

    step()  # warm-up: allocations, thread pool
    times = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    print(json.dumps({"impl": "torch", "threads": a.threads,
                      "coretype": os.environ.get("OPENBLAS_CORETYPE", "default"),
                      "reg": a.reg, "seconds": statistics.median(times), "all": times,
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
