package classify

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/ntksvm/ntksvm/internal/frame"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm/eigenpro"
	"github.com/ntksvm/ntksvm/svm/falkon"
)

// The payload of a ScaleState's frame (frame.ScaleMagic), integers as
// int64 and floats as their bits, little-endian:
//
//	route (1 on demand, 2 Falkon, 3 EigenPro), the spec as JSON (length, bytes),
//	Done, Total, then
//	on demand: the number of finished sub-problems k and k times: its
//	  position, pos, neg, bias, the number of support vectors s, s
//	  indices, s coefficients;
//	Falkon: Iteration, N, BlockRows, StoredBlocks, Shift, Tol, M, c, the
//	  M centres, β, r and p (M×c each, row-major), rr and the targets
//	  (c each);
//	EigenPro: its State's binary form (eigenpro.State.MarshalBinary) as
//	  bytes (length, bytes).

// Save writes s in its checksummed binary form (ReadScaleState reads it).
func (s *ScaleState) Save(w io.Writer) error {
	spec, err := json.Marshal(&s.Spec)
	if err != nil {
		return err
	}
	var e frame.Enc
	e.Int(int(s.Route()))
	e.Bytes(spec)
	e.Int(s.Done)
	e.Int(s.Total)
	if st := s.ep; st != nil {
		b, err := st.MarshalBinary()
		if err != nil {
			return err
		}
		e.Bytes(b)
	} else if st := s.cg; st != nil {
		for _, v := range []int{st.Iteration, st.N, st.BlockRows, st.StoredBlocks} {
			e.Int(v)
		}
		e.F64(st.Shift)
		e.F64(st.Tol)
		e.Int(len(st.Centres))
		e.Int(len(st.RR))
		putInts(&e, st.Centres)
		for _, v := range [][]float64{st.Beta.Data, st.R.Data, st.P.Data, st.RR, st.Target} {
			e.F64s(v)
		}
	} else {
		e.Int(len(s.units))
		for _, su := range s.units {
			e.Int(su.at)
			e.Int(su.u.pos)
			e.Int(su.u.neg)
			e.F64(su.u.bias)
			e.Int(len(su.u.idx))
			putInts(&e, su.u.idx)
			e.F64s(su.u.alpha)
		}
	}
	return frame.Write(w, frame.ScaleMagic, e.B)
}

func putInts(e *frame.Enc, v []int) {
	for _, x := range v {
		e.Int(x)
	}
}

// ints reads n ints, nil once d has failed.
func ints(d *frame.Dec, n int) []int {
	if n < 0 {
		d.Err = frame.Errorf("%s: a count of %d", d.What, n)
		return nil
	}
	b := d.Take(uint64(n), 8)
	if b == nil {
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = int(int64(binary.LittleEndian.Uint64(b[8*i:])))
	}
	return v
}

// ReadScaleState reads a state written by ScaleState.Save, exactly its
// bytes, and checks that it is whole and consistent. Errors wrap
// frame's ErrState ("svm: bad training state") and say what is wrong: not
// a checkpoint, truncated, corrupted (checksum), or inconsistent.
func ReadScaleState(r io.Reader) (*ScaleState, error) {
	payload, err := frame.Read(r, frame.ScaleMagic)
	if err != nil {
		return nil, err
	}
	return decodeScaleState(payload)
}

func decodeScaleState(payload []byte) (*ScaleState, error) {
	what := frame.Name(frame.ScaleMagic)
	d := &frame.Dec{B: payload, What: what}
	route := Route(d.Int())
	spec := d.Bytes()
	s := &ScaleState{Done: d.Int(), Total: d.Int()}
	if d.Err != nil {
		return nil, d.Err
	}
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.Spec); err != nil {
		return nil, frame.Errorf("%s: its spec: %v", what, err)
	}
	if err := checkSpec(&s.Spec, route); err != nil {
		return nil, frame.Errorf("%s: %v", what, err)
	}
	switch route {
	case RouteOnDemand:
		s.units = readUnits(d, &s.Spec)
	case RouteFalkon:
		s.cg = readCG(d)
	case RouteEigenPro:
		b := d.Bytes()
		if d.Err == nil {
			s.ep = new(eigenpro.State)
			if err := s.ep.UnmarshalBinary(b); err != nil {
				return nil, frame.Errorf("%s: %v", what, err)
			}
		}
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, frame.Errorf("%s: %v", what, err)
	}
	return s, nil
}

// checkSpec checks the parts of a spec the reader relies on.
func checkSpec(s *ScaleSpec, route Route) error {
	switch {
	case route != RouteOnDemand && route != RouteFalkon && route != RouteEigenPro:
		return fmt.Errorf("route %d", int(route))
	case s.Route != route.String():
		return fmt.Errorf("route %q in a state of route %v", s.Route, route)
	case s.N < 1 || s.D < 1 || s.Classes < 2 || s.Classes > s.N:
		return fmt.Errorf("%d examples of %d features in %d classes", s.N, s.D, s.Classes)
	}
	return nil
}

