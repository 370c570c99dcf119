package genbound

import (
	"fmt"
	"io"
	"math"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment"
	"github.com/ntksvm/ntksvm/cmd/internal/present/output"

	"github.com/ntksvm/ntksvm/svm/extract"
)

// Num is a float64 written to JSON as null when it is NaN or ±Inf.
type Num = output.Num

// Point is the state of a run after Step updates, at t = Step·η: one row
// of curves.csv. Losses are the training loss of the configuration (mean
// over the points), unclipped unless named so.
type Point struct {
	Step int     `json:"step"`
	T    float64 `json:"t"`
	// The network's and the kernel machine's (K_T a + b) losses on the
	// training points, and on the test points.
	NNTrain Num `json:"nn_train_loss"`
	KMTrain Num `json:"km_train_loss"`
	NNTest  Num `json:"nn_test_loss"`
	// NNTestClipped is the test loss clipped to [0, 1]: the population
	// loss the valid bound bounds (estimated on the test set).
	NNTestClipped Num `json:"nn_test_clipped_loss"`
	KMTest        Num `json:"km_test_loss"`
	// The bound of Lemma B.2, Bound = BoundLoss + 2ρ·Rademacher +
	// Confidence, with BoundLoss the kernel machine's training loss as the
	// bound takes it (clipped, or not in AuthorsCode mode), B = √(aᵀK_T a)
	// and Rademacher = (B/n)·√Trace (Lemma B.1); BoundUnion is the version
	// valid for a B chosen after seeing the data: GridB the smallest grid
	// value ≥ B, RademacherUnion and ConfidenceUnion its terms (null in
	// AuthorsCode mode).
	BoundLoss       Num `json:"bound_loss"`
	Bound           Num `json:"bound"`
	BoundUnion      Num `json:"bound_union"`
	B               Num `json:"rkhs_norm"`
	GridB           Num `json:"grid_norm"`
	Trace           Num `json:"trace"`
	Rademacher      Num `json:"rademacher"`
	RademacherUnion Num `json:"rademacher_union"`
	Confidence      Num `json:"confidence"`
	ConfidenceUnion Num `json:"confidence_union"`
	// |f_NN − f_KM| on the training and test points: max and RMS.
	GapTrainMax Num `json:"gap_train_max"`
	GapTrainRMS Num `json:"gap_train_rms"`
	GapTestMax  Num `json:"gap_test_max"`
	GapTestRMS  Num `json:"gap_test_rms"`
	// SignBreaks counts the training points whose l' has changed sign so
	// far (Theorem 4.1's assumption fails for them).
	SignBreaks int `json:"sign_breaks"`
	// Drift is the largest run-dependent part of b (theory and last-layer
	// penalties; see extract.Report.DriftMaxAbs).
	Drift Num `json:"drift"`
}

// Terms is the bound at one time split into its terms, and which is the
// largest.
type Terms struct {
	Loss       Num    `json:"loss"`       // L̂_S
	Complexity Num    `json:"complexity"` // 2ρ·R̂
	Confidence Num    `json:"confidence"` // 3c·√(ln(2/δ')/(2n))
	Value      Num    `json:"value"`
	Vacuous    bool   `json:"vacuous"` // Value ≥ 1 (the clipped loss is at most 1)
	Dominant   string `json:"dominant"`
}

// Extraction says how the kernel machine was extracted.
type Extraction struct {
	DecayRate    float64 `json:"decay_rate"` // λ_f of Theorem 4.1
	Target       string  `json:"target"`     // what the decay pulls f toward
	SubtractInit bool    `json:"subtract_init"`
	Rule         string  `json:"rule"`
	AuthorsCode  bool    `json:"authors_code"`
}

// BoundSetting states the bound's constants.
type BoundSetting struct {
	Delta float64 `json:"delta"`
	// Clip is c, the loss clipped to [0, c]; 0 in AuthorsCode mode (no
	// clipping).
	Clip       float64 `json:"clip"`
	Rho        float64 `json:"rho"`
	GridMin    float64 `json:"grid_min"`
	GridLevels int     `json:"grid_levels"`
	Note       string  `json:"note"`
}

