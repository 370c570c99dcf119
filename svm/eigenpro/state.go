package eigenpro

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// State is a Fit after an epoch (Config.Checkpoint), from which a Fit on
// the same data with the same Config continues (Config.Resume) to the same
// Model bit for bit: the subsample, the preconditioner and the batch order
// are recomputed from the Config and the seed, and the coefficients are
// kept here. Fingerprint is a SHA-256 of the training inputs and targets,
// the holdout, the kernel and every setting the result depends on; a Fit
// refuses a State whose fingerprint or plan differs from its own.
type State struct {
	Epoch       int // epochs done
	N, Outputs  int
	Fingerprint [32]byte
	Plan        Plan
	Alpha       linalg.Matrix[float64] // n×k after Epoch
	// Best, BestEpoch and BestScore are the holdout's best epoch so far
	// (BestEpoch 0 without a holdout).
	Best      linalg.Matrix[float64]
	BestEpoch int
	BestScore float64
	History   []EpochStats
}

// Check reports whether st is well formed (shapes and finite values); it
// does not say whether st belongs to a given Fit.
func (st *State) Check() error {
	n, k := st.N, st.Outputs
	if st.Epoch < 1 || n < 1 || k < 1 || len(st.History) != st.Epoch {
		return fmt.Errorf("%w: epoch %d of %d points with %d outputs and %d epochs recorded", ErrResume, st.Epoch, n, k, len(st.History))
	}
	ok := func(a linalg.Matrix[float64]) bool {
		if a.Rows != n || a.Cols != k || a.Stride != k || len(a.Data) != n*k {
			return false
		}
		for _, v := range a.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
		return true
	}
	if !ok(st.Alpha) {
		return fmt.Errorf("%w: coefficients are not %d×%d finite values", ErrResume, n, k)
	}
	if st.BestEpoch < 0 || st.BestEpoch > st.Epoch || st.BestEpoch > 0 && !ok(st.Best) {
		return fmt.Errorf("%w: best epoch %d of %d without its %d×%d coefficients", ErrResume, st.BestEpoch, st.Epoch, n, k)
	}
	return nil
}

// matches reports whether st is a state of the fit with fingerprint fp
// and plan p.
func (st *State) matches(fp [32]byte, p Plan) error {
	if st.Fingerprint != fp {
		return fmt.Errorf("%w: it was made on other data, another holdout, another kernel or other settings (fingerprint %x, this fit's %x)", ErrResume, st.Fingerprint[:6], fp[:6])
	}
	q := st.Plan
	q.Bytes = p.Bytes
	if q != p {
		return fmt.Errorf("%w: its plan %+v differs from this fit's %+v", ErrResume, st.Plan, p)
	}
	return nil
}

