package reproduce

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
)

// t2Toy returns a separable task of n points in [0, 1]^d.
func t2Toy(n, d int, seed uint64) *mnist.Task[float64] {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := linalg.New[float64](n, d)
	y := make([]float64, n)
	for i := range n {
		s := 0.0
		r := x.Row(i)
		for j := range r {
			r[j] = rng.Float64()
			if j < d/2 {
				s += r[j]
			} else {
				s -= r[j]
			}
		}
		y[i] = 1
		if s < 0 {
			y[i] = -1
		}
	}
	return &mnist.Task[float64]{X: x, Y: y}
}

// TestTable2Float32Certificate: the float32-trained network, widened to
// float64 with its float32 initialisation, certifies soundly (sampled
// balls never leave the sound bound), and the clean variant subtracts f₀
// at the clean point only.
func TestTable2Float32Certificate(t *testing.T) {
	ctx := context.Background()
	train, test := t2Toy(256, 12, 1), t2Toy(40, 12, 2)
	env := &Env{Threads: 2}
	net, err := trainNN(ctx, env, train, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	net0, err := t2Init(train.X.Cols, 30)
	if err != nil {
		t.Fatal(err)
	}
	init32, err := ntk.NewNetwork[float32](train.X.Cols, 30, 1, 1, 0, t2Seed)
	if err != nil {
		t.Fatal(err)
	}
	for l, w := range widen(init32).W {
		for i, v := range w.Data {
			if net0.W[l].Data[i] != v {
				t.Fatalf("initial weight %d of layer %d: %v, the float32 draw %v", i, l, net0.W[l].Data[i], v)
			}
		}
	}
	moved := false
	for i, v := range net.W[1].Data {
		moved = moved || v != net0.W[1].Data[i]
		if float64(float32(v)) != v {
			t.Fatalf("trained weight %v is not a float32", v)
		}
	}
	if !moved {
		t.Fatal("training left the last layer as drawn")
	}
	for _, f0 := range []ibp.F0Mode{ibp.F0Sound, ibp.F0Clean} {
		radius, correct, err := certifyNN(ctx, env, net, net0, test, f0)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ibp.NewNetwork(net, net0, test.X, ibp.NetworkOptions{F0: f0})
		if err != nil {
			t.Fatal(err)
		}
		var rs []ibp.Result
		for i, r := range radius {
			if !math.IsNaN(r) {
				rs = append(rs, ibp.Result{Index: i, Output: c.Output(i), Radius: r})
			}
		}
		if correct < test.X.Rows/2 || len(rs) != correct {
			t.Fatalf("%v: %d correct of %d, %d radii", f0, correct, test.X.Rows, len(rs))
		}
		if s := summarize(radius, nil); !(s.Mean > 0) {
			t.Fatalf("%v: mean radius %v", f0, s.Mean)
		}
		if f0 != ibp.F0Sound {
			continue
		}
		bad, err := ibp.Verify(c, c, c.Point, rs, ibp.Linf, 64, false, 3)
		if err != nil || len(bad) > 0 {
			t.Fatalf("sound certificate: %d violations (%v), %v", len(bad), bad[:min(len(bad), 3)], err)
		}
	}
}

// TestTable2MemCap: width 10⁶ is refused up front, with the bytes it
// needs, when the memory cap is too small; the small widths pass.
func TestTable2MemCap(t *testing.T) {
	need, _ := Table2MemoryNeed(1000000)
	if need < 12e9 || need > 20e9 {
		t.Errorf("width 10⁶ needs %d bytes, want about 14e9", need)
	}
	o := Table2Options{Widths: []int{1000, 1000000}, MemCap: 8 << 30}
	err := o.Check(Paper)
	if err == nil || !strings.Contains(err.Error(), "width-1000000") || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("8 GiB for width 10⁶: %v", err)
	}
	o.MemCap = need
	if err := o.Check(Paper); err != nil {
		t.Errorf("cap = need: %v", err)
	}
	o.MemCap = -1
	if err := o.Check(Paper); err != nil {
		t.Errorf("no cap: %v", err)
	}
	if err := (Table2Options{}).Check(Paper); err != nil {
		t.Errorf("default widths under the default cap: %v", err)
	}
	if ws := (Table2Options{}).widths(Paper); len(ws) != 3 || ws[2].width != 100000 {
		t.Errorf("paper widths %v", ws)
	}
	if ws := (Table2Options{}).widths(Quick); len(ws) != 1 || ws[0].width != 1000 {
		t.Errorf("quick widths %v", ws)
	}
	if ws, err := ParseTable2Widths("1e5, 10000"); err != nil || len(ws) != 2 || ws[0] != 10000 || ws[1] != 100000 {
		t.Errorf("ParseTable2Widths: %v, %v", ws, err)
	}
	for _, bad := range []string{"", "1e2", "x", "1.5e3"} {
		if _, err := ParseTable2Widths(bad); err == nil {
			t.Errorf("ParseTable2Widths(%q) accepted", bad)
		}
	}
}

