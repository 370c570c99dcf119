package linalg

import (
	"errors"
	"math"
	"testing"
)

func TestFromSliceAndStrided(t *testing.T) {
	for _, tc := range []struct {
		name               string
		rows, cols, stride int
		n                  int
		wantErr            bool
	}{
		{"compact", 2, 3, 3, 6, false},
		{"padded", 2, 3, 5, 8, false},
		{"short", 2, 3, 5, 7, true},
		{"stride below cols", 2, 3, 2, 8, true},
		{"negative", -1, 3, 3, 0, true},
		{"empty rows", 0, 3, 3, 0, false},
		{"empty cols stride 0", 5, 0, 0, 0, false},
		{"empty cols stride 1", 5, 0, 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := FromStrided(tc.rows, tc.cols, tc.stride, make([]float64, tc.n))
			if (err != nil) != tc.wantErr {
				t.Fatalf("FromStrided err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrShape) {
					t.Fatalf("error %v does not wrap ErrShape", err)
				}
				return
			}
			c := m.Clone() // must not panic, whatever the shape
			if c.Rows != tc.rows || c.Cols != tc.cols {
				t.Fatalf("Clone is %d×%d, want %d×%d", c.Rows, c.Cols, tc.rows, tc.cols)
			}
			for i := range m.Rows {
				if len(m.Row(i)) != tc.cols {
					t.Fatalf("Row(%d) has %d elements, want %d", i, len(m.Row(i)), tc.cols)
				}
			}
		})
	}
	if _, err := FromSlice(2, 3, make([]float32, 5)); !errors.Is(err, ErrShape) {
		t.Fatalf("FromSlice with 5 elements for 2×3: err = %v, want ErrShape", err)
	}
}

func TestSliceViewsShareStorage(t *testing.T) {
	m := New[float32](4, 5)
	for i := range m.Data {
		m.Data[i] = float32(i)
	}
	v := m.Slice(1, 3, 2, 5)
	if v.Rows != 2 || v.Cols != 3 || v.Stride != 5 || v.At(0, 0) != 7 || v.At(1, 2) != 14 {
		t.Fatalf("view = %+v", v)
	}
	v.Set(1, 1, -1)
	if m.At(2, 3) != -1 {
		t.Fatalf("writing through the view did not change the matrix")
	}
	tr := v.T()
	if tr.Rows != 3 || tr.Cols != 2 || tr.At(2, 1) != 14 {
		t.Fatalf("transpose = %+v", tr)
	}
	if e := m.Slice(4, 4, 0, 5); e.Rows != 0 || len(e.Data) != 0 {
		t.Fatalf("empty view = %+v", e)
	}
}

func TestConvert(t *testing.T) {
	x := New[float64](2, 3)
	copy(x.Data, []float64{1, 0.1, -2.5, math.Pi, 1e-50, 7})
	if y := Convert[float64](x); &y.Data[0] != &x.Data[0] {
		t.Error("Convert to the same type copied")
	}
	y := Convert[float32](x)
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			if y.Row(i)[j] != float32(v) {
				t.Errorf("[%d,%d] = %v, want %v", i, j, y.Row(i)[j], float32(v))
			}
		}
	}
	// A view with a stride keeps only its own elements.
	v := x.Slice(0, 2, 1, 3)
	if z := Convert[float32](v); z.Rows != 2 || z.Cols != 2 || z.Row(1)[1] != 7 {
		t.Errorf("converted view %+v", z)
	}
}
