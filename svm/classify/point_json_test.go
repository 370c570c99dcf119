package classify

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// TestScoreJSON: a Score (and a Point) embedding the kernel's ntk.Spec
// still writes the point's fields, then the kind's name and the scores,
// and reads them back.
func TestScoreJSON(t *testing.T) {
	for _, tc := range []struct {
		s    Score
		want string
	}{
		{Score{Point: Point{Spec: ntk.Spec{Kind: ntk.KindNNGP, Depth: 2, WeightStd: 1.4, BiasStd: 0.5}, C: 10, ClassWeight: Balanced},
			KindName: "nngp", Mean: 0.9, Std: 0.01, Folds: []float64{0.9, 0.9}},
			`{"depth":2,"sigma_b":0.5,"c":10,"class_weight":"balanced","kernel":"nngp","mean":0.9,"std":0.01,"folds":[0.9,0.9]}`},
		{Score{Point: Point{Spec: ntk.Spec{Kind: ntk.KindNTK, Depth: 3, Fixed: 1, WeightStd: 1.4, Float32: true}, C: 0.5},
			KindName: "ntk", Mean: 1, Folds: []float64{1}},
			`{"depth":3,"fixed":1,"sigma_b":0,"c":0.5,"kernel":"ntk","mean":1,"std":0,"folds":[1]}`},
	} {
		b, err := json.Marshal(CVResult{Scores: []Score{tc.s}, Rule: "1se", Folds: 5})
		if err != nil {
			t.Fatal(err)
		}
		want := `{"scores":[` + tc.want + `],"chosen":0,"rule":"1se","folds":5}`
		if string(b) != want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.s, b, want)
		}
		var back CVResult
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		// σ_w and the storage type are the options', not written.
		w := tc.s
		w.WeightStd, w.Float32 = 0, false
		if !reflect.DeepEqual(back.Scores[0], w) {
			t.Errorf("read back %+v, want %+v", back.Scores[0], w)
		}
		p, err := json.Marshal(tc.s.Point)
		if err != nil {
			t.Fatal(err)
		}
		var pj map[string]any
		if err := json.Unmarshal(p, &pj); err != nil || pj["c"] != tc.s.C || pj["depth"] != float64(tc.s.Depth) || pj["name"] != nil {
			t.Errorf("point %s (%v)", p, err)
		}
	}
	var s Score
	if err := json.Unmarshal([]byte(`{"depth":1,"sigma_b":0,"c":1,"kernel":"rbf","mean":1,"std":0,"folds":[1]}`), &s); err == nil {
		t.Error("kernel rbf read")
	}
}