// cancelAfter is a context whose Err turns to context.Canceled after limit
// calls: it interrupts a training loop at a chosen step.
type cancelAfter struct {
	context.Context
	n, limit int
}

func (c *cancelAfter) Err() error {
	c.n++
	if c.n > c.limit {
		return context.Canceled
	}
	return nil
}

// TestTable2Resume interrupts a width's training, resumes it from the
// checkpoint it left and gets the uninterrupted run's weights bit for bit;
// a finished width's rows come back from its saved result, and a fresh run
// deletes what an earlier one left.
func TestTable2Resume(t *testing.T) {
	train := t2Toy(200, 10, 3)
	want, err := trainNN(context.Background(), &Env{}, train, 24, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ckpt := t2StatePath(dir, 24, 2, "ckpt")
	_, err = trainNN(&cancelAfter{Context: context.Background(), limit: 3}, &Env{Dir: dir}, train, 24, 2)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted training returned %v", err)
	}
	if _, err := os.Stat(ckpt); err != nil {
		t.Fatalf("no checkpoint after the interrupt: %v", err)
	}
	var log strings.Builder
	env := &Env{Dir: dir, Resume: true, Logf: func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }}
	got, err := trainNN(context.Background(), env, train, 24, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "continuing from the checkpoint") {
		t.Errorf("the resumed training did not load the checkpoint; log:\n%s", log.String())
	}
	for l := range want.W {
		if !reflect.DeepEqual(got.W[l].Data, want.W[l].Data) || !reflect.DeepEqual(got.B, want.B) {
			t.Fatalf("layer %d: resumed weights differ from the uninterrupted run", l)
		}
	}

	r := &t2WidthResult{Rows: []Row{{Quantity: "q", Paper: "1", Ours: 0.5, Tol: Rel(0.1), Reason: "r"}}, Notes: []string{"n"}, Full: 0.25}
	if err := saveT2Width(env, 24, 2, r); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ckpt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the checkpoint of a finished width was kept: %v", err)
	}
	if back := loadT2Width(env, 24, 2); !reflect.DeepEqual(back, r) {
		t.Errorf("saved width result read back as %+v, want %+v", back, r)
	}
	if back := loadT2Width(&Env{Dir: dir}, 24, 2); back != nil {
		t.Error("a fresh run took an earlier run's result")
	}
	if err := removeT2State(dir); err != nil {
		t.Fatal(err)
	}
	if back := loadT2Width(env, 24, 2); back != nil {
		t.Error("removeT2State left the width's result")
	}
}

func TestTable2WithWidth1e6(t *testing.T) {
	tests := []struct {
		name   string
		widths []int
		scale  Scale
		want   []int
	}{
		{"quick default", nil, Quick, []int{1000, 1000000}},
		{"paper default", nil, Paper, []int{1000, 10000, 100000, 1000000}},
		{"listed", []int{10000}, Quick, []int{10000, 1000000}},
		{"already listed", []int{1000, 1000000}, Paper, []int{1000, 1000000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Table2Options{Widths: tt.widths, MemCap: 7}
			got := o.WithWidth1e6(tt.scale)
			if !reflect.DeepEqual(got.Widths, tt.want) || got.MemCap != 7 {
				t.Errorf("got %v (mem cap %d), want %v", got.Widths, got.MemCap, tt.want)
			}
			if tt.widths != nil && len(o.Widths) != len(tt.widths) {
				t.Errorf("the receiver's widths changed to %v", o.Widths)
			}
		})
	}
}
