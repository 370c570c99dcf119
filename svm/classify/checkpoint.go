package classify

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm/dataset"
	"github.com/ntksvm/ntksvm/svm/eigenpro"
	"github.com/ntksvm/ntksvm/svm/falkon"
)

// Checkpoints of fits at scale: a fit at scale (the refit of the chosen
// grid point, on the on-demand Gram or by Falkon) hands its progress to
// Options.Checkpoint as a ScaleState, and a later fit given it as
// Options.Resume continues from it instead of starting over. The state of
// the SVMs is their finished binary sub-problems (the classes, the
// support vectors' indices, coefficients and bias of each): a resumed fit
// takes them as they are and solves the others. Falkon's is the state of
// its conjugate gradient (falkon.State): a resumed fit recomputes the
// centres and the preconditioner and continues the CG. Either way the
// model is the uninterrupted fit's, bit for bit, on any number of
// threads: each sub-problem's solution depends only on its own points
// (the on-demand Gram's rows depend only on their index and the Gram is
// exactly symmetric, so the rows a fresh cache holds do not matter), and
// Falkon's passes are deterministic.

// ErrResume is wrapped by the error of a fit refused the state of another
// fit (Options.Resume); the message names what differs.
var ErrResume = errors.New("classify: the checkpoint is of another fit")

// ScaleSpec is what a ScaleState belongs to: a fit whose spec differs
// does not continue from it.
type ScaleSpec struct {
	Data        string  `json:"data_sha256"` // the training inputs, labels and class names
	N           int     `json:"n"`
	D           int     `json:"d"`
	Classes     int     `json:"classes"`
	Machine     string  `json:"machine"`
	Scheme      string  `json:"multiclass"` // the scheme in effect
	Kernel      string  `json:"kernel"`     // ntk.Spec's String: kind, depth, fixed layers, σ_w, σ_b, float type
	C           float64 `json:"c"`
	ClassWeight string  `json:"class_weight,omitempty"` // the weighting, ClassWeight's text
	Standardize bool    `json:"standardize"`
	UnitNorm    bool    `json:"unit_norm,omitempty"` // Options.UnitNorm
	Route       string  `json:"route"`
	// Own has a byte per sub-problem of the on-demand route: '1' if it is
	// solved on a dense Gram of its own points, '0' if on the shared
	// on-demand Gram (the two agree to rounding only).
	Own string `json:"own_gram,omitempty"`
	// Falkon's centres (their number, the seed and the way they are
	// drawn).
	Centres  int    `json:"centres,omitempty"`
	Seed     uint64 `json:"seed,omitempty"`
	Leverage bool   `json:"leverage,omitempty"`
	// Epochs is EigenPro's number of epochs.
	Epochs int `json:"epochs,omitempty"`
	// Budget is the fit's Options.MemBudget, for a caller that resumes
	// with the same budget; not compared (what it decides is: Own,
	// Centres, and Falkon's blocks kept in float32).
	Budget int64 `json:"mem_budget"`
}

// diff returns what differs between the spec of a checkpoint (s) and
// that of this fit (t), one phrase per difference.
func (s *ScaleSpec) diff(t *ScaleSpec) []string {
	var d []string
	add := func(differ bool, what string, a, b any) {
		if differ {
			d = append(d, fmt.Sprintf("%s: %v in the checkpoint, %v here", what, a, b))
		}
	}
	if s.Data != t.Data {
		d = append(d, "the training data (inputs, labels or class names) differ")
	}
	add(s.N != t.N, "examples", s.N, t.N)
	add(s.D != t.D, "features", s.D, t.D)
	add(s.Classes != t.Classes, "classes", s.Classes, t.Classes)
	add(s.Machine != t.Machine, "machine", s.Machine, t.Machine)
	add(s.Standardize != t.Standardize, "standardised features", s.Standardize, t.Standardize)
	add(s.UnitNorm != t.UnitNorm, "examples scaled to unit norm", s.UnitNorm, t.UnitNorm)
	add(s.Kernel != t.Kernel, "kernel", s.Kernel, t.Kernel)
	add(s.C != t.C, "C", s.C, t.C)
	add(s.ClassWeight != t.ClassWeight, "class weights", ClassWeight(s.ClassWeight), ClassWeight(t.ClassWeight))
	add(s.Route != t.Route, "route", s.Route, t.Route)
	add(s.Scheme != t.Scheme, "multi-class scheme", s.Scheme, t.Scheme)
	add(s.Own != t.Own, "sub-problems on dense Grams of their own (set by the memory budget)",
		ownCount(s.Own), ownCount(t.Own))
	add(s.Centres != t.Centres, "Falkon's centres", s.Centres, t.Centres)
	add(s.Seed != t.Seed, "seed of the centres", s.Seed, t.Seed)
	add(s.Leverage != t.Leverage, "centres by leverage scores", s.Leverage, t.Leverage)
	add(s.Epochs != t.Epochs, "EigenPro's epochs", s.Epochs, t.Epochs)
	return d
}

