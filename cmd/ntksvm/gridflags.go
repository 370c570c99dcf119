package main

import (
	"flag"

	"github.com/ntksvm/ntksvm/svm/classify"
)

// gridFlags are the hyper-parameters cross-validation chooses from.
type gridFlags struct {
	kinds, depths, sigmaB, cs string
	classWeight               string
}

func (g *gridFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&g.kinds, "kernel", "ntk", "kernels to try, comma-separated: ntk, nngp, and fixed (for every depth L, the NTKs of the net whose first F = 1…L−1 layers are not trained; F = 0 is ntk, F = L nngp), e.g. ntk,nngp,fixed")
	fs.StringVar(&g.depths, "depth", "1-5", "hidden layers to try: 3, 1-5 or 0,2,4 (0 is the input kernel)")
	fs.StringVar(&g.sigmaB, "sigma-b", "0,0.5,1,2", "bias standard deviations σ_b to try (0: no bias)")
	fs.StringVar(&g.cs, "C", "1e-2:1e4:7", "C values to try: a list (0.1,1,10) or LO:HI:N in log scale")
	fs.StringVar(&g.classWeight, "class-weight", "none", "svm and svm2: weights of C per class (libsvm's -wi): none, balanced (n/(k·n_c), scikit-learn's), "+
		"or CLASS=W,… (C of class CLASS is W·C, others 1); a list such as none,balanced lets cross-validation choose")
}

func (g *gridFlags) grid() (classify.Grid, error) {
	var gr classify.Grid
	var err error
	if gr.Kinds, gr.Fixed, err = classify.ParseKernels(g.kinds); err != nil {
		return gr, usageError("--kernel: %v", err)
	}
	if gr.Depths, err = classify.ParseDepths(g.depths); err != nil {
		return gr, usageError("--depth: %v", err)
	}
	if gr.BiasStds, err = classify.ParseValues(g.sigmaB, true); err != nil {
		return gr, usageError("--sigma-b: %v", err)
	}
	if gr.Cs, err = classify.ParseValues(g.cs, false); err != nil {
		return gr, usageError("--C: %v", err)
	}
	if g.classWeight != "" && g.classWeight != "none" {
		if gr.ClassWeights, err = classify.ParseClassWeights(g.classWeight); err != nil {
			return gr, usageError("--class-weight: %v", err)
		}
	}
	return gr, nil
}
