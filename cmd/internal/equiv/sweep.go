package equiv

import (
	"math"
	"slices"
)

// Sweep is the gap between the network and its first kernel machine as a
// function of the width, over the runs at the first step size: per width
// the largest |f − g| over the training points and over time, and the
// least-squares slope of log gap against log width (the theory's
// O(1/√m) gap gives −1/2).
type Sweep struct {
	Model  string    `json:"model"` // the kernel machine compared with
	Widths []int     `json:"widths"`
	Gap    []float64 `json:"max_gap_train"` // max_t max_i |f − g| on the training points
	// GapTest is the same on the test points, Final the training gap at
	// the last evaluation.
	GapTest []Num     `json:"max_gap_test"`
	Final   []float64 `json:"final_gap_train"`
	// Slope and SE are the fitted log–log slope of Gap against Widths and
	// its standard error (NaN with fewer than three widths); SlopeFinal
	// fits Final.
	Slope      Num `json:"slope"`
	SE         Num `json:"slope_se"`
	Intercept  Num `json:"intercept"`
	SlopeFinal Num `json:"slope_final"`
	SEFinal    Num `json:"slope_final_se"`
}

// sweepOf returns the sweep of s's runs at the first step size, or nil with
// fewer than two widths there.
func sweepOf(s *Summary) *Sweep {
	var runs []RunResult
	for _, r := range s.Runs {
		if r.LR == s.Config.LRs[0] && len(r.MaxGap) > 0 {
			runs = append(runs, r)
		}
	}
	if len(runs) < 2 {
		return nil
	}
	slices.SortFunc(runs, func(a, b RunResult) int { return a.Width - b.Width })
	sw := &Sweep{Model: runs[0].Models[1]}
	for _, r := range runs {
		sw.Widths = append(sw.Widths, r.Width)
		sw.Gap = append(sw.Gap, float64(r.MaxGap[0].TrainMax))
		sw.GapTest = append(sw.GapTest, r.MaxGap[0].TestMax)
		sw.Final = append(sw.Final, float64(r.FinalGap[0].TrainMax))
	}
	w := make([]float64, len(sw.Widths))
	for i, m := range sw.Widths {
		w[i] = float64(m)
	}
	slope, se, icpt := FitLogLog(w, sw.Gap)
	sw.Slope, sw.SE, sw.Intercept = Num(slope), Num(se), Num(icpt)
	slope, se, _ = FitLogLog(w, sw.Final)
	sw.SlopeFinal, sw.SEFinal = Num(slope), Num(se)
	return sw
}

// FitLogLog fits log y = a + b·log x by least squares and returns the slope
// b, its standard error √(s²/Sxx) with s² = RSS/(k − 2) (NaN for fewer
// than three points), and the intercept a (natural logarithms). Points with
// x ≤ 0 or y ≤ 0 (or not finite) are left out; with fewer than two left,
// every result is NaN.
func FitLogLog(x, y []float64) (slope, se, intercept float64) {
	var lx, ly []float64
	for i := range min(len(x), len(y)) {
		if x[i] > 0 && y[i] > 0 && !math.IsInf(x[i], 0) && !math.IsInf(y[i], 0) {
			lx, ly = append(lx, math.Log(x[i])), append(ly, math.Log(y[i]))
		}
	}
	k := float64(len(lx))
	if len(lx) < 2 {
		return nan(), nan(), nan()
	}
	var mx, my float64
	for i := range lx {
		mx += lx[i]
		my += ly[i]
	}
	mx, my = mx/k, my/k
	var sxx, sxy float64
	for i := range lx {
		sxx += (lx[i] - mx) * (lx[i] - mx)
		sxy += (lx[i] - mx) * (ly[i] - my)
	}
	if sxx == 0 {
		return nan(), nan(), nan()
	}
	slope = sxy / sxx
	intercept = my - slope*mx
	if len(lx) < 3 {
		return slope, nan(), intercept
	}
	var rss float64
	for i := range lx {
		r := ly[i] - intercept - slope*lx[i]
		rss += r * r
	}
	return slope, math.Sqrt(rss / (k - 2) / sxx), intercept
}

func logf(v float64) float64 { return math.Log(v) }
func expf(v float64) float64 { return math.Exp(v) }
