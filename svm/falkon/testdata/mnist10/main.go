// Command mnist10 fits full 10-class MNIST (60,000 training and 10,000 test
// images, pixels/255) by Falkon kernel ridge regression on the NTK, one
// solve for the ten one-vs-rest targets (+1 for the class, −1 otherwise),
// and reports the test accuracy (argmax of the ten outputs), the times and
// the memory plan. Run it under /usr/bin/time -v for the peak RSS.
//
//	go run ./svm/falkon/testdata/mnist10 -m 10000 -iter 20
//
// The data directory is $NTKSVM_MNIST_DIR (see mnist.Locate). -train N
// uses the first N training images (for quick trials), -mem a budget
// (default: membudget.Default) that the plan must fit. It prints one JSON
// line.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/falkon"
)

func main() {
	m := flag.Int("m", 10000, "Nyström centres M")
	iter := flag.Int("iter", 20, "CG iterations at most")
	depth := flag.Int("depth", 1, "NTK depth L")
	shift := flag.Float64("shift", 0.06, "diagonal shift c of svm.KRR's units (c = λn in Falkon's)")
	first := flag.Int("train", 0, "use the first N training images (0: all)")
	seed := flag.Uint64("seed", 1, "seed of the centres")
	leverage := flag.Bool("leverage", false, "draw the centres by approximate leverage scores")
	storeFlag := flag.Bool("store", true, "keep blocks of K_nM in float32 in the budget's spare room")
	memFlag := flag.String("mem", "", "memory budget (e.g. 4G); default a share of the available memory")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the fit to this file")
	flag.Parse()
	t0 := time.Now()
	dir, _, err := mnist.Locate("")
	if err != nil {
		log.Fatal(err)
	}
	train, test, err := mnist.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	n := train.Images.Count
	if *first > 0 {
		n = min(n, *first)
	}
	x, y := pixels(train, n), targets(train, n)
	xt := pixels(test, test.Images.Count)
	labels := test.Labels.Values
	train, test = nil, nil
	debug.FreeOSMemory()
	budget, ok := membudget.Default()
	if *memFlag != "" {
		if budget, err = membudget.ParseSize(*memFlag); err != nil {
			log.Fatal(err)
		}
	} else if !ok {
		budget = 4 << 30
	}
	// The collector works harder near the budget.
	debug.SetMemoryLimit(budget)
	fixed := int64(len(x.Data)+len(xt.Data))*8 + int64(len(y.Data))*8 + 64<<20 // inputs, targets, runtime
	if err := falkon.CheckBudget(n, *m, 10, budget, fixed); err != nil {
		if mc, err2 := falkon.MaxCentres(n, 10, budget, fixed); err2 == nil {
			log.Fatalf("%v (at most M = %d fits)", err, mc)
		}
		log.Fatal(err)
	}
	// The rest of the budget keeps blocks of K_nM in float32 (less a
	// margin of 5 % for the runtime).
	store := max(0, budget-fixed-falkon.Bytes(n, *m, 10, 0)-budget/20)
	if !*storeFlag {
		store = 0
	}
	k, err := falkon.NewNTK(x, ntk.DefaultSpec(*depth))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tLoad := time.Since(t0)
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
	}
	t1 := time.Now()
	last := t1
	res, err := falkon.Fit(ctx, k, y, falkon.Config{M: *m, Shift: *shift, Seed: *seed, MaxIter: *iter, Leverage: *leverage, StoreBytes: store,
		Progress: func(it int, r float64) {
			fmt.Fprintf(os.Stderr, "iteration %d: residual %.3g, %.1f s\n", it, r, time.Since(last).Seconds())
			last = time.Now()
		}})
	if err != nil {
		log.Fatal(err)
	}
	tFit := time.Since(t1)
	pprof.StopCPUProfile()
	t2 := time.Now()
	b, err := k.Centre(res.Centres)
	if err != nil {
		log.Fatal(err)
	}
	f, err := b.(*falkon.NTKBlocks[float64]).Test(xt)
	if err != nil {
		log.Fatal(err)
	}
	out, err := res.Predict(ctx, xt.Rows, f)
	if err != nil {
		log.Fatal(err)
	}
	correct := 0
	for i := range out.Rows {
		best := 0
		for j, v := range out.Row(i) {
			if v > out.Row(i)[best] {
				best = j
			}
		}
		if best == int(labels[i]) {
			correct++
		}
	}
	summary := map[string]any{
		"n": n, "m": *m, "depth": *depth, "shift": *shift, "leverage": *leverage, "threads": linalg.Threads(),
		"iterations": res.Iterations, "stored_blocks": res.StoredBlocks, "residuals": res.Residuals, "jitter": res.Jitter, "block_rows": res.BlockRows,
		"test_accuracy": float64(correct) / float64(out.Rows),
		"load_seconds":  tLoad.Seconds(), "fit_seconds": tFit.Seconds(), "predict_seconds": time.Since(t2).Seconds(),
		"total_seconds": time.Since(t0).Seconds(),
		"budget_bytes":  budget, "planned_bytes": falkon.Bytes(n, *m, 10, 0) + fixed,
	}
	if err := json.NewEncoder(os.Stdout).Encode(summary); err != nil {
		log.Fatal(err)
	}
}

// pixels returns the first n images of s as rows of pixels/255.
func pixels(s *mnist.Set, n int) linalg.Matrix[float64] {
	d := s.Images.Rows * s.Images.Cols
	x := linalg.New[float64](n, d)
	for i := range n {
		r := x.Row(i)
		for j, p := range s.Images.Image(i) {
			r[j] = float64(p) / 255
		}
	}
	return x
}

// targets returns the ±1 one-hot targets of the first n labels of s.
func targets(s *mnist.Set, n int) linalg.Matrix[float64] {
	y := linalg.New[float64](n, 10)
	for i := range n {
		r := y.Row(i)
		for j := range r {
			r[j] = -1
		}
		r[s.Labels.Values[i]] = 1
	}
	return y
}
