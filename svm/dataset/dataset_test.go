package dataset

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

func TestReadCSV(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		o        Options
		rows     int
		classes  []string
		y        []int
		features []string
		first    []float64
		dropped  int
	}{
		{name: "header", in: "a,b,label\n1,2,x\n3,4,y\n5,6,x\n", rows: 3, classes: []string{"x", "y"}, y: []int{0, 1, 0}, features: []string{"a", "b"}, first: []float64{1, 2}},
		{name: "no header", in: "1,2,0\n3,4,1\n", rows: 2, classes: []string{"0", "1"}, y: []int{0, 1}, first: []float64{1, 2}},
		{name: "BOM CRLF semicolon", in: "\ufeffa;b;c\r\n1;2;b\r\n3;4;a\r\n", rows: 2, classes: []string{"a", "b"}, y: []int{1, 0}, features: []string{"a", "b"}, first: []float64{1, 2}},
		{name: "tab quoted", in: "\"x 1\"\t\"y\"\tlab\n1.5\t-2e3\t\"class one\"\n", rows: 1, classes: []string{"class one"}, y: []int{0}, features: []string{"x 1", "y"}, first: []float64{1.5, -2000}},
		{name: "label by name", in: "lab,a,b\nq,1,2\np,3,4\n", o: Options{Label: "lab"}, rows: 2, classes: []string{"p", "q"}, y: []int{1, 0}, features: []string{"a", "b"}, first: []float64{1, 2}},
		{name: "label by index", in: "7,1,2\n10,3,4\n", o: Options{Label: "0"}, rows: 2, classes: []string{"7", "10"}, y: []int{0, 1}, first: []float64{1, 2}},
		{name: "numeric classes order", in: "1,10\n2,9\n3,-1\n", rows: 3, classes: []string{"-1", "9", "10"}, y: []int{2, 1, 0}, first: []float64{1}},
		{name: "drop missing", in: "a,b,c\n1,,x\n?,2,y\n3,4,x\n5,6,\n", o: Options{Missing: DropMissing}, rows: 1, classes: []string{"x"}, y: []int{0}, features: []string{"a", "b"}, first: []float64{3, 4}, dropped: 3},
		{name: "blank lines", in: "1,2,a\n\n3,4,b\n", rows: 2, classes: []string{"a", "b"}, y: []int{0, 1}, first: []float64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(tc.in), "t.csv", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if d.N() != tc.rows || !slices.Equal(d.Classes, tc.classes) || !slices.Equal(d.Y, tc.y) ||
				!slices.Equal(d.Features, tc.features) || !slices.Equal(d.X.Row(0), tc.first) || d.Dropped != tc.dropped {
				t.Errorf("got n=%d classes=%q y=%v features=%q row0=%v dropped=%d", d.N(), d.Classes, d.Y, d.Features, d.X.Row(0), d.Dropped)
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		o        Options
		want     string
	}{
		{"empty", "", Options{}, "no data rows"},
		{"header only", "a,b,c\n", Options{}, "no data rows"},
		{"ragged", "a,b,c\n1,2,x\n3,y\n", Options{}, "line 3 has 2 fields, the first line has 3"},
		{"non-numeric", "a,b,c\n1,2,x\n3,abc,y\n", Options{}, `line 3, column 2 ("b"): "abc" is not a finite number`},
		{"infinite", "1,2,x\n3,Inf,y\n", Options{}, `line 2, column 2: "Inf" is not a finite number`},
		{"missing", "a,b,c\n1,,x\n", Options{}, `line 2, column 2 ("b"): missing value ""`},
		{"missing label", "a,b,c\n1,2,\n", Options{}, "the label (column 3 (the label)) is missing"},
		{"no such column", "a,b,c\n1,2,x\n", Options{Label: "class"}, `no column is named "class"`},
		{"index out of range", "1,2,x\n", Options{Label: "5"}, "label column 5: the file has 3 columns"},
		{"duplicate header", "a,a,c\n1,2,x\n", Options{}, `columns 1 and 2 have the same name "a"`},
		{"one column", "abc\n1\n", Options{}, "has one column"},
		{"all dropped", "a,b,c\n1,,x\n", Options{Missing: DropMissing}, "every one of the 1 rows has a missing value"},
		{"too big", "1,2,x\n", Options{MaxBytes: 1}, "more than the 0 MiB allowed"},
		{"bad quote", "a,b,c\n1,\"2,x\n", Options{}, "line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in), "t.csv", tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if tc.name != "too big" && !errors.Is(err, ErrData) {
				t.Errorf("error %v does not wrap ErrData", err)
			}
		})
	}
}

