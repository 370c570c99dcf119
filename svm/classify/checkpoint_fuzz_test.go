package classify

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/internal/frame"
	"github.com/ntksvm/ntksvm/linalg"
)

// fuzzFits are small fits at scale whose checkpoints seed
// FuzzScaleCheckpoint and which the states it reads are resumed with:
// one-vs-one pairs on Grams of their own, the same on the shared
// on-demand Gram, one-vs-rest, and Falkon.
func fuzzFits() (linalg.Matrix[float64], []string, []Options) {
	x, labels := blobs(3, 12, 4, 21)
	g := onePoint(10)
	return x, labels, []Options{
		{Grid: g, AtScale: true},
		{Grid: g, AtScale: true, rowsOnly: true},
		{Grid: g, AtScale: true, Scheme: OneVsRest},
		{Grid: g, AtScale: true, Machine: KRR, Centres: 9, Seed: 1},
	}
}

// fuzzOptions returns the fit of fuzzFits a state s belongs to.
func fuzzOptions(opts []Options, s *ScaleState) Options {
	switch {
	case s.Spec.Route == RouteFalkon.String():
		return opts[3]
	case s.Spec.Scheme == OneVsRest.String():
		return opts[2]
	case strings.Contains(s.Spec.Own, "1"):
		return opts[0]
	}
	return opts[1]
}

// FuzzScaleCheckpoint feeds ReadScaleState arbitrary bytes, and the
// decoder of its payload the same bytes as a payload (past the checksum,
// which almost every mutation of a frame breaks). Neither may panic; an
// error wraps frame.ErrState; a state that reads writes back to the bytes
// it reads again from. A payload that decodes is resumed by the fit it
// claims to belong to: the fit fails with ErrResume or completes, and
// never panics.
func FuzzScaleCheckpoint(f *testing.F) {
	x, labels, opts := fuzzFits()
	for _, o := range opts {
		for _, stop := range []int{1, 2} {
			ctx, cancel := context.WithCancel(context.Background())
			var last *ScaleState
			o.Checkpoint = func(s *ScaleState) error {
				last = s
				if s.Done == stop {
					cancel()
				}
				return nil
			}
			New(o).Fit(ctx, x, labels)
			cancel()
			var b bytes.Buffer
			if err := last.Save(&b); err != nil {
				f.Fatal(err)
			}
			f.Add(b.Bytes())
			f.Add(b.Bytes()[20 : b.Len()-4]) // the payload
		}
	}
	f.Add([]byte{})
	f.Add([]byte("NTKSVMSC\x01\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := ReadScaleState(bytes.NewReader(b)); err != nil {
			if !errors.Is(err, frame.ErrState) {
				t.Fatalf("error %v does not wrap ErrState", err)
			}
		} else {
			roundTrip(t, s)
		}
		s, err := decodeScaleState(b)
		if err != nil {
			if !errors.Is(err, frame.ErrState) {
				t.Fatalf("error %v does not wrap ErrState", err)
			}
			return
		}
		roundTrip(t, s)
		o := fuzzOptions(opts, s)
		o.Resume = s
		if err := New(o).Fit(context.Background(), x, labels); err != nil && !errors.Is(err, ErrResume) {
			t.Fatalf("resuming a state that reads: %v, want ErrResume or success", err)
		}
	})
}

// roundTrip checks that s writes bytes that read back to a state writing
// the same bytes.
func roundTrip(t *testing.T, s *ScaleState) {
	t.Helper()
	var a, b bytes.Buffer
	if err := s.Save(&a); err != nil {
		t.Fatal(err)
	}
	back, err := ReadScaleState(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatalf("a state that read does not read back: %v", err)
	}
	if err := back.Save(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("a state does not write back the bytes it was read from")
	}
}
