package linalg

import (
	"math"
	"testing"
)

func TestAcos(t *testing.T) {
	tests := []struct{ x, want float64 }{
		{-1, math.Pi}, {-0.7, math.Acos(-0.7)}, {0, math.Pi / 2}, {0.3, math.Acos(0.3)},
		{1, 0}, {1 + 1e-12, 0}, {math.Inf(-1), math.Pi},
	}
	x := make([]float64, len(tests))
	for i, tt := range tests {
		x[i] = tt.x
	}
	dst := make([]float64, len(x))
	Acos(dst, x)
	for i, tt := range tests {
		if math.Abs(dst[i]-tt.want) > 4e-16*math.Max(1, tt.want) {
			t.Errorf("Acos(%v) = %v, want %v", tt.x, dst[i], tt.want)
		}
	}
}

// TestArcCosFirst checks the documented formula on one row, unit and
// non-unit norms, including a zero norm (ρ = 0).
func TestArcCosFirst(t *testing.T) {
	tests := []struct {
		name             string
		g                float64
		a, b, ni, nj     float64
		sw2, sb2         float64
		wantSig, wantDot float64
	}{
		{name: "orthogonal", g: 0, a: 1, b: 0, ni: 1, nj: 1, sw2: 1, sb2: 0,
			wantSig: 1 / (2 * math.Pi), wantDot: 1 / (2 * math.Pi)},
		{name: "equal", g: 1, a: 1, b: 0, ni: 1, nj: 1, sw2: 2, sb2: 0.1,
			wantSig: 2*0.5 + 0.1, wantDot: 2*1*0.5 + 2*0.5 + 0.1},
		{name: "scaled", g: 1.5, a: 2, b: 0, ni: 2, nj: 3, sw2: 1, sb2: 0,
			wantSig: arcCos1(3, 6), wantDot: 3*(math.Pi-math.Acos(0.5))/(2*math.Pi) + arcCos1(3, 6)},
		{name: "zero norm", g: 0.4, a: 1, b: 0, ni: 0, nj: 1, sw2: 1, sb2: 0.2,
			wantSig: 0.2, wantDot: 0.4*0.25 + 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			invi, invj := 0.0, 0.0
			if tt.ni != 0 {
				invi = 1 / tt.ni
			}
			if tt.nj != 0 {
				invj = 1 / tt.nj
			}
			sig, dot := make([]float64, 1), make([]float64, 1)
			ArcCosFirst(sig, dot, []float64{tt.g}, tt.a, tt.b, tt.ni, invi, []float64{tt.nj}, []float64{invj}, tt.sw2, tt.sb2)
			if math.Abs(sig[0]-tt.wantSig) > 1e-14 || math.Abs(dot[0]-tt.wantDot) > 1e-14 {
				t.Errorf("got sig %v dot %v, want %v %v", sig[0], dot[0], tt.wantSig, tt.wantDot)
			}
		})
	}
}

// arcCos1 is r·(√(1−ρ²) + (π − arccos ρ)·ρ)/(2π) for s = a·g and r = ni·nj.
func arcCos1(s, r float64) float64 {
	rho := s / r
	return r * (math.Sqrt(1-rho*rho) + (math.Pi-math.Acos(rho))*rho) / (2 * math.Pi)
}
