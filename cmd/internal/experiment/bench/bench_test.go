package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"testing"
)

// run parses args into b's flags and runs b, returning its stdout.
func run(t *testing.T, b Benchmark, env Env, args ...string) (string, error) {
	t.Helper()
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	b.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	var out bytes.Buffer
	env.Stdout = &out
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	err := b.Run(context.Background(), env)
	return out.String(), err
}

// TestUsage: bad flag values of every benchmark are ErrUsage errors,
// found before any measurement.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		b    Benchmark
		args []string
	}{
		{new(Relu), []string{"--n", "0"}},
		{new(Relu), []string{"--n", "-5"}},
		{new(Relu), []string{"--n", "99999999999"}},
		{new(Relu), []string{"--runs", "0"}},
		{new(Relu), []string{"--threads", "0"}},
		{new(Micro), []string{"--k", "0"}},
		{new(Micro), []string{"--k", "100000"}},
		{new(Gemm), []string{"--shapes", "10x10"}},
		{new(Gemm), []string{"--shapes", "gram:10x10x10"}},
		{new(Gemm), []string{"--shapes", "syrk:10"}},
		{new(Gemm), []string{"--shapes", "0x5x5"}},
		{new(Gemm), []string{"--shapes", "ax5x5"}},
		{new(Gemm), []string{"--shapes", "100000x100000x100000"}},
		{new(Gemm), []string{"--sweep", "--shapes", "5x5x5"}},
		{new(Gemm), []string{"--float32", "--float64"}},
		{new(Ntk), []string{"--float32", "--float64"}},
		{new(Ntk), []string{"--n", "0"}},
		{new(Ntk), []string{"--depth", "101"}},
		{new(Svm), []string{"--data", "cifar"}},
		{new(Svm), []string{"--n", "1"}},
		{new(Svm), []string{"--lambda", "0"}},
		{new(Train), []string{"--reg", "l3"}},
		{new(Train), []string{"--lambda", "-1"}},
		{new(Train), []string{"--width", "0"}},
	} {
		if _, err := run(t, tc.b, Env{}, tc.args...); !errors.Is(err, ErrUsage) {
			t.Errorf("%T %v: %v, want an ErrUsage error", tc.b, tc.args, err)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}