const arffText = `% a comment
@relation test
@attribute 'size' numeric
@attribute colour {red, 'dark blue'}
@attribute weight REAL
@attribute class {yes,no}
@data
1.5,red,2,yes
2,'dark blue',3,no
?,red,4,no
3,?,5,yes
`

func TestReadARFF(t *testing.T) {
	d, err := ReadARFF(strings.NewReader(arffText), "t.arff", Options{Missing: DropMissing})
	if err != nil {
		t.Fatal(err)
	}
	wantF := []string{"size", "colour=red", "colour=dark blue", "weight"}
	if !slices.Equal(d.Features, wantF) || d.N() != 2 || d.Dropped != 2 ||
		!slices.Equal(d.X.Row(1), []float64{2, 0, 1, 3}) || !slices.Equal(d.Classes, []string{"no", "yes"}) ||
		!slices.Equal(d.Y, []int{1, 0}) || !slices.Equal(d.Rows, []int{0, 1}) {
		t.Fatalf("got features %q n=%d dropped=%d row1=%v classes=%q y=%v rows=%v", d.Features, d.N(), d.Dropped, d.X.Row(1), d.Classes, d.Y, d.Rows)
	}
	if _, err := ReadARFF(strings.NewReader(arffText), "t.arff", Options{}); err == nil || !strings.Contains(err.Error(), `line 10, column "size": missing value "?"`) {
		t.Errorf("missing value: %v", err)
	}
	for _, bad := range []struct{ in, want string }{
		{"@relation r\n@attribute a string\n@attribute c {x}\n@data\n", "only numeric and nominal"},
		{"@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,z\n", `class "z" is not one of the declared`},
		{"@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1\n", "line 5 has 1 values, 2 attributes"},
		{"@relation r\n@attribute a numeric\n@attribute c {x,y}\n", "no @data section"},
		{"@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n{0 1}\n", "sparse"},
	} {
		if _, err := ReadARFF(strings.NewReader(bad.in), "b.arff", Options{}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestReadLIBSVM(t *testing.T) {
	d, err := ReadLIBSVM(strings.NewReader("cat 1:0.5 3:2 # c\ndog 2:1\n\ncat\n"), "t.svm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.N() != 3 || d.D() != 3 || !slices.Equal(d.X.Row(0), []float64{0.5, 0, 2}) || !slices.Equal(d.Y, []int{0, 1, 0}) {
		t.Fatalf("got n=%d d=%d row0=%v y=%v", d.N(), d.D(), d.X.Row(0), d.Y)
	}
	for _, bad := range []string{"1 0:1\n", "1 2:1 1:3\n", "1 2:1 2:3\n", "1 1:x\n", "1 1\n", "1 1:nan\n", "1 1:1e999\n", "1 1073741825:1\n"} {
		if _, err := ReadLIBSVM(strings.NewReader(bad), "b.svm", Options{}); err == nil || !errors.Is(err, ErrData) {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

func TestNpyPair(t *testing.T) {
	dir := t.TempDir()
	x := linalg.New[float64](3, 2)
	copy(x.Data, []float64{1, 2, 3, 4, 5, 6})
	xp := filepath.Join(dir, "x.npy")
	if err := npy.Write(xp, x); err != nil {
		t.Fatal(err)
	}
	yp := filepath.Join(dir, "y.txt")
	os.WriteFile(yp, []byte("b\na\nb\n"), 0o644)
	d, err := Load(xp+","+yp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Y, []int{1, 0, 1}) || d.X.At(2, 1) != 6 {
		t.Fatalf("y=%v x=%v", d.Y, d.X.Data)
	}
	os.WriteFile(yp, []byte("b\na\n"), 0o644)
	if _, err := Load(xp+","+yp, Options{}); err == nil || !strings.Contains(err.Error(), "has 2 labels, the features have 3 rows") {
		t.Errorf("short labels: %v", err)
	}
	yv := linalg.New[float64](1, 3)
	copy(yv.Data, []float64{0, 2, 2})
	ynp := filepath.Join(dir, "y.npy")
	if err := npy.Write(ynp, yv); err != nil {
		t.Fatal(err)
	}
	if d, err = Load(xp+","+ynp, Options{}); err != nil || !slices.Equal(d.Classes, []string{"0", "2"}) {
		t.Errorf("npy labels: %v, %v", d, err)
	}
}

func TestScaler(t *testing.T) {
	x := linalg.New[float64](4, 3)
	copy(x.Data, []float64{1, 5, 2, 3, 5, 4, 5, 5, 6, 7, 5, 8})
	s := FitScaler(x)
	if !slices.Equal(s.Mean, []float64{4, 5, 5}) || s.Scale[1] != 1 {
		t.Fatalf("scaler %+v", s)
	}
	y, err := s.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	var sum, sq float64
	for i := range 4 {
		sum += y.At(i, 0)
		sq += y.At(i, 0) * y.At(i, 0)
	}
	if sum != 0 || sq/4 < 1-1e-15 || sq/4 > 1+1e-15 || y.At(0, 1) != 0 {
		t.Errorf("standardised column: sum %v, mean square %v", sum, sq/4)
	}
	if _, err := s.Apply(linalg.New[float64](1, 2)); err == nil || !strings.Contains(err.Error(), "2 features, the model was trained on 3") {
		t.Errorf("wrong width: %v", err)
	}
}

func TestScalerUnitNorm(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  []float64
		want []float64
	}{
		{"3-4", []float64{3, 4}, []float64{3 * math.Sqrt2 / 5, 4 * math.Sqrt2 / 5}},
		{"zero", []float64{0, 0, 0}, []float64{0, 0, 0}},
		{"huge", []float64{1e300, -1e300}, []float64{1, -1}},
		{"subnormal", []float64{5e-324, 0}, []float64{math.Sqrt2, 0}},
		{"one", []float64{-2}, []float64{-1}},
	} {
		x := linalg.New[float64](1, len(tc.row))
		copy(x.Data, tc.row)
		y, err := (&Scaler{UnitNorm: true}).Apply(x)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for j, w := range tc.want {
			if g := y.At(0, j); math.Abs(g-w) > 1e-15*max(1, math.Abs(w)) {
				t.Errorf("%s: column %d is %v, want %v", tc.name, j, g, w)
			}
		}
		if x.Data[0] != tc.row[0] {
			t.Errorf("%s: Apply changed its input", tc.name)
		}
	}
	// Standardised first, then scaled to norm √3.
	x := linalg.New[float64](4, 3)
	copy(x.Data, []float64{1, 5, 2, 3, 5, 4, 5, 5, 6, 7, 5, 8})
	s := FitScaler(x)
	s.UnitNorm = true
	y, err := s.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range y.Rows {
		r, want := y.Row(i), x.Row(i)
		ss := 0.0
		for _, v := range r {
			ss += v * v
		}
		if math.Abs(ss-3) > 1e-13 {
			t.Errorf("row %d: squared norm %v, want 3", i, ss)
		}
		// Same direction as the standardised row.
		if z0 := (want[0] - s.Mean[0]) / s.Scale[0]; math.Abs(r[2]*z0-r[0]*(want[2]-s.Mean[2])/s.Scale[2]) > 1e-13 {
			t.Errorf("row %d: direction changed: %v", i, r)
		}
	}
}

func TestInfo(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("a,k,c\n1,0,x\n2,0,y\n3,0,x\n"), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := d.Info()
	if in.Rows != 3 || in.Features != 2 || !slices.Equal(in.Constant, []string{"k"}) ||
		!slices.Equal(in.Classes, []ClassCount{{"x", 2}, {"y", 1}}) {
		t.Fatalf("%+v", in)
	}
}
