package main

import (
	"encoding/json"
	"io"

	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// The objects "ntksvm predict --json" prints: one per run, the
// predictions of every example with its row in the data's source.

// predictJSON is the object "ntksvm predict --json" prints for a
// multi-class model.
type predictJSON struct {
	Classes []string `json:"classes"`
	// Rule is how the class was chosen: "votes" (one-vs-one), "largest
	// decision value" (one-vs-rest) or "largest probability".
	Rule     string          `json:"rule"`
	Machines []string        `json:"machines,omitempty"`
	Rows     []predictRowOut `json:"predictions"`
	Accuracy *float64        `json:"accuracy,omitempty"` // with labels
	LogLoss  *float64        `json:"log_loss,omitempty"` // with labels and probabilities
}

type predictRowOut struct {
	Row         int       `json:"row"`
	Class       string    `json:"class"`
	Label       *string   `json:"label,omitempty"`
	Probability []float64 `json:"probability,omitempty"` // in the order of classes
	Decision    []float64 `json:"decision,omitempty"`    // in the order of machines
}

// writePredictJSON prints the predictions r of d as one JSON object.
func writePredictJSON(w io.Writer, c *classify.Classifier, d *dataset.Dataset, r classRows) error {
	m, _ := c.Model()
	out := predictJSON{Classes: c.Classes, Rule: "votes", Machines: r.machines}
	if m.Scheme == "ovr" {
		out.Rule = "largest decision value"
	}
	if r.prob.Rows > 0 {
		out.Rule = "largest probability"
	}
	var labels []string
	if d.Labelled() {
		labels = d.Labels()
	}
	right := 0
	for i, p := range r.pred {
		row := predictRowOut{Row: d.SourceRow(i), Class: p}
		if labels != nil {
			row.Label = &labels[i]
			if labels[i] == p {
				right++
			}
		}
		if r.prob.Rows > 0 {
			row.Probability = r.prob.Row(i)
		}
		if r.dec.Rows > 0 {
			row.Decision = r.dec.Row(i)
		}
		out.Rows = append(out.Rows, row)
	}
	if labels != nil && len(r.pred) > 0 {
		acc := float64(right) / float64(len(r.pred))
		out.Accuracy = &acc
		if r.prob.Rows > 0 {
			ll := logLoss(c.Classes, d, r.prob)
			out.LogLoss = &ll
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// valuesJSON is what "ntksvm predict --json" prints for a model with one
// output per example (ntksvm train's machines, cv's regressors).
type valuesJSON struct {
	Predictions []valueOut `json:"predictions"`
}

type valueOut struct {
	Row   int      `json:"row"`
	Value float64  `json:"value"`
	Label *float64 `json:"label,omitempty"`
}

// writeValuesJSON prints the outputs pred (with their labels y when not
// nil) as one JSON object, each with its row of d's source (of the data
// as read when d is nil).
func writeValuesJSON(w io.Writer, d *dataset.Dataset, pred, y []float64) error {
	var out valuesJSON
	for i, p := range pred {
		v := valueOut{Row: i, Value: p}
		if d != nil {
			v.Row = d.SourceRow(i)
		}
		if y != nil {
			v.Label = &y[i]
		}
		out.Predictions = append(out.Predictions, v)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