// fingerprint hashes everything a Fit's result depends on besides the
// thread count.
func fingerprint(x linalg.Matrix[float32], y linalg.Matrix[float64], spec ntk.Spec, cfg Config, p Plan) [32]byte {
	h := sha256.New()
	var buf [8]byte
	u := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	f := func(v float64) { u(math.Float64bits(v)) }
	m32 := func(a linalg.Matrix[float32]) {
		u(uint64(a.Rows))
		u(uint64(a.Cols))
		row := make([]byte, 4*a.Cols)
		for i := range a.Rows {
			for j, v := range a.Row(i) {
				binary.LittleEndian.PutUint32(row[4*j:], math.Float32bits(v))
			}
			h.Write(row)
		}
	}
	m64 := func(a linalg.Matrix[float64]) {
		u(uint64(a.Rows))
		u(uint64(a.Cols))
		for i := range a.Rows {
			for _, v := range a.Row(i) {
				f(v)
			}
		}
	}
	h.Write([]byte("eigenpro state v1"))
	m32(x)
	m64(y)
	u(uint64(spec.Kind))
	u(uint64(spec.Depth))
	u(uint64(spec.Fixed))
	f(spec.WeightStd)
	f(spec.BiasStd)
	f(cfg.Shift)
	u(cfg.Seed)
	f(cfg.StepScale)
	u(uint64(p.Subsample))
	u(uint64(p.Components))
	u(uint64(p.Batch))
	if ho := cfg.Holdout; ho != nil {
		u(1 + uint64(ho.Metric))
		m32(ho.X)
		m64(ho.Y)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// stateMagic starts a State's binary form.
const stateMagic = "NTKSVM-EIGENPRO-STATE-1\n"

// MarshalBinary writes st in a little-endian binary form (exact float64
// bits), which UnmarshalBinary reads back.
func (st *State) MarshalBinary() ([]byte, error) {
	if err := st.Check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(stateMagic)
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	w(int64(st.Epoch))
	w(int64(st.N))
	w(int64(st.Outputs))
	w(st.Fingerprint)
	p := st.Plan
	w([]int64{int64(p.N), int64(p.Outputs), int64(p.Subsample), int64(p.Components), int64(p.Batch), p.Bytes})
	w([]float64{p.Beta, p.Tau, p.Top, p.Step, p.StepScale})
	w(st.Alpha.Data)
	w(int64(st.BestEpoch))
	w(st.BestScore)
	if st.BestEpoch > 0 {
		w(st.Best.Data)
	}
	for _, e := range st.History {
		w(int64(e.Epoch))
		w([]float64{e.Loss, e.HoldoutLoss, e.HoldoutAccuracy, e.Seconds})
	}
	return b.Bytes(), nil
}

// UnmarshalBinary reads st from MarshalBinary's form, refusing anything
// else (wrapping ErrResume).
func (st *State) UnmarshalBinary(data []byte) error {
	if !bytes.HasPrefix(data, []byte(stateMagic)) {
		return fmt.Errorf("%w: not an EigenPro checkpoint", ErrResume)
	}
	r := bytes.NewReader(data[len(stateMagic):])
	var err error
	rd := func(v any) {
		if err == nil {
			err = binary.Read(r, binary.LittleEndian, v)
		}
	}
	var hdr [3]int64
	rd(&hdr)
	var s State
	rd(&s.Fingerprint)
	var pi [6]int64
	var pf [5]float64
	rd(&pi)
	rd(&pf)
	if err != nil {
		return fmt.Errorf("%w: truncated checkpoint: %v", ErrResume, err)
	}
	s.Epoch, s.N, s.Outputs = int(hdr[0]), int(hdr[1]), int(hdr[2])
	if s.Epoch < 1 || s.Epoch > 1<<20 || s.N < 1 || s.Outputs < 1 || int64(s.N)*int64(s.Outputs) > int64(r.Len())/8 {
		return fmt.Errorf("%w: a checkpoint of epoch %d, %d points and %d outputs in %d bytes", ErrResume, s.Epoch, s.N, s.Outputs, len(data))
	}
	s.Plan = Plan{N: int(pi[0]), Outputs: int(pi[1]), Subsample: int(pi[2]), Components: int(pi[3]), Batch: int(pi[4]), Bytes: pi[5],
		Beta: pf[0], Tau: pf[1], Top: pf[2], Step: pf[3], StepScale: pf[4]}
	s.Alpha = linalg.New[float64](s.N, s.Outputs)
	rd(s.Alpha.Data)
	var be int64
	rd(&be)
	rd(&s.BestScore)
	if err == nil && be > 0 && be <= int64(s.Epoch) {
		s.BestEpoch = int(be)
		s.Best = linalg.New[float64](s.N, s.Outputs)
		rd(s.Best.Data)
	} else if be != 0 {
		return fmt.Errorf("%w: best epoch %d of %d", ErrResume, be, s.Epoch)
	}
	s.History = make([]EpochStats, s.Epoch)
	for i := range s.History {
		var ep int64
		var v [4]float64
		rd(&ep)
		rd(&v)
		s.History[i] = EpochStats{Epoch: int(ep), Loss: v[0], HoldoutLoss: v[1], HoldoutAccuracy: v[2], Seconds: v[3]}
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: truncated checkpoint", ErrResume)
		}
		return fmt.Errorf("%w: %v", ErrResume, err)
	}
	if r.Len() != 0 {
		return fmt.Errorf("%w: %d bytes after the checkpoint's end", ErrResume, r.Len())
	}
	if err := s.Check(); err != nil {
		return err
	}
	*st = s
	return nil
}
