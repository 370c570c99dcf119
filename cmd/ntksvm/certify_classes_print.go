package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify/certify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

// normNames returns "linf and l2" or the one norm.
func normNames(norms []ibp.Norm) string {
	s := make([]string, len(norms))
	for k, n := range norms {
		s[k] = n.String()
	}
	return strings.Join(s, " and ") + " balls"
}

// certifyClassSummary is the --json object of a multi-class model.
type certifyClassSummary struct {
	Model      string              `json:"model"`
	Scheme     string              `json:"scheme"`
	Kernel     string              `json:"kernel"`
	Norms      []string            `json:"norms"`
	Accuracy   *float64            `json:"accuracy"` // null without labels
	NPoints    int                 `json:"n_points"`
	Seed       uint64              `json:"seed"`
	Mean       map[string]float64  `json:"mean_radius"` // by norm
	Classes    []certifyClassStats `json:"classes"`
	Bounds     int                 `json:"bounds"`
	Steps      int                 `json:"search_steps"`
	Seconds    float64             `json:"seconds"`
	Verified   int                 `json:"verify_samples,omitempty"`
	Violations int                 `json:"violations"`
}

// certifyClassStats are the certificates of the points predicted one
// class.
type certifyClassStats struct {
	Class  string             `json:"class"`
	Points int                `json:"points"`
	Zero   int                `json:"zero_radius"` // points with radius 0 in every norm
	Mean   map[string]float64 `json:"mean_radius"` // by norm
}

// classStats returns the statistics of rs by predicted class, and the
// mean radius in each norm over all points.
func classStats(classes []string, norms []ibp.Norm, rs []certify.Result) ([]certifyClassStats, map[string]float64) {
	st := make([]certifyClassStats, len(classes))
	all := map[string]float64{}
	for k, name := range classes {
		st[k] = certifyClassStats{Class: name, Mean: map[string]float64{}}
	}
	for _, r := range rs {
		s := &st[r.Class]
		s.Points++
		if slices.Max(r.Radius) == 0 {
			s.Zero++
		}
		for ni, n := range norms {
			s.Mean[n.String()] += r.Radius[ni]
			all[n.String()] += r.Radius[ni] / float64(len(rs))
		}
	}
	for k := range st {
		for n, v := range st[k].Mean {
			st[k].Mean[n] = v / float64(st[k].Points)
		}
	}
	return st, all
}

// certifyPrintClasses prints the summary as text (a table by predicted
// class) or JSON.
func certifyPrintClasses(w io.Writer, f *certifyFlags, m *svm.Model, classes []string, norms []ibp.Norm, rs []certify.Result, acc, sec float64, bad []certify.Violation) {
	st, all := classStats(classes, norms, rs)
	js := certifyClassSummary{Model: f.model, Scheme: m.Scheme, Kernel: m.Kernel.String(), NPoints: len(rs), Seed: f.seed,
		Mean: all, Classes: st, Seconds: sec, Violations: len(bad)}
	for _, n := range norms {
		js.Norms = append(js.Norms, n.String())
	}
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
	fmt.Fprintf(w, "%-20s %7s %7s", "predicted class", "points", "radius 0")
	for _, n := range norms {
		fmt.Fprintf(w, " %12s", "mean "+n.String())
	}
	fmt.Fprintln(w)
	row := func(name string, points, zero int, mean map[string]float64) {
		fmt.Fprintf(w, "%-20s %7d %7d", name, points, zero)
		for _, n := range norms {
			fmt.Fprintf(w, " %12.4g", mean[n.String()])
		}
		fmt.Fprintln(w)
	}
	zero := 0
	for _, s := range st {
		if s.Points > 0 {
			row(s.Class, s.Points, s.Zero, s.Mean)
		}
		zero += s.Zero
	}
	row("all", len(rs), zero, all)
	fmt.Fprintf(w, "%d search steps, %d bounds in %.3fs\n", js.Steps, js.Bounds, sec)
	if f.verify > 0 {
		fmt.Fprintf(w, "verify: %d samples per certified ball, %d violations\n", f.verify, len(bad))
	}
	for k, v := range bad {
		if k == 10 {
			break
		}
		fmt.Fprintf(w, "VIOLATION point %d %v radius %g sample %d: predicted %s, margin %g, bound [%g, %g]\n",
			v.Index, v.Norm, v.Radius, v.Sample, classes[v.Class], v.Margin, v.Bound.Lo, v.Bound.Hi)
	}
}

// certifyWriteClasses writes one line per point, row,class,radius_linf,
// radius_l2,reason (a norm not certified leaves its column empty),
// atomically.
func certifyWriteClasses(ctx context.Context, path string, classes []string, d *data.Dataset, norms []ibp.Norm, rs []certify.Result) error {
	col := map[ibp.Norm]int{}
	for ni, n := range norms {
		col[n] = ni
	}
	return output.WriteFileContext(ctx, path, false, func(w io.Writer) error {
		if _, err := fmt.Fprintln(w, "row,class,radius_linf,radius_l2,reason"); err != nil {
			return err
		}
		for _, r := range rs {
			row := r.Index
			if d.Rows != nil {
				row = d.Rows[r.Index]
			}
			line := []string{strconv.Itoa(row), output.CSVField(classes[r.Class])}
			for _, n := range []ibp.Norm{ibp.Linf, ibp.L2} {
				v := ""
				if ni, ok := col[n]; ok {
					v = strconv.FormatFloat(r.Radius[ni], 'g', 17, 64)
				}
				line = append(line, v)
			}
			line = append(line, output.CSVField(r.Reason))
			if _, err := fmt.Fprintln(w, strings.Join(line, ",")); err != nil {
				return err
			}
		}
		return nil
	})
}