// Reference holds the numbers of the authors' example figure
// (generalization.png, made by generalization.py with δ = 0.99) for the
// figB2 preset.
type Reference struct {
	Source         string  `json:"source"`
	BoundStart     float64 `json:"bound_start"` // at t = 0.1
	BoundEnd       float64 `json:"bound_end"`   // at t = 9.9
	TrainLossStart float64 `json:"train_loss_start"`
	TrainLossEnd   float64 `json:"train_loss_end"`
	MaxGap         float64 `json:"max_gap"`
}

// Summary is what summary.json holds.
type Summary struct {
	Config Config `json:"config"`
	// Status is "complete", "interrupted" or "failed: …".
	experiment.Header
	// Seconds is the wall time of the run, StepSeconds the first step's.
	Seconds     float64      `json:"seconds"`
	StepSeconds float64      `json:"first_step_seconds"`
	Extraction  Extraction   `json:"extraction"`
	Bound       BoundSetting `json:"bound"`
	// MaxGapTrain and MaxGapTest are max over the run of |f_NN − f_KM|.
	MaxGapTrain Num `json:"max_gap_train"`
	MaxGapTest  Num `json:"max_gap_test"`
	// First is the first point after an update (t = η), Last the last.
	First Point `json:"first"`
	Last  Point `json:"last"`
	// End and EndUnion are the bound and its union-bound version at the
	// last point, by term.
	End      Terms `json:"end"`
	EndUnion Terms `json:"end_union"`
	// SignBreaks lists the points where Theorem 4.1's sign assumption
	// failed (the first 100), SignBreakCount how many there are.
	SignBreaks     []extract.SignBreak `json:"sign_breaks"`
	SignBreakCount int                 `json:"sign_break_count"`
	Reference      *Reference          `json:"reference,omitempty"`
	Points         []Point             `json:"curves"`
}

func newSummary(cfg Config, p parsed, ec extract.Config, ds *usedData) *Summary {
	s := &Summary{Config: cfg, Header: experiment.NewHeader(ds.used)}
	target := map[extract.DecayTarget]string{extract.DecayToZero: "zero", extract.DecayToInit: "f0 (last layer)", extract.DecayToInitAll: "f0 (every layer)"}[ec.Target]
	if ec.Decay == 0 {
		target = "none"
	}
	s.Extraction = Extraction{DecayRate: ec.Decay, Target: target, SubtractInit: ec.SubtractInit, Rule: "trapezoid", AuthorsCode: ec.AuthorsCode}
	bc := cfg.boundConfig(p)
	s.Bound = BoundSetting{Delta: p.delta, Clip: 1, Rho: bc.Rho, GridMin: 1.0 / 1024, GridLevels: 41,
		Note: "union bound over B_k = 2^(k-10), k = 0..40 (up to 2^30), each with confidence δ/41: the confidence term becomes 3c·√(ln(2·41/δ)/(2n)) and B is replaced by the smallest B_k ≥ B"}
	if cfg.AuthorsCode {
		s.Bound.Clip, s.Bound.GridMin, s.Bound.GridLevels = 0, 0, 0
		s.Bound.Note = "generalization.py: unclipped loss, R from the asymmetric kernel with g_j = −y_j (the l' mask never fires), no union bound"
	}
	if figB2Setting(cfg) {
		s.Reference = &Reference{Source: "generalization.png of the authors' generalization.py (δ = 0.99, unclipped hinge)",
			BoundStart: 1.055, BoundEnd: 0.912, TrainLossStart: 0.998, TrainLossEnd: 0.840, MaxGap: 1.5e-3}
	}
	return s
}

// figB2Setting reports whether cfg is the figB2 preset up to the seed,
// the float type, δ, the test points and AuthorsCode: the setting of the
// authors' figure.
func figB2Setting(cfg Config) bool {
	ref, _ := Preset("figB2")
	c := cfg
	c.Seed, c.Float64, c.Delta, c.NTest, c.AuthorsCode = 0, false, 0, 0, false
	return c == ref
}

