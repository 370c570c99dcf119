package regress

import "math"

// Metrics are the usual measures of a regression's predictions against
// the true targets.
type Metrics struct {
	N    int     `json:"n"`
	RMSE float64 `json:"rmse"` // √(mean squared error)
	MAE  float64 `json:"mae"`  // mean absolute error
	// R2 is the coefficient of determination 1 − Σ(y − ŷ)²/Σ(y − ȳ)²
	// (scikit-learn's r2_score): 1 is perfect, 0 is predicting the mean
	// of y, negative is worse. NaN when y is constant.
	R2 float64 `json:"r2"`
}

// Evaluate returns the metrics of predictions pred against targets y
// (the same length).
func Evaluate(pred, y []float64) Metrics {
	m := Metrics{N: len(y)}
	if len(y) == 0 {
		return Metrics{RMSE: math.NaN(), MAE: math.NaN(), R2: math.NaN()}
	}
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	var sse, sae, sst float64
	for i, v := range y {
		d := v - pred[i]
		sse += d * d
		sae += math.Abs(d)
		sst += (v - mean) * (v - mean)
	}
	n := float64(len(y))
	m.RMSE, m.MAE = math.Sqrt(sse/n), sae/n
	m.R2 = math.NaN()
	if sst > 0 {
		m.R2 = 1 - sse/sst
	}
	return m
}
