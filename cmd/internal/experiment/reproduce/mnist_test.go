package reproduce

import (
	"context"
	"testing"

	"github.com/ntksvm/ntksvm/mnist"
)

// TestFigB2MNIST runs the figB2 entry on the real MNIST files in
// $NTKSVM_MNIST_DIR (skipped without them, failed when CI is set) and
// checks that no row differs from the paper beyond its tolerance.
func TestFigB2MNIST(t *testing.T) {
	dir := mnist.RealDataDirForTest(t)
	if testing.Short() {
		t.Skip("trains two networks (about 20 s)")
	}
	out := t.TempDir()
	rn := &Runner{Entries: []*Entry{figB2Entry}, Out: out, Env: &Env{Scale: Quick, MNISTDir: dir}}
	run, err := rn.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range run.Results[0].Rows {
		t.Logf("%s: paper %s, ours %.4g, %s", row.Quantity, row.Paper, row.Ours, row.Verdict)
		if row.Verdict == Differs {
			t.Errorf("%s differs: paper %s, ours %v", row.Quantity, row.Paper, row.Ours)
		}
	}
	if len(run.Results[0].Figures) != 2 {
		t.Errorf("%d figures, want 2", len(run.Results[0].Figures))
	}
}
