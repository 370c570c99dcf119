package main

import (
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// points are data as one binary machine reads them: inputs, and a number
// per example.
type points struct {
	Name string // the data's name, for messages
	// Source is what a model records to reload the inputs (dataset's Ref);
	// "" when no name gives them again, and the model embeds them.
	Source string
	X      linalg.Matrix[float64]
	Y      []float64 // ±1 labels or regression targets; nil without labels
}

// newPoints returns the points of d with the numbers y.
func newPoints(d *dataset.Dataset, y []float64) *points {
	return &points{Name: d.Name, Source: d.Ref, X: d.X, Y: y}
}
