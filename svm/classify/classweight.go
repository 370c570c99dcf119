package classify

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ClassWeight is how the binary SVMs weigh the C of each class (libsvm's
// -wi, scikit-learn's class_weight): the dual variables of class c's
// examples are bounded by w_c·C (svm; svm2: the loss of class c's
// examples is weighted by w_c). Its text is the weighting itself:
//
//	""          none: every weight 1 (NoClassWeight)
//	"balanced"  w_c = n/(k·n_c) over the n training examples of k classes,
//	            n_c of class c (scikit-learn's formula), so that every
//	            class weighs as much in total; in cross-validation, of
//	            each fold's training examples
//	"a=2,b=0.5" the weights of the classes named; the others weigh 1
//
// A grid (Grid.ClassWeights) cross-validates several, as any other axis.
type ClassWeight string

const (
	// NoClassWeight weighs every class 1.
	NoClassWeight ClassWeight = ""
	// Balanced weighs class c n/(k·n_c).
	Balanced ClassWeight = "balanced"
)

// String returns "none", "balanced" or the weights by name.
func (w ClassWeight) String() string {
	if w == NoClassWeight {
		return "none"
	}
	return string(w)
}

// ParseClassWeights parses a flag's list of weightings: "none",
// "balanced", weights by name "a=2,b=0.5" (libsvm's -wi: C_a = 2·C), or a
// list of them separated by commas, e.g. "none,balanced" to let
// cross-validation choose; the name=w items of a list form one weighting
// together. A class name is the text before the last "=". Whether the
// classes named exist is checked against the data (Options.Validate).
func ParseClassWeights(s string) ([]ClassWeight, error) {
	var out []ClassWeight
	var named []string
	at := -1 // where the named weights go in out
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		i := strings.LastIndex(part, "=")
		if i < 0 {
			switch part {
			case "none":
				out = append(out, NoClassWeight)
			case "balanced":
				out = append(out, Balanced)
			default:
				return nil, fmt.Errorf("classify: class weight %q: want none, balanced or CLASS=WEIGHT (e.g. a=2,b=0.5)", part)
			}
			continue
		}
		name := strings.TrimSpace(part[:i])
		v, err := strconv.ParseFloat(strings.TrimSpace(part[i+1:]), 64)
		if name == "" || err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("classify: class weight %q: want CLASS=WEIGHT with a finite weight > 0", part)
		}
		if seen[name] {
			return nil, fmt.Errorf("classify: class %q is given two weights", name)
		}
		seen[name] = true
		if at < 0 {
			at = len(out)
			out = append(out, "") // filled below
		}
		named = append(named, name+"="+strconv.FormatFloat(v, 'g', -1, 64))
	}
	if at >= 0 {
		out[at] = ClassWeight(strings.Join(named, ","))
	}
	for i, w := range out {
		if slices.Contains(out[:i], w) {
			return nil, fmt.Errorf("classify: class weighting %s is listed twice", w)
		}
	}
	return out, nil
}

// weights returns w's weight of every class (nil for NoClassWeight) on
// the training examples train (indices into y) of nclass classes named
// classes: balanced from their class counts, named ones by name. It fails
// when a weight names a class that is not among classes.
func (w ClassWeight) weights(classes []string, y, train []int) ([]float64, error) {
	nclass := len(classes)
	switch w {
	case NoClassWeight:
		return nil, nil
	case Balanced:
		count := make([]int, nclass)
		for _, i := range train {
			count[y[i]]++
		}
		present := 0
		for _, c := range count {
			if c > 0 {
				present++
			}
		}
		out := make([]float64, nclass)
		for c := range out {
			out[c] = 1
			if count[c] > 0 {
				out[c] = float64(len(train)) / (float64(present) * float64(count[c]))
			}
		}
		return out, nil
	}
	out := make([]float64, nclass)
	for c := range out {
		out[c] = 1
	}
	for _, item := range strings.Split(string(w), ",") {
		i := strings.LastIndex(item, "=")
		name := item[:i]
		v, _ := strconv.ParseFloat(item[i+1:], 64)
		c := slices.Index(classes, name)
		if c < 0 {
			return nil, fmt.Errorf("classify: class weight %s: the data has no class %q (classes: %s)", item, name, strings.Join(classes, ", "))
		}
		out[c] = v
	}
	return out, nil
}

// Weights returns w's weight of C for every class (in the order of
// classes; nil for NoClassWeight) on training examples of the classes y
// (indices into classes): what a fit on them uses. It fails when a weight
// names a class that is not among classes.
func (w ClassWeight) Weights(classes []string, y []int) ([]float64, error) {
	return w.weights(classes, y, identity(len(y)))
}

// checkClassWeights checks every weighting of the grid against the
// classes, and that the machine takes class weights.
func (o *Options) checkClassWeights(classes []string) error {
	for _, w := range o.grid().classWeights() {
		if w == NoClassWeight {
			continue
		}
		if o.Machine == KRR {
			return fmt.Errorf("classify: class weights (%s) are for the svm and svm2 machines, not krr", w)
		}
		if _, err := w.weights(classes, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// CheckClassWeights reports, before any work, whether the class weights
// of the options' grid name only classes among classes and suit the
// machine (krr takes none).
func (o Options) CheckClassWeights(classes []string) error { return o.checkClassWeights(classes) }

// pointWeights returns the weight of each point of idx (indices into y)
// of the per-class weights cw, nil when cw is nil.
func pointWeights(cw []float64, y, idx []int) []float64 {
	if cw == nil {
		return nil
	}
	w := make([]float64, len(idx))
	for i, t := range idx {
		w[i] = cw[y[t]]
	}
	return w
}
