package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/internal/outpath"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/classify/certify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

// certifyClasses is "ntksvm certify" for a multi-class model of "ntksvm
// cv" or "train" (package svm/classify/certify does the work): both norms
// unless --norm names one, radii in the units of --data, the search
// bracket grown past --hi while the margin allows.
func certifyClasses(ctx context.Context, e *env, f *certifyFlags, m *svm.Model) error {
	norms, search, err := f.checkClasses(m)
	if err != nil {
		return err
	}
	c, err := classify.FromModel(m)
	if err != nil {
		return fmt.Errorf("%s: %w", f.model, err)
	}
	d, err := certifyClassData(e, f, m)
	if err != nil {
		return err
	}
	t0 := time.Now()
	idx, known, acc, err := certifyClassPoints(ctx, f, c, d)
	if err != nil {
		return err
	}
	if !f.jsonOut {
		fmt.Fprintf(e.stderr, "%s %s, %d classes, %v: %d points of %s, %s, seed %d\n", m.Machine, m.Scheme, len(c.Classes), m.Kernel, len(idx), f.data.data, normNames(norms), f.seed)
		if known < d.N() && d.Y != nil {
			fmt.Fprintf(e.stderr, "%d points have a class the model does not know (counted as wrong)\n", d.N()-known)
		}
	}
	pr := progress.New(e.stderr, e.isTerminal, "certify", int64(len(idx)*len(norms)))
	rs, bad, err := certify.Certify(ctx, c, d.X, idx, certify.Options{Norms: norms, Search: search, Tight: f.tight, Clip: f.clip,
		Verify: f.verify, Seed: f.seed, Threads: f.threads, Progress: func(done, _ int) { pr.Set(int64(done)) }})
	pr.Done()
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := certifyWriteClasses(ctx, f.out, c.Classes, d, norms, rs); err != nil {
			return err
		}
	}
	certifyPrintClasses(e.stdout, f, m, c.Classes, norms, rs, acc, time.Since(t0).Seconds(), bad)
	if len(bad) > 0 {
		return fmt.Errorf("--verify: %d sampled points where a certificate fails (a bug)", len(bad))
	}
	return nil
}

// checkClasses validates the flags for a multi-class model and returns
// the norms and the search.
func (f *certifyFlags) checkClasses(m *svm.Model) ([]ibp.Norm, ibp.SearchOptions, error) {
	var s ibp.SearchOptions
	switch {
	case f.net != "" || f.net0 != "" || f.initSeed >= 0:
		return nil, s, usageError("--net, --net0 and --init-seed certify networks, not a model")
	case f.data.data == "":
		return nil, s, usageError("--model %s is a multi-class model: --data is required (the points to certify, with the features it was trained on)", f.model)
	case f.data.standardize:
		return nil, s, usageError("--model %s standardises its features itself (recorded in the model): --standardize would preprocess the points otherwise than its training data", f.model)
	case f.threads < 0:
		return nil, s, usageError("--threads %d: want ≥ 0 (0: GOMAXPROCS)", f.threads)
	case f.verify < 0:
		return nil, s, usageError("--verify %d: want ≥ 0", f.verify)
	}
	if f.cls.on() {
		return nil, s, usageError("--positive and --classes choose a binary task: --model %s is a multi-class model", f.model)
	}
	if err := f.data.check("--data", f.data.data); err != nil {
		return nil, s, err
	}
	norms := []ibp.Norm{ibp.Linf, ibp.L2}
	if f.norm != "" {
		n, err := ibp.ParseNorm(f.norm)
		if err != nil {
			return nil, s, usageError("--norm: %v", err)
		}
		norms = []ibp.Norm{n}
	}
	if f.points != "all" {
		var err error
		if f.nPoints, err = strconv.Atoi(f.points); err != nil || f.nPoints < 1 {
			return nil, s, usageError("--points %q: want all or a positive count", f.points)
		}
	}
	s = ibp.SearchOptions{Init: f.init, Lo: f.lo, Hi: f.hi, Tol: f.tol, MaxIter: f.maxIter, Grow: true}
	if f.init == -1 {
		s.Init = ibp.KernelSearch().Init
	}
	if err := s.Validate(); err != nil {
		return nil, s, usageError("%v", err)
	}
	ins := append(inputs("--data", f.data.data), outpath.Path{Flag: "--model", Path: f.model})
	if err := checkOutputs(outPath("--out", f.out), ins...); err != nil {
		return nil, s, err
	}
	if m.Task == svm.TaskRegression {
		return nil, s, usageError("--model %s: a regression model: certify bounds the decisions of classifiers", f.model)
	}
	return norms, s, nil
}

// certifyClassData reads --data and checks that its points have the
// features the model was trained on.
func certifyClassData(e *env, f *certifyFlags, m *svm.Model) (*data.Dataset, error) {
	d, err := f.data.open(e, "--data", f.data.data, m.Train.D)
	if err != nil {
		return nil, err
	}
	if d.D() != m.Train.D {
		return nil, usageError("--data %s has %d features, the model %s was trained on %d: certify needs the features the model was trained on", f.data.data, d.D(), f.model, m.Train.D)
	}
	if d.N() == 0 {
		return nil, usageError("--data %s has no points", f.data.data)
	}
	return d, nil
}

// certifyClassPoints selects the points to certify (a seeded random
// subset with --points N, then the correctly classified ones with
// --correct-only) and returns how many points have a class the model knows
// and the accuracy over all points (NaN without labels).
func certifyClassPoints(ctx context.Context, f *certifyFlags, c *classify.Classifier, d *data.Dataset) (idx []int, known int, acc float64, err error) {
	acc = math.NaN()
	if d.Y == nil && f.correctOnly {
		return nil, 0, acc, usageError("--correct-only needs labels in --data")
	}
	var right []bool
	if d.Y != nil {
		pred, err := c.PredictIndex(ctx, d.X)
		if err != nil {
			return nil, 0, acc, err
		}
		right = make([]bool, d.N())
		n := 0
		for i, y := range d.Y {
			if slices.Contains(c.Classes, d.Classes[y]) {
				known++
			}
			if right[i] = c.Classes[pred[i]] == d.Classes[y]; right[i] {
				n++
			}
		}
		acc = float64(n) / float64(d.N())
	}
	idx = make([]int, d.N())
	for i := range idx {
		idx[i] = i
	}
	if f.nPoints > 0 && f.nPoints < len(idx) {
		rng := rand.New(rand.NewPCG(f.seed, 0xce27))
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:f.nPoints]
		slices.Sort(idx)
	}
	if f.correctOnly {
		idx = slices.DeleteFunc(idx, func(i int) bool { return !right[i] })
	}
	if len(idx) == 0 {
		return nil, known, acc, usageError("no points to certify")
	}
	return idx, known, acc, nil
}
