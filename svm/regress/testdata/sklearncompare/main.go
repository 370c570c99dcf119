// Command sklearncompare is the Go side of compare.py: it fits a
// regress.Regressor on a training CSV with the folds of a file (one fold
// number per training row), and prints one JSON object: every grid
// point's cross-validated mean squared error, the chosen point, the
// predictions on the test CSV and their metrics. With -round32 (one grid
// point, SVR) it instead solves the ε-SVR dual with svm.SolveDual on the
// Gram rounded to float32, as libsvm holds it (its kernel cache stores
// Qfloat = float), and prints the test predictions of that machine with
// the float64 cross kernel, as libsvm predicts: the check that the two
// solvers reach the same machine on the same numbers.
//
//	go run ./svm/regress/testdata/sklearncompare -train T.csv -test E.csv -folds F.txt \
//	    -machine svr -depth 1-5 -sigma-b 0,0.5,1,2 -C 1e-3:1e4:8 -epsilon 0.01,0.1,0.5 -tol 1e-3
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/dataset"
	"github.com/ntksvm/ntksvm/svm/regress"
)

func main() {
	trainPath := flag.String("train", "", "training CSV (label: the last column)")
	testPath := flag.String("test", "", "test CSV")
	foldsPath := flag.String("folds", "", "one fold number per training row")
	machine := flag.String("machine", "svr", "svr or krr")
	depths := flag.String("depth", "1-5", "depths")
	sigmaB := flag.String("sigma-b", "0,0.5,1,2", "σ_b values")
	cs := flag.String("C", "1e-3:1e4:8", "C values")
	eps := flag.String("epsilon", "0.01,0.1,0.5", "ε values (SVR)")
	tol := flag.Float64("tol", 1e-3, "SVR's KKT tolerance")
	round32 := flag.Bool("round32", false, "solve one SVR grid point on the Gram rounded to float32 (libsvm's kernel cache)")
	flag.Parse()
	o := regress.Options{Select: classify.SelectBest, Tol: *tol, Threads: 2}
	var err error
	must := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	o.Machine, err = regress.ParseMachine(*machine)
	must(err)
	o.Grid.Kinds = []ntk.Kind{ntk.KindNTK}
	o.Grid.Depths, err = classify.ParseDepths(*depths)
	must(err)
	o.Grid.BiasStds, err = classify.ParseValues(*sigmaB, true)
	must(err)
	o.Grid.Cs, err = classify.ParseValues(*cs, false)
	must(err)
	o.Grid.Epsilons, err = classify.ParseValues(*eps, true)
	must(err)
	train, err := dataset.Load(*trainPath, dataset.Options{})
	must(err)
	test, err := dataset.Load(*testPath, dataset.Options{})
	must(err)
	b, err := os.ReadFile(*foldsPath)
	must(err)
	for _, f := range strings.Fields(string(b)) {
		k, err := strconv.Atoi(f)
		must(err)
		o.FoldOf = append(o.FoldOf, k)
	}
	y, err := train.Targets()
	must(err)
	yt, err := test.Targets()
	must(err)
	ctx := context.Background()
	if *round32 {
		must(solveRounded(ctx, o, train.X, y, test.X))
		return
	}
	r := regress.New(o)
	t0 := time.Now()
	must(r.Fit(ctx, train.X, y))
	secs := time.Since(t0).Seconds()
	pred, err := r.Predict(ctx, test.X)
	must(err)
	out := map[string]any{"side": "ntksvm", "machine": *machine, "seconds": secs, "test_pred": pred,
		"test": regress.Evaluate(pred, yt), "support_vectors": r.SupportVectors(),
		"chosen": regress.Point{Depth: r.Kernel.Depth, BiasStd: r.Kernel.BiasStd, C: r.C, Epsilon: r.Epsilon}}
	if r.CV != nil {
		out["scores"] = r.CV.Scores
		out["cv_rmse"] = r.CV.Scores[r.CV.Chosen].RMSE
	}
	must(json.NewEncoder(os.Stdout).Encode(out))
}

// solveRounded is -round32: the ε-SVR of o's single grid point on the
// standardised inputs and targets, on the float32-rounded Gram.
func solveRounded(ctx context.Context, o regress.Options, x linalg.Matrix[float64], y []float64, xt linalg.Matrix[float64]) error {
	sc := dataset.FitScaler(x)
	xs, err := sc.Apply(x)
	if err != nil {
		return err
	}
	xts, err := sc.Apply(xt)
	if err != nil {
		return err
	}
	mean, std := classify.MeanStd(y)
	z := make([]float64, len(y))
	for i, v := range y {
		z[i] = (v - mean) / std
	}
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: o.Grid.Depths[0], WeightStd: math.Sqrt2, BiasStd: o.Grid.BiasStds[0]}
	k, err := ntk.Gram(ctx, spec, xs, ntk.Options{})
	if err != nil {
		return err
	}
	for i, v := range k.Data {
		k.Data[i] = float64(float32(v))
	}
	res, err := svm.SolveDual(ctx, svm.NewDense(k), z, svm.DualConfig{Loss: svm.EpsInsensitiveLoss(o.Grid.Epsilons[0]),
		Lambda: 1 / o.Grid.Cs[0], Bias: true, KKT: o.Tol})
	if err != nil {
		return err
	}
	kt, err := ntk.Cross(ctx, spec, xts, xs, ntk.Options{})
	if err != nil {
		return err
	}
	pred := make([]float64, xt.Rows)
	if err := res.Machine.Predict(pred, svm.NewDense(kt)); err != nil {
		return err
	}
	for i, g := range pred {
		pred[i] = mean + std*g
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"side": "ntksvm", "round32": true, "test_pred": pred})
}
