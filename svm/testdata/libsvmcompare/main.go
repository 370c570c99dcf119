// Command libsvmcompare is the Go side of run.sh: it writes the NTK Gram of
// MNIST 0/1 and its labels as .npy files (and, with -text, in libsvm's
// precomputed-kernel text format), and times svm.SolveDual on the Gram
// read back from the .npy file, in memory, as compare.py times
// scikit-learn's libsvm on the same file.
//
//	go run ./svm/testdata/libsvmcompare -write DIR [-text] [-depth 1]
//	go run ./svm/testdata/libsvmcompare -solve DIR [-lambda 0.064] [-bias] [-runs 5]
//
// -solve prints one JSON line: the seconds to read K.npy, the median
// seconds of the solves, and the solution's dual objective (libsvm's form
// Σa − ½aᵀQa), iterations and support vectors.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

func main() {
	write := flag.String("write", "", "write K.npy and y.npy (NTK Gram of MNIST 0/1 train) into this directory")
	text := flag.Bool("text", false, "with -write: also K.libsvm, libsvm's precomputed-kernel text format")
	depth := flag.Int("depth", 1, "with -write: NTK depth L")
	solve := flag.String("solve", "", "time SolveDual on DIR/K.npy and DIR/y.npy")
	lambda := flag.Float64("lambda", 0.064, "λ of the sum objective (libsvm's C = 1/λ)")
	bias := flag.Bool("bias", true, "solve with a bias b, as libsvm does")
	gap := flag.Float64("gap", 1e-3, "target relative duality gap")
	runs := flag.Int("runs", 5, "timed solves (median reported)")
	prof := flag.String("cpuprofile", "", "with -solve: write a CPU profile of the timed solves to this file")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	switch {
	case *write != "":
		if err := writeGram(*write, *depth, *text); err != nil {
			log.Fatal(err)
		}
	case *solve != "":
		if err := timeSolve(*solve, *lambda, *bias, *gap, *runs); err != nil {
			log.Print(err)
			os.Exit(1)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
}

func writeGram(dir string, depth int, text bool) error {
	train, _, err := mnist.LoadBinary[float64](os.Getenv(mnist.EnvDir), 0, 1, mnist.Options{})
	if err != nil {
		return err
	}
	k, err := ntk.Gram(context.Background(), ntk.DefaultSpec(depth), train.X, ntk.Options{})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := npy.Write(filepath.Join(dir, "K.npy"), k); err != nil {
		return err
	}
	if err := npy.WriteVector(filepath.Join(dir, "y.npy"), train.Y); err != nil {
		return err
	}
	if !text {
		return nil
	}
	f, err := os.Create(filepath.Join(dir, "K.libsvm"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := svm.WritePrecomputed(w, train.Y, k); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func timeSolve(dir string, lambda float64, bias bool, gap float64, runs int) error {
	t0 := time.Now()
	k, err := npy.Read[float64](filepath.Join(dir, "K.npy"))
	if err != nil {
		return err
	}
	read := time.Since(t0).Seconds()
	y, err := npy.ReadVector[float64](filepath.Join(dir, "y.npy"))
	if err != nil {
		return err
	}
	km := svm.NewDense(k)
	cfg := svm.DualConfig{Loss: svm.Hinge, Lambda: lambda, Bias: bias, Tol: gap}
	if _, err := svm.SolveDual(context.Background(), km, y, cfg); err != nil { // warm-up
		return err
	}
	var secs []float64
	var r *svm.DualResult
	for range max(runs, 1) {
		t := time.Now()
		if r, err = svm.SolveDual(context.Background(), km, y, cfg); err != nil {
			return err
		}
		secs = append(secs, time.Since(t).Seconds())
	}
	slices.Sort(secs)
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"side": "ntksvm", "n": k.Rows, "C": 1 / lambda, "bias": bias,
		"read_npy_seconds": read, "solve_seconds": secs[len(secs)/2], "solve_all": secs,
		"dual": r.DualObj, "primal": r.Primal, "rel_gap": r.RelGap, "b": r.Machine.Bias,
		"iterations": r.Iterations, "support_vectors": r.SupportVectors,
	})
}