// ownCount describes an Own string.
func ownCount(own string) string {
	return fmt.Sprintf("%d of %d", strings.Count(own, "1"), len(own))
}

// ScaleState is the progress of a fit at scale (Options.Checkpoint,
// Options.Resume): its spec and the finished binary sub-problems, or the
// state of Falkon's conjugate gradient. Save writes it and
// ReadScaleState reads it back.
type ScaleState struct {
	Spec ScaleSpec
	// Done and Total are the finished binary sub-problems and all of
	// them (RouteOnDemand), or Falkon's CG iterations done and the most
	// it runs (RouteFalkon).
	Done, Total int

	units []savedUnit     // the finished sub-problems, by position
	cg    *falkon.State   // Falkon's
	ep    *eigenpro.State // EigenPro's
}

// savedUnit is a finished binary sub-problem: units[at] of the fit.
type savedUnit struct {
	at int
	u  unit // pos, neg, idx, alpha and bias only
}

// Route returns the route of the fit the state belongs to.
func (s *ScaleState) Route() Route {
	if s.cg != nil {
		return RouteFalkon
	}
	if s.ep != nil {
		return RouteEigenPro
	}
	return RouteOnDemand
}

// scaleCk carries Options.Checkpoint and Options.Resume into the refit at
// scale: the spec of this fit (filled in as the fit is planned), the
// state to resume from, and the finished sub-problems so far.
type scaleCk struct {
	spec   ScaleSpec
	resume *ScaleState
	save   func(*ScaleState) error
	fin    []savedUnit
}

// scaleCk returns the checkpointing of a fit by plan on x (as given, not
// standardised): nil when the fit is not checkpointed (neither Checkpoint
// nor Resume set, or the dense route). A resumed state of other data,
// another machine or standardisation, or for a fit on the dense route is
// refused here, before any fitting.
func (o *Options) scaleCk(plan Plan, x linalg.Matrix[float64], y []int, classes []string) (*scaleCk, error) {
	if o.Resume == nil && (o.Checkpoint == nil || plan.Route == RouteDense) {
		return nil, nil
	}
	if plan.Route == RouteDense {
		return nil, fmt.Errorf("%w: it is of a fit at scale (%s); this one runs on the dense Gram (another memory budget?)", ErrResume, o.Resume.Spec.Route)
	}
	ck := &scaleCk{resume: o.Resume, save: o.Checkpoint, spec: ScaleSpec{
		Data: datasetSHA256(&dataset.Dataset{X: x, Y: y, Classes: classes}), N: x.Rows, D: x.Cols, Classes: len(classes),
		Machine: o.Machine.String(), Standardize: !o.NoStandardize, UnitNorm: o.UnitNorm, Budget: o.MemBudget}}
	return ck, ck.checkData()
}

// check refuses a resumed state whose spec differs from this fit's.
func (ck *scaleCk) check() error {
	if ck == nil || ck.resume == nil {
		return nil
	}
	if d := ck.resume.Spec.diff(&ck.spec); len(d) > 0 {
		return fmt.Errorf("%w: %s", ErrResume, strings.Join(d, "; "))
	}
	return nil
}

// checkData refuses, before any fitting, a resumed state of other data
// or of another machine, standardisation or normalisation (the kernel, C and the route
// are known once the grid point is chosen and the fit planned).
func (ck *scaleCk) checkData() error {
	if ck == nil || ck.resume == nil {
		return nil
	}
	t := ck.resume.Spec
	t.Data, t.N, t.D, t.Classes = ck.spec.Data, ck.spec.N, ck.spec.D, ck.spec.Classes
	t.Machine, t.Standardize, t.UnitNorm = ck.spec.Machine, ck.spec.Standardize, ck.spec.UnitNorm
	if d := ck.resume.Spec.diff(&t); len(d) > 0 {
		return fmt.Errorf("%w: %s", ErrResume, strings.Join(d, "; "))
	}
	return nil
}

