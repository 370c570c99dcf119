// Command dual solves the class-weighted SVM dual on a precomputed kernel
// for classweight.py: it reads K.npy (n×n), y.npy (class indices 0 or 1)
// and the names of the two classes from DIR, resolves the class weighting
// -weight as "ntksvm cv --class-weight" does (classify.ClassWeight), solves
// svm.SolveDual (hinge loss with a bias, C = -C, relative duality gap
// -gap) and prints one JSON line: the weights, the dual objective
// Σa − ½aᵀQa, the primal, the gap and the iterations.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
)

func main() {
	dir := flag.String("dir", "", "folder with K.npy, y.npy and classes.txt")
	c := flag.Float64("C", 1, "C")
	weight := flag.String("weight", "balanced", "class weighting, as --class-weight (one)")
	gap := flag.Float64("gap", 1e-12, "target relative duality gap")
	flag.Parse()
	if err := run(*dir, *c, *weight, *gap); err != nil {
		fmt.Fprintln(os.Stderr, "dual:", err)
		os.Exit(1)
	}
}

func run(dir string, c float64, weight string, gap float64) error {
	k, err := npy.Read[float64](filepath.Join(dir, "K.npy"))
	if err != nil {
		return err
	}
	yc, err := npy.ReadVector[float64](filepath.Join(dir, "y.npy"))
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, "classes.txt"))
	if err != nil {
		return err
	}
	classes := strings.Split(strings.TrimSpace(string(b)), "\n")
	ws, err := classify.ParseClassWeights(weight)
	if err != nil || len(ws) != 1 {
		return fmt.Errorf("-weight %q: %v", weight, err)
	}
	idx := make([]int, len(yc))
	y := make([]float64, len(yc))
	for i, v := range yc {
		idx[i] = int(v)
		y[i] = 1 - 2*v // class 0 is +1
	}
	cw, err := ws[0].Weights(classes, idx)
	if err != nil {
		return err
	}
	var w []float64
	if cw != nil {
		w = make([]float64, len(y))
		for i, v := range idx {
			w[i] = cw[v]
		}
	}
	r, err := svm.SolveDual(context.Background(), svm.NewDense(k), y, svm.DualConfig{Loss: svm.Hinge, Lambda: 1 / c, Bias: true, Tol: gap, Weights: w})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"class_weights": cw, "dual": r.DualObj, "primal": r.Primal,
		"rel_gap": r.RelGap, "iterations": r.Iterations, "converged": r.Converged, "support_vectors": r.SupportVectors})
}
