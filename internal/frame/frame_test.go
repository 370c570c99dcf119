package frame

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestFrame round-trips a payload and refuses every damaged frame with an
// error wrapping ErrState that says what is wrong.
func TestFrame(t *testing.T) {
	var e Enc
	e.Int(-3)
	e.F64(0.5)
	e.Bytes([]byte("ab"))
	e.F64s([]float64{1, 2})
	var b bytes.Buffer
	if err := Write(&b, StepperMagic, e.B); err != nil {
		t.Fatal(err)
	}
	good := b.Bytes()
	r := bytes.NewReader(append(bytes.Clone(good), 'x'))
	p, err := Read(r, StepperMagic)
	if err != nil || r.Len() != 1 {
		t.Fatalf("read: %v, %d bytes left (want the frame's bytes only)", err, r.Len())
	}
	d := Dec{B: p, What: "test"}
	if i, f, s, v := d.Int(), d.F64(), string(d.Bytes()), d.F64s(2); i != -3 || f != 0.5 || s != "ab" || v[1] != 2 || d.Done() != nil {
		t.Fatalf("decoded %d %v %q %v, %v", i, f, s, v, d.Err)
	}
	if d := (Dec{B: p[:5], What: "short"}); d.Int() != 0 || !errors.Is(d.Done(), ErrState) {
		t.Errorf("short payload: %v", d.Err)
	}
	if d := (Dec{B: p, What: "long"}); d.Int() != -3 || !errors.Is(d.Done(), ErrState) {
		t.Errorf("bytes left over: %v", d.Err)
	}
	damage := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated header"},
		{"other magic", damage(func(b []byte) []byte { copy(b, DriverMagic); return b }), "want a kernel-machine stepper state, got a training checkpoint"},
		{"unknown magic", damage(func(b []byte) []byte { copy(b, "XXXXXXXX"); return b }), "not a kernel-machine stepper state"},
		{"version", damage(func(b []byte) []byte { b[8] = 9; return b }), "version 9"},
		{"length", damage(func(b []byte) []byte { b[19] = 0xff; return b }), "absurd"},
		{"truncated", damage(func(b []byte) []byte { return b[:len(b)-1] }), "truncated"},
		{"checksum", damage(func(b []byte) []byte { b[25] ^= 1; return b }), "checksum mismatch"},
	} {
		_, err := Read(bytes.NewReader(tc.data), StepperMagic)
		if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrState with %q", tc.name, err, tc.want)
		}
	}
}