// onDemand completes the spec of the on-demand route (the scheme sch in
// effect, the sub-problems pairs solved on Grams of their own), checks
// it against the resumed state's, and sets the units finished in that
// state (each checked against units: the same classes, support vectors
// among its points). It returns which units are done and how many.
func (ck *scaleCk) onDemand(units []unit, pairs []int, sch Scheme) ([]bool, int, error) {
	done := make([]bool, len(units))
	if ck == nil {
		return done, 0, nil
	}
	own := []byte(strings.Repeat("0", len(units)))
	for _, ui := range pairs {
		own[ui] = '1'
	}
	ck.spec.Scheme, ck.spec.Own = sch.String(), string(own)
	if err := ck.check(); err != nil || ck.resume == nil {
		return done, 0, err
	}
	if ck.resume.cg != nil || ck.resume.ep != nil || ck.resume.Total != len(units) {
		return nil, 0, fmt.Errorf("%w: %d sub-problems in the checkpoint, %d here", ErrResume, ck.resume.Total, len(units))
	}
	for _, s := range ck.resume.units {
		u := &units[s.at]
		if s.u.pos != u.pos || s.u.neg != u.neg || !subset(s.u.idx, u.idx) {
			return nil, 0, fmt.Errorf("%w: sub-problem %d (classes %d vs %d) is not this fit's", ErrResume, s.at, s.u.pos, s.u.neg)
		}
		u.idx, u.alpha, u.bias = s.u.idx, s.u.alpha, s.u.bias
		done[s.at] = true
	}
	ck.fin = slices.Clone(ck.resume.units)
	return done, len(ck.fin), nil
}

// subset reports whether the ascending indices a are all in the
// ascending b.
func subset(a, b []int) bool {
	j := 0
	for _, v := range a {
		for j < len(b) && b[j] < v {
			j++
		}
		if j == len(b) || b[j] != v {
			return false
		}
	}
	return true
}

// finish records that units[at] is solved and hands the state to the
// sink.
func (ck *scaleCk) finish(at int, u *unit, total int) error {
	if ck == nil || ck.save == nil {
		return nil
	}
	ck.fin = append(ck.fin, savedUnit{at: at, u: unit{pos: u.pos, neg: u.neg, idx: u.idx, alpha: u.alpha, bias: u.bias}})
	st := &ScaleState{Spec: ck.spec, Done: len(ck.fin), Total: total, units: slices.Clone(ck.fin)}
	slices.SortFunc(st.units, func(a, b savedUnit) int { return a.at - b.at })
	return ck.save(st)
}

// falkon sets cfg to resume from and checkpoint Falkon's CG.
func (ck *scaleCk) falkon(cfg *falkon.Config) error {
	if ck == nil {
		return nil
	}
	if ck.resume != nil {
		if ck.resume.cg == nil {
			return fmt.Errorf("%w: the checkpoint holds no Falkon state", ErrResume)
		}
		cfg.Resume = ck.resume.cg
	}
	if ck.save != nil {
		cfg.Checkpoint = func(st *falkon.State) error {
			return ck.save(&ScaleState{Spec: ck.spec, Done: st.Iteration, Total: cfg.MaxIter, cg: st})
		}
	}
	return nil
}

// eigenPro sets cfg to resume from and checkpoint EigenPro's epochs.
func (ck *scaleCk) eigenPro(cfg *eigenpro.Config) error {
	if ck == nil {
		return nil
	}
	if ck.resume != nil {
		if ck.resume.ep == nil {
			return fmt.Errorf("%w: the checkpoint holds no EigenPro state", ErrResume)
		}
		cfg.Resume = ck.resume.ep
	}
	if ck.save != nil {
		cfg.Checkpoint = func(st *eigenpro.State) error {
			return ck.save(&ScaleState{Spec: ck.spec, Done: st.Epoch, Total: cfg.Epochs, ep: st})
		}
	}
	return nil
}

// resumeErr restates falkon's refusal of a state as ErrResume's.
func resumeErr(err error) error {
	if errors.Is(err, falkon.ErrResume) {
		return fmt.Errorf("%w: %s (another memory budget?)", ErrResume, strings.TrimPrefix(err.Error(), falkon.ErrResume.Error()+": "))
	}
	if errors.Is(err, eigenpro.ErrResume) {
		return fmt.Errorf("%w: %s (another memory budget?)", ErrResume, strings.TrimPrefix(err.Error(), "classify: EigenPro: "+eigenpro.ErrResume.Error()+": "))
	}
	return err
}

// finite reports whether every element of v is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
