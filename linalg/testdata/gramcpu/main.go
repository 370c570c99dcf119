//go:build unix

// Command gramcpu times linalg.Gram and linalg.SyrkLower on an n×k matrix
// and prints, per operation, one JSON line with the median and least wall
// time and process CPU time (user + system, all threads) of -runs calls
// after a warm-up call. On a shared machine the CPU time moves far less
// than the wall time when other processes take the cores; run two builds
// in alternation and compare the ratio Gram/SyrkLower of each round.
//
//	go build -o /tmp/gramcpu ./linalg/testdata/gramcpu
//	/tmp/gramcpu -threads 1 -runs 3 -tag new [-f64]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
)

// cpu returns the CPU time the process has used.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// run times Gram and SyrkLower of a random n×k matrix, runs calls each.
func run[T linalg.Float](n, k, runs int, ops []string, tag string) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := linalg.New[T](n, k)
	for i := range a.Data {
		a.Data[i] = T(rng.Float64()*2 - 1)
	}
	c := linalg.New[T](n, n)
	for _, op := range ops {
		f := func() {
			var err error
			if op == "gram" {
				err = linalg.Gram(a, c)
			} else {
				err = linalg.SyrkLower(1, a, 0, c)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		f() // warm-up: the first call also faults C's pages in
		var w, u []float64
		for range runs {
			t0, c0 := time.Now(), cpu()
			f()
			w = append(w, time.Since(t0).Seconds())
			u = append(u, (cpu() - c0).Seconds())
		}
		slices.Sort(w)
		slices.Sort(u)
		fmt.Printf("{\"bin\":%q,\"op\":%q,\"dtype\":\"%T\",\"threads\":%d,\"wall\":%.4f,\"cpu\":%.4f,\"wallmin\":%.4f,\"cpumin\":%.4f}\n", tag, op, T(0), linalg.Threads(), w[len(w)/2], u[len(u)/2], w[0], u[0])
	}
}

func main() {
	n := flag.Int("n", 12665, "rows of A (MNIST 0/1 by default)")
	k := flag.Int("k", 784, "columns of A")
	runs := flag.Int("runs", 3, "timed calls per operation")
	th := flag.Int("threads", 1, "linalg.SetThreads")
	f64 := flag.Bool("f64", false, "float64 instead of float32")
	tag := flag.String("tag", "", "label copied into each line (the build)")
	flag.Parse()
	linalg.SetThreads(*th)
	if *f64 {
		run[float64](*n, *k, *runs, []string{"gram", "syrk"}, *tag)
	} else {
		run[float32](*n, *k, *runs, []string{"gram", "syrk"}, *tag)
	}
}
