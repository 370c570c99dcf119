package equiv

import (
	"math"
	"slices"
)

// Sweep is the gap between the network and its first kernel machine as a
// function of the width, over the runs at the first step size: per width
// the largest |f − g| over the training points and over time, and the
// least-squares slope of log gap against log width (the theory's
// O(1/√m) gap gives −1/2). With several seeds the per-width values are
// means over the seeds and the fit takes every (width, gap) pair.
type Sweep struct {
	Model  string `json:"model"` // the kernel machine compared with
	Seeds  int    `json:"seeds"` // runs per width
	Widths []int  `json:"widths"`
	// Gap is max_t max_i |f − g| over the training points, GapTest the
	// same over the test points, GapMean max_t of the mean over the
	// training points, Final the training max at the last evaluation.
	Gap     []float64 `json:"max_gap_train"`
	GapTest []Num     `json:"max_gap_test"`
	GapMean []float64 `json:"max_mean_gap_train"`
	Final   []float64 `json:"final_gap_train"`
	// Slope and SE are the fitted log–log slope of Gap against Widths and
	// its standard error (NaN with fewer than three points), Intercept the
	// fit's intercept (natural logarithms); the others fit GapMean and
	// Final.
	Slope      Num `json:"slope"`
	SE         Num `json:"slope_se"`
	Intercept  Num `json:"intercept"`
	SlopeMean  Num `json:"slope_mean_gap"`
	SEMean     Num `json:"slope_mean_gap_se"`
	SlopeFinal Num `json:"slope_final"`
	SEFinal    Num `json:"slope_final_se"`
}

// sweepOf returns the sweep of s's runs at the first step size, or nil with
// fewer than two widths there.
func sweepOf(s *Summary) *Sweep {
	byWidth := map[int][]RunResult{}
	for _, r := range s.Runs {
		if r.LR == s.Config.LRs[0] && len(r.MaxGap) > 0 {
			byWidth[r.Width] = append(byWidth[r.Width], r)
		}
	}
	if len(byWidth) < 2 {
		return nil
	}
	sw := &Sweep{}
	var w, gap, mean, final []float64
	for m, runs := range byWidth {
		sw.Widths = append(sw.Widths, m)
		sw.Model = runs[0].Models[1]
		sw.Seeds = max(sw.Seeds, len(runs))
		for _, r := range runs {
			w = append(w, float64(m))
			gap = append(gap, float64(r.MaxGap[0].TrainMax))
			mean = append(mean, float64(r.MaxGap[0].TrainMean))
			final = append(final, float64(r.FinalGap[0].TrainMax))
		}
	}
	slices.Sort(sw.Widths)
	for _, m := range sw.Widths {
		var g, gt, gm, f float64
		runs := byWidth[m]
		for _, r := range runs {
			g += float64(r.MaxGap[0].TrainMax)
			gt += float64(r.MaxGap[0].TestMax)
			gm += float64(r.MaxGap[0].TrainMean)
			f += float64(r.FinalGap[0].TrainMax)
		}
		k := float64(len(runs))
		sw.Gap, sw.GapTest = append(sw.Gap, g/k), append(sw.GapTest, Num(gt/k))
		sw.GapMean, sw.Final = append(sw.GapMean, gm/k), append(sw.Final, f/k)
	}
	slope, se, icpt := FitLogLog(w, gap)
	sw.Slope, sw.SE, sw.Intercept = Num(slope), Num(se), Num(icpt)
	slope, se, _ = FitLogLog(w, mean)
	sw.SlopeMean, sw.SEMean = Num(slope), Num(se)
	slope, se, _ = FitLogLog(w, final)
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
