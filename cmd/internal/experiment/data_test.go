package experiment

import (
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

func TestDataFirst(t *testing.T) {
	e := &Data{Name: "toy", X: linalg.New[float64](5, 3), Y: make([]float64, 5), XTest: linalg.New[float64](4, 3), YTest: make([]float64, 4)}
	for _, tc := range []struct {
		nTrain, nTest  int
		rows, testRows int
		err            string
	}{
		{0, 0, 5, 4, ""},
		{2, 0, 2, 4, ""},
		{5, 1, 5, 1, ""},
		{6, 0, 0, 0, "n-train 6: the data has 5 training points"},
		{0, 9, 0, 0, "n-test 9: the data has 4 test points"},
		{-1, 0, 0, 0, "n-train -1"},
	} {
		sub, err := e.First(tc.nTrain, tc.nTest)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("First(%d, %d): error %v, want %q", tc.nTrain, tc.nTest, err, tc.err)
			}
			continue
		}
		if err != nil || sub.X.Rows != tc.rows || len(sub.Y) != tc.rows || sub.XTest.Rows != tc.testRows || len(sub.YTest) != tc.testRows {
			t.Errorf("First(%d, %d) = %d/%d rows, %v; want %d/%d", tc.nTrain, tc.nTest, sub.X.Rows, sub.XTest.Rows, err, tc.rows, tc.testRows)
		}
	}
	bad := *e
	bad.Y = bad.Y[:4]
	if _, err := bad.First(0, 0); err == nil || !strings.Contains(err.Error(), "4 training targets for 5 points") {
		t.Errorf("mismatched targets: %v", err)
	}
	bad = *e
	bad.XTest = linalg.New[float64](4, 2)
	if _, err := bad.First(0, 0); err == nil || !strings.Contains(err.Error(), "test points have 2 features") {
		t.Errorf("test dimension: %v", err)
	}
	if _, err := (&Data{}).First(0, 0); err == nil || !strings.Contains(err.Error(), "no training data") {
		t.Errorf("empty: %v", err)
	}
}
