package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/ibp"
)

// certifySummary is the --json object.
type certifySummary struct {
	Model      string   `json:"model"`
	Norm       string   `json:"norm"`
	Accuracy   *float64 `json:"accuracy"` // null without labels
	NPoints    int      `json:"n_points"`
	Seed       uint64   `json:"seed"`
	MeanDelta  float64  `json:"mean_delta"`
	StdDelta   float64  `json:"std_delta"`
	MinDelta   float64  `json:"min_delta"`
	MaxDelta   float64  `json:"max_delta"`
	Bounds     int      `json:"bounds"`        // bounds evaluated
	Steps      int      `json:"search_steps"`  // steps of the authors' search
	Seconds    float64  `json:"seconds"`       // the search
	Total      float64  `json:"total_seconds"` // with loading and precomputation
	Verified   int      `json:"verify_samples,omitempty"`
	Violations int      `json:"violations"`
}

// certifyPrint prints the summary as text or JSON.
func certifyPrint(w io.Writer, f *certifyFlags, what string, rs []ibp.Result, acc, sec, total float64, bad []ibp.Violation) {
	s := ibp.Summarize(rs)
	js := certifySummary{Model: what, Norm: f.normV.String(), NPoints: s.N, Seed: f.seed, MeanDelta: s.Mean,
		StdDelta: s.Std, MinDelta: s.Min, MaxDelta: s.Max, Seconds: sec, Total: total, Violations: len(bad)}
	if !math.IsNaN(acc) {
		js.Accuracy = &acc
	}
	for _, r := range rs {
		js.Bounds += r.Bounds
		js.Steps += r.Iters
	}
	if f.verify > 0 {
		js.Verified = f.verify
	}
	if f.jsonOut {
		b, _ := json.Marshal(js)
		fmt.Fprintln(w, string(b))
		return
	}
	if js.Accuracy != nil {
		fmt.Fprintf(w, "accuracy %.4f%%\n", 100*acc)
	}
	fmt.Fprintf(w, "certified %d points (%v): mean δ %.6g ± %.6g (min %.6g, max %.6g); %d search steps, %d bounds in %.3fs (%.3fs in all)\n",
		s.N, f.normV, s.Mean, s.Std, s.Min, s.Max, js.Steps, js.Bounds, sec, total)
	if f.verify > 0 {
		fmt.Fprintf(w, "verify: %d samples per certified ball, %d violations\n", f.verify, len(bad))
	}
	for k, v := range bad {
		if k == 10 {
			break
		}
		fmt.Fprintf(w, "VIOLATION point %d δ=%g sample %d: output %g, bound [%g, %g]\n", v.Index, v.Radius, v.Sample, v.Output, v.Bound.Lo, v.Bound.Hi)
	}
}

// certifyWriteCSV writes one line per point, atomically.
func certifyWriteCSV(ctx context.Context, path string, rs []ibp.Result, y []float64) error {
	return output.WriteFileContext(ctx, path, false, func(w io.Writer) error {
		if _, err := fmt.Fprintln(w, "index,label,prediction,delta"); err != nil {
			return err
		}
		for _, r := range rs {
			label := ""
			if y != nil {
				label = strconv.FormatFloat(y[r.Index], 'g', -1, 64)
			}
			if _, err := fmt.Fprintf(w, "%d,%s,%s,%s\n", r.Index, label, strconv.FormatFloat(r.Output, 'g', 17, 64),
				strconv.FormatFloat(r.Radius, 'g', 17, 64)); err != nil {
				return err
			}
		}
		return nil
	})
}
