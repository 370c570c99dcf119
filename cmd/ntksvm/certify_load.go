package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// certifyBuild loads the model and the points and returns the certifier.
func certifyBuild(ctx context.Context, e *env, f *certifyFlags) (certifier, *certifyData, string, error) {
	if f.model != "" {
		return certifyKernel(ctx, e, f)
	}
	return certifyNetwork(e, f)
}

// certifyKernel builds the certifier of a kernel machine model file.
func certifyKernel(ctx context.Context, e *env, f *certifyFlags) (certifier, *certifyData, string, error) {
	fh, err := os.Open(f.model)
	if err != nil {
		return nil, nil, "", err
	}
	m, err := svm.ReadModel(fh)
	fh.Close()
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", f.model, err)
	}
	if m.Task == svm.TaskRegression {
		return nil, nil, "", usageError("--model %s: a regression model: certify bounds the decisions of classifiers", f.model)
	}
	if m.Kernel.Kind != ntk.KindNTK {
		return nil, nil, "", fmt.Errorf("%s: kernel %q: certify bounds NTK machines only", f.model, m.Kernel.Kind)
	}
	if m.Kernel.Depth < 1 {
		return nil, nil, "", fmt.Errorf("%s: kernel of depth 0: certify bounds the NTK of networks with 1 or more hidden layers", f.model)
	}
	p := m.Kernel
	train, ds, err := certifyLoad(e, f.data, f.cls, m)
	if err != nil {
		return nil, nil, "", err
	}
	km := ibp.KernelMachine{X: train, Alpha: m.Alpha, Bias: m.Bias, Kernel: m.Kernel}
	c, err := ibp.NewKernel(ctx, km, ds.x, ibp.KernelOptions{Tight: f.tight, Clip: f.clip})
	if err != nil {
		return nil, nil, "", err
	}
	what := fmt.Sprintf("%s λ=%g, NTK L=%d σ_w=%g σ_b=%g, n=%d", m.Machine, m.Lambda, p.Depth, p.WeightStd, p.BiasStd, m.Train.N)
	return c, ds, what, nil
}

// certifyNetwork builds the IBP certifier of a network (and its f₀).
func certifyNetwork(e *env, f *certifyFlags) (certifier, *certifyData, string, error) {
	net, err := ntk.LoadNetwork[float64](f.net, f.sigmaW, f.sigmaB)
	if err != nil {
		return nil, nil, "", err
	}
	var net0 *ntk.Network[float64]
	switch {
	case f.f0V == ibp.F0None:
	case f.net0 != "":
		net0, err = ntk.LoadNetwork[float64](f.net0, f.sigmaW, f.sigmaB)
	default:
		net0, err = ntk.NewNetwork[float64](net.D, net.Width, net.Depth, f.sigmaW, f.sigmaB, uint64(f.initSeed))
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("initial network: %w", err)
	}
	_, ds, err := certifyLoad(e, f.data, f.cls, nil)
	if err != nil {
		return nil, nil, "", err
	}
	if ds.x.Cols != net.D {
		return nil, nil, "", fmt.Errorf("%s has %d features, the network %d inputs", ds.name, ds.x.Cols, net.D)
	}
	c, err := ibp.NewNetwork(net, net0, ds.x, ibp.NetworkOptions{F0: f.f0V, Clip: f.clip})
	if err != nil {
		return nil, nil, "", err
	}
	return c, ds, fmt.Sprintf("network %d→%d×%d, IBP, f0 %v", net.D, net.Width, net.Depth, f.f0V), nil
}

// certifyData are the points to certify, with their labels (nil if none).
type certifyData struct {
	name string
	x    linalg.Matrix[float64]
	y    []float64
}

// certifyLoad loads the points and, for a model, its training inputs
// (embedded, or reloaded and checked as predict does), checking
// dimensions; labels are read as the model's machine reads them (as
// predict does), or as the ±1 labels of the class flags' task for a
// network.
func certifyLoad(e *env, d dataFlags, cls classFlags, m *svm.Model) (train linalg.Matrix[float64], ds *certifyData, err error) {
	var p *points
	if m != nil {
		if std := m.Train.Standardize; std != d.standardize && strings.HasPrefix(d.data, "mnist") {
			return train, nil, usageError("the model was trained with standardize=%v: pass the same --standardize", std)
		}
		if train, err = trainingInputs(e, m, d); err != nil {
			return train, nil, err
		}
		machine, err := svm.ParseMachine(m.Machine)
		if err != nil {
			return train, nil, fmt.Errorf("%s: %w", m.Machine, err)
		}
		if p, err = openForModel(e, d, cls, m, machine.Loss(m.Epsilon)); err != nil {
			return train, nil, err
		}
	} else {
		s, err := d.open(e, "--data", d.data, 0)
		if err != nil {
			return train, nil, err
		}
		if err := cls.checkNamed(s, "the network"); err != nil {
			return train, nil, err
		}
		if p, _, err = cls.binary(s, nil); err != nil {
			return train, nil, err
		}
	}
	return train, &certifyData{name: p.Name, x: p.X, y: p.Y}, nil
}

// certifyPoints selects the points (a seeded random subset with --points N,
// then the correctly classified ones with --correct-only) and returns the
// accuracy over the whole data set (NaN without labels).
func certifyPoints(f *certifyFlags, c certifier, y []float64) ([]int, float64, error) {
	if y == nil && f.correctOnly {
		return nil, 0, usageError("--correct-only needs labels (--data X.npy,y.npy)")
	}
	return ibp.SelectPoints(c, y, ibp.PointSelection{N: f.nPoints, Seed: f.seed, CorrectOnly: f.correctOnly})
}
