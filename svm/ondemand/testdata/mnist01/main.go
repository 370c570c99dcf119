// Command mnist01 solves the exact SVM dual on the NTK of MNIST 0/1 (the
// 12,665 training points) twice over: on the dense Gram held in memory and
// on the on-demand Gram of package ondemand, so that their optima, times
// and peak memory (run each under /usr/bin/time -v) can be compared.
//
//	go run ./svm/ondemand/testdata/mnist01 -mode dense
//	go run ./svm/ondemand/testdata/mnist01 -mode ondemand -cache 100 -store float32
//
// The data directory is $NTKSVM_MNIST_DIR (see mnist.Locate). It prints
// one JSON line.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"os"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/ondemand"
)

func main() {
	mode := flag.String("mode", "ondemand", "dense or ondemand")
	store := flag.String("store", "float64", "ondemand: cached rows as float32 or float64")
	cacheMB := flag.Int64("cache", 100, "ondemand: row cache in MiB")
	depth := flag.Int("depth", 1, "NTK depth L")
	lambda := flag.Float64("lambda", 0.064, "λ of the sum objective (C = 1/λ)")
	bias := flag.Bool("bias", true, "solve with a bias b")
	gap := flag.Float64("gap", 1e-8, "target relative duality gap")
	flag.Parse()
	dir, _, err := mnist.Locate("")
	if err != nil {
		log.Fatal(err)
	}
	train, _, err := mnist.LoadBinary[float64](dir, 0, 1, mnist.Options{})
	if err != nil {
		log.Fatal(err)
	}
	y := make([]float64, len(train.Y))
	copy(y, train.Y)
	ctx := context.Background()
	p := ntk.DefaultSpec(*depth)
	cfg := svm.DualConfig{Loss: svm.Hinge, Lambda: *lambda, Bias: *bias, Tol: *gap}
	out := map[string]any{"mode": *mode, "n": train.X.Rows, "lambda": *lambda, "depth": *depth, "threads": linalg.Threads()}
	t0 := time.Now()
	var k svm.KernelMatrix
	var stats func() ondemand.Stats
	switch *mode {
	case "dense":
		g, err := ntk.Gram(ctx, p, train.X, ntk.Options{})
		if err != nil {
			log.Fatal(err)
		}
		k = svm.NewDense(g)
		out["gram_seconds"] = time.Since(t0).Seconds()
	case "ondemand":
		oc := ondemand.Config{CacheBytes: *cacheMB << 20}
		switch *store {
		case "float32":
			m, err := ondemand.NewNTK[float32](ctx, train.X, p, oc)
			if err != nil {
				log.Fatal(err)
			}
			k, stats = m, m.Stats
		case "float64":
			m, err := ondemand.NewNTK[float64](ctx, train.X, p, oc)
			if err != nil {
				log.Fatal(err)
			}
			k, stats = m, m.Stats
		default:
			log.Fatalf("-store %q: want float32 or float64", *store)
		}
		out["store"], out["cache_mib"] = *store, *cacheMB
	default:
		log.Fatalf("-mode %q: want dense or ondemand", *mode)
	}
	t1 := time.Now()
	r, err := svm.SolveDual(ctx, k, y, cfg)
	if err != nil {
		log.Fatal(err)
	}
	out["solve_seconds"] = time.Since(t1).Seconds()
	out["total_seconds"] = time.Since(t0).Seconds()
	out["dual"], out["primal"], out["rel_gap"] = r.DualObj, r.Primal, r.RelGap
	out["iterations"], out["support_vectors"], out["bias"], out["converged"] = r.Iterations, r.SupportVectors, r.Machine.Bias, r.Converged
	if stats != nil {
		out["cache"] = stats()
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		log.Fatal(err)
	}
}
