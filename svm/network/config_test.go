package network

import (
	"github.com/ntksvm/ntksvm/svm"

	"math"
	"strings"
	"testing"
)

func TestParseNetworkConfig(t *testing.T) {
	tests := []struct {
		loss, reg, obj string
		eps, lambda    float64
		want           string // "" for success, else a substring of the error
	}{
		{"hinge", "paper", "mean", 0, 0.001, ""},
		{"eps-insensitive", "theory", "sum", 0.1, 0, ""},
		{"logistic", "none", "mean", 0, 1, ""},
		{"hing", "paper", "mean", 0, 0.001, "loss:"},
		{"hinge", "papr", "mean", 0, 0.001, "reg:"},
		{"hinge", "paper", "average", 0, 0.001, "objective:"},
		{"eps-insensitive", "paper", "mean", -1, 0.001, "epsilon"},
		{"eps-insensitive", "paper", "mean", math.NaN(), 0.001, "epsilon"},
		{"hinge", "paper", "mean", 0, -1, "lambda"},
		{"hinge", "paper", "mean", 0, math.Inf(1), "lambda"},
	}
	for _, tt := range tests {
		c, err := ParseConfig(tt.loss, tt.eps, tt.reg, tt.obj, tt.lambda)
		if tt.want != "" {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseConfig(%q, %v, %q, %q, %v) error %v; want one containing %q", tt.loss, tt.eps, tt.reg, tt.obj, tt.lambda, err, tt.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseConfig(%q, %v, %q, %q, %v): %v", tt.loss, tt.eps, tt.reg, tt.obj, tt.lambda, err)
			continue
		}
		if c.Loss.Name() != tt.loss || c.Loss.Epsilon != tt.eps || c.Reg.String() != tt.reg || c.Lambda != tt.lambda {
			t.Errorf("ParseConfig(%q, %v, %q, %q, %v) = %+v", tt.loss, tt.eps, tt.reg, tt.obj, tt.lambda, c)
		}
		if want, _ := svm.ParseObjective(tt.obj); c.Objective != want {
			t.Errorf("objective %q parsed as %v", tt.obj, c.Objective)
		}
	}
}
