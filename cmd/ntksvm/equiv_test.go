package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/equiv"
	"github.com/ntksvm/ntksvm/mnist"
)

// equivConfig parses args as "ntksvm equiv" does and resolves the
// configuration.
func equivConfig(t *testing.T, args ...string) (equiv.Config, error) {
	t.Helper()
	var buf bytes.Buffer
	e := &env{stdout: &buf, stderr: &buf}
	fs := newFlagSet(e, "equiv", "")
	f := &equivFlags{}
	f.add(fs, e)
	if err := parseFlags(fs, args); err != nil {
		return equiv.Config{}, err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return f.config(set)
}

func TestEquivOverrides(t *testing.T) {
	c, err := equivConfig(t, "--preset", "figA1", "--reg", "theory", "--width", "512", "--lr", "0.5", "--batch", "32",
		"--steps", "100", "--lambda", "0.01", "--loss", "squared", "--depth", "2", "--n-train", "256", "--n-test", "0",
		"--kernel", "both", "--seed", "9", "--float64", "--objective", "sum", "--evals", "20", "--track-train", "1,2")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := equiv.Preset("figA1", false)
	want.Reg, want.Decay, want.Widths, want.LRs, want.Batch = "theory", "", []int{512}, []float64{0.5}, 32
	want.Steps, want.Epochs, want.Lambda, want.Loss, want.Depth = 100, 0, 0.01, "squared", 2
	want.NTrain, want.NTest, want.Kernel, want.Seed, want.Float64 = 256, 0, "both", 9, true
	want.Objective, want.Evals, want.TrackTrain = "sum", 20, []int{1, 2}
	want.Overrides = []string{"--loss", "--reg", "--objective", "--lambda", "--width", "--depth", "--lr", "--batch", "--steps",
		"--float64", "--n-train", "--n-test", "--kernel", "--seed", "--evals", "--track-train"}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("config\n%+v\nwant\n%+v", c, want)
	}
	c, err = equivConfig(t, "--preset", "fig1", "--quick", "--widths", "256,1024,4096", "--t-max", "10")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Widths, []int{256, 1024, 4096}) || c.TMax != 10 || c.MaxSteps != 0 || !c.Quick {
		t.Errorf("fig1 quick with overrides: %+v", c)
	}
	c, _ = equivConfig(t, "--preset", "figA1", "--decay", "exact")
	if c.Decay != "exact" || c.Reg != "paper" {
		t.Errorf("decay override: %+v", c)
	}
}

// TestEquivBadFlags checks that bad command lines are usage errors found
// before any data is read (the MNIST directory does not exist).
func TestEquivBadFlags(t *testing.T) {
	t.Setenv(mnist.EnvDir, filepath.Join(t.TempDir(), "nowhere"))
	for _, args := range []string{
		"--preset fig3",
		"--loss zero-one",
		"--reg l1",
		"--width 0",
		"--width 8,x",
		"--lr -1",
		"--lr 0.1,nan",
		"--steps 10 --epochs 2",
		"--kernel rbf",
		"--depth 0",
		"--batch -2",
		"--decay sometimes",
		"--threads -1",
		"--resume somewhere --width 8",
		"--resume a --out b",
		"--init W.npz --widths 8,16",
		"--init W.npz --seeds 3",
		"--resume a --init W.npz",
		"stray",
	} {
		var out, errb bytes.Buffer
		err := runEquiv(context.Background(), &env{stdout: &out, stderr: &errb}, strings.Fields(args))
		if !errors.Is(err, errUsage) {
			t.Errorf("%s: err = %v, want a usage error", args, err)
		} else if strings.Contains(err.Error(), "bad configuration") {
			t.Errorf("%s: err = %v, with the package's prefix after the command's", args, err)
		}
	}
}

// TestEquivCommand runs the command on real MNIST when it is there (a
// small, fast setting); with CI set the data must be there.
func TestEquivCommand(t *testing.T) {
	mnist.RealDataDirForTest(t)
	out := t.TempDir()
	var o, e bytes.Buffer
	err := runEquiv(context.Background(), &env{stdout: &o, stderr: &e},
		strings.Fields("--n-train 32 --n-test 16 --widths 64,256 --steps 40 --evals 10 --kernel both --out "+out))
	if err != nil {
		t.Fatalf("%v\n%s", err, e.String())
	}
	for _, f := range []string{equiv.CurvesFile, equiv.SummaryFile, equiv.Fig1File, equiv.SweepSVG} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(o.String(), "log–log slope") {
		t.Errorf("output:\n%s", o.String())
	}
}
