package mnist

import (
	"errors"
	"strings"
	"testing"
)

// TestInspect: a directory with a train split whose counts disagree, test
// images that do not parse and no test labels. Inspect reports every file
// and InspectSplits the train mismatch; the test split is nil without an
// error of its own (its files' errors say why).
func TestInspect(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "train-images-idx3-ubyte", idxBytes(8, []uint32{3, 2, 2}, seq(12)))
	writeFile(t, dir, "train-labels-idx1-ubyte.gz", gz(idxBytes(8, []uint32{2}, []byte{0, 1})))
	writeFile(t, dir, "t10k-images-idx3-ubyte", idxBytes(8, []uint32{4}, seq(4)))
	files := Inspect(dir)
	if len(files) != len(Files) {
		t.Fatalf("%d results, want %d", len(files), len(Files))
	}
	var nf *NotFoundError
	for i, f := range files {
		if f.File != Files[i] {
			t.Errorf("result %d is %v, want %v", i, f.File, Files[i])
		}
		switch f.File {
		case TrainImages:
			if f.Err != nil || f.Images == nil || f.Images.Count != 3 {
				t.Errorf("%v: %+v", f.File, f)
			}
		case TrainLabels:
			if f.Err != nil || f.Labels == nil || len(f.Labels.Values) != 2 || !strings.HasSuffix(f.Path, ".gz") {
				t.Errorf("%v: %+v", f.File, f)
			}
		case TestImages:
			if f.Err == nil || !strings.Contains(f.Err.Error(), "image file has 3") {
				t.Errorf("%v: error %v, want a format error", f.File, f.Err)
			}
		case TestLabels:
			if !errors.As(f.Err, &nf) {
				t.Errorf("%v: error %v, want *NotFoundError", f.File, f.Err)
			}
		}
	}
	sets, errs := InspectSplits(files)
	if sets[0] != nil || errs[0] == nil || !strings.Contains(errs[0].Error(), "holds 3 images but") {
		t.Errorf("train: %v, %v; want a count mismatch", sets[0], errs[0])
	}
	if sets[1] != nil || errs[1] != nil {
		t.Errorf("test: %v, %v; want nil, nil", sets[1], errs[1])
	}

	writeFile(t, dir, "train-labels-idx1-ubyte.gz", gz(idxBytes(8, []uint32{3}, []byte{0, 1, 1})))
	sets, errs = InspectSplits(Inspect(dir))
	if errs[0] != nil || sets[0] == nil || sets[0].Split != Train || sets[0].Counts() != [10]int{1, 2} {
		t.Errorf("train after fixing the labels: %+v, %v", sets[0], errs[0])
	}
}