// readUnits reads the finished sub-problems (their count bounded by the
// payload: a sub-problem takes at least 40 bytes).
func readUnits(d *frame.Dec, spec *ScaleSpec) []savedUnit {
	k := d.Int()
	if d.Err != nil {
		return nil
	}
	if k < 0 || k > len(d.B)/40 {
		d.Err = frame.Errorf("%s: %d sub-problems in %d bytes", d.What, k, len(d.B))
		return nil
	}
	units := make([]savedUnit, 0, k)
	for range k {
		var su savedUnit
		su.at, su.u.pos, su.u.neg, su.u.bias = d.Int(), d.Int(), d.Int(), d.F64()
		ns := d.Int()
		su.u.idx = ints(d, ns)
		su.u.alpha = d.F64s(max(ns, 0))
		if d.Err != nil {
			return nil
		}
		units = append(units, su)
	}
	return units
}

// readCG reads Falkon's state.
func readCG(d *frame.Dec) *falkon.State {
	st := &falkon.State{Iteration: d.Int(), N: d.Int(), BlockRows: d.Int(), StoredBlocks: d.Int(), Shift: d.F64(), Tol: d.F64()}
	m, c := d.Int(), d.Int()
	if d.Err != nil {
		return nil
	}
	if m < 1 || c < 1 || m > len(d.B)/8 || c > len(d.B)/8/m {
		d.Err = frame.Errorf("%s: %d centres and %d outputs in %d bytes", d.What, m, c, len(d.B))
		return nil
	}
	st.Centres = ints(d, m)
	mat := func() linalg.Matrix[float64] {
		return linalg.Matrix[float64]{Rows: m, Cols: c, Stride: c, Data: d.F64s(m * c)}
	}
	st.Beta, st.R, st.P = mat(), mat(), mat()
	st.RR, st.Target = d.F64s(c), d.F64s(c)
	return st
}

// check reports whether s is consistent: counts within the spec,
// finished sub-problems at distinct ascending positions, each a machine
// of classes of the spec over ascending points with finite weights, or a
// well-formed Falkon state of the spec's points and centres.
func (s *ScaleState) check() error {
	if st := s.ep; st != nil {
		switch {
		case st.N != s.Spec.N || st.Outputs != s.Spec.Classes:
			return fmt.Errorf("an EigenPro state of %d points and %d outputs for %d points and %d classes", st.N, st.Outputs, s.Spec.N, s.Spec.Classes)
		case s.Done != st.Epoch || s.Total < 0:
			return fmt.Errorf("%d of %d epochs done, the EigenPro state is after %d", s.Done, s.Total, st.Epoch)
		}
		return nil
	}
	if s.cg != nil {
		st := s.cg
		if err := st.Check(); err != nil {
			return err
		}
		switch {
		case st.N != s.Spec.N || len(st.Centres) != s.Spec.Centres || len(st.RR) != s.Spec.Classes:
			return fmt.Errorf("a Falkon state of %d points, %d centres and %d outputs for %d points, %d centres and %d classes",
				st.N, len(st.Centres), len(st.RR), s.Spec.N, s.Spec.Centres, s.Spec.Classes)
		case s.Done != st.Iteration || s.Total < 0:
			return fmt.Errorf("%d of %d iterations done, the CG's state is after %d", s.Done, s.Total, st.Iteration)
		}
		return nil
	}
	if s.Done != len(s.units) || s.Total < s.Done || s.Total > s.Spec.Classes*(s.Spec.Classes-1)/2 && s.Total > s.Spec.Classes {
		return fmt.Errorf("%d of %d sub-problems done, %d kept, for %d classes", s.Done, s.Total, len(s.units), s.Spec.Classes)
	}
	for i, su := range s.units {
		u := su.u
		switch {
		case su.at < 0 || su.at >= s.Total || i > 0 && s.units[i-1].at >= su.at:
			return fmt.Errorf("sub-problem %d of %d, after %d", su.at, s.Total, s.units[max(i-1, 0)].at)
		case u.pos < 0 || u.pos >= s.Spec.Classes || u.neg < -1 || u.neg >= s.Spec.Classes || u.neg == u.pos:
			return fmt.Errorf("sub-problem %d: classes %d vs %d of %d", su.at, u.pos, u.neg, s.Spec.Classes)
		case !finite(u.alpha) || math.IsNaN(u.bias) || math.IsInf(u.bias, 0):
			return fmt.Errorf("sub-problem %d: a weight or the bias is NaN or ±Inf", su.at)
		}
		for k, j := range u.idx {
			if j < 0 || j >= s.Spec.N || k > 0 && u.idx[k-1] >= j {
				return fmt.Errorf("sub-problem %d: support vectors are not ascending points 0…%d", su.at, s.Spec.N-1)
			}
		}
	}
	return nil
}