// finish fills the summary's aggregates from the points and the extractor.
func (s *Summary) finish(ex interface {
	Report() (*extract.Report, error)
}) {
	if len(s.Points) == 0 {
		return
	}
	for _, p := range s.Points {
		s.MaxGapTrain = output.MaxNum(s.MaxGapTrain, p.GapTrainMax)
		s.MaxGapTest = output.MaxNum(s.MaxGapTest, p.GapTestMax)
	}
	s.First = s.Points[min(1, len(s.Points)-1)]
	s.Last = s.Points[len(s.Points)-1]
	l := s.Last
	rho := s.Bound.Rho
	s.End = terms(l.BoundLoss, Num(2*rho*float64(l.Rademacher)), l.Confidence, l.Bound)
	s.EndUnion = terms(l.BoundLoss, Num(2*rho*float64(l.RademacherUnion)), l.ConfidenceUnion, l.BoundUnion)
	if r, err := ex.Report(); err == nil {
		s.SignBreakCount = len(r.SignBreaks)
		s.SignBreaks = r.SignBreaks[:min(100, len(r.SignBreaks))]
	}
}

func terms(loss, cx, conf, v Num) Terms {
	t := Terms{Loss: loss, Complexity: cx, Confidence: conf, Value: v, Vacuous: !(v < 1)}
	t.Dominant = "loss"
	if cx > t.Loss && cx >= conf {
		t.Dominant = "complexity"
	} else if conf > t.Loss && conf > cx {
		t.Dominant = "confidence"
	}
	if math.IsNaN(float64(v)) {
		t.Dominant = ""
	}
	return t
}

// logResult writes the result lines.
func (s *Summary) logResult(w io.Writer) {
	f, l := s.First, s.Last
	mode := fmt.Sprintf("valid bound (clipped loss, δ = %g)", s.Bound.Delta)
	if s.Config.AuthorsCode {
		mode = fmt.Sprintf("authors' code (unclipped loss, δ = %g)", s.Bound.Delta)
	}
	fmt.Fprintf(w, "train loss NN %.4f → %.4f, KM %.4f → %.4f (t = %.4g → %.4g); NN test loss %.4f (clipped %.4f)\n",
		f.NNTrain, l.NNTrain, f.KMTrain, l.KMTrain, f.T, l.T, l.NNTest, l.NNTestClipped)
	fmt.Fprintf(w, "max |f_NN − f_KM|: train %.3g, test %.3g; sign breaks %d\n", s.MaxGapTrain, s.MaxGapTest, s.SignBreakCount)
	fmt.Fprintf(w, "%s: %.4f → %.4f = loss %.4f + complexity %.4f (B %.4g, tr K %.4g) + confidence %.4f\n",
		mode, f.Bound, l.Bound, s.End.Loss, s.End.Complexity, l.B, l.Trace, s.End.Confidence)
	if !s.Config.AuthorsCode {
		fmt.Fprintf(w, "union-bound version at t = %.4g: %.4f = loss %.4f + complexity %.4f (B_k %.4g) + confidence %.4f\n",
			l.T, s.EndUnion.Value, s.EndUnion.Loss, s.EndUnion.Complexity, l.GridB, s.EndUnion.Confidence)
	}
	for _, t := range []struct {
		name string
		t    Terms
	}{{"the bound", s.End}, {"the union-bound version", s.EndUnion}} {
		if t.t.Vacuous && t.t.Dominant != "" {
			fmt.Fprintf(w, "%s is vacuous (≥ 1); its largest term is the %s\n", t.name, t.t.Dominant)
		}
	}
	if r := s.Reference; r != nil {
		fmt.Fprintf(w, "authors' figure: bound %.3f → %.3f, train hinge %.3f → %.3f, max |NN − KM| ≈ %.1e\n",
			r.BoundStart, r.BoundEnd, r.TrainLossStart, r.TrainLossEnd, r.MaxGap)
	}
}
