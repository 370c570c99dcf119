package svm

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// Model file layout (all integers little-endian):
//
//	offset 0   magic "NTKSVMMD" (8 bytes)
//	offset 8   version, uint32 (ModelVersion; ReadModel reads 1 to 3)
//	offset 12  payload length L, uint64
//	offset 20  payload: header length H (uint32), H bytes of JSON (the
//	           Model's fields), n float64 α, then n·d float64 training
//	           inputs if embedded (Train.Embedded)
//	20 + L     SHA-256 of the payload (32 bytes), then end of file
const (
	modelMagic = "NTKSVMMD"
	// ModelVersion is the version WriteModel writes. Version 2 replaced
	// version 1's string "params" map with typed fields (TrainRef.First,
	// TrainRef.Standardize, Model.Fit); version 3 added multi-class
	// machines (Classes, Scheme, Outputs, Scaling); version 4 added
	// regressors on a user's data (Task, Target); version 5 added the
	// class weights (ClassWeights, ClassWeight) and the probability model
	// (Probability). ReadModel reads all.
	// The kernel is ntk.Spec's JSON form in every version (a depth, σ_w,
	// σ_b or number of fixed layers left out is 0, a type left out
	// float64; "fixed" is written only when it is not 0).
	ModelVersion = 5
	maxHeader    = 1 << 20
)

// ErrModel is wrapped by every error about a malformed model file.
var ErrModel = errors.New("svm: bad model file")

// TrainRef identifies the training inputs: where they came from and the
// SHA-256 of their values (see InputsSHA256), so a model is never applied
// with the wrong training set.
type TrainRef struct {
	Source   string `json:"source"` // e.g. "mnist01" or the path of X.npy
	N        int    `json:"n"`
	D        int    `json:"d"`
	SHA256   string `json:"sha256"`
	Embedded bool   `json:"embedded"` // the inputs follow α in the file
	// How the inputs were derived from Source, to reload them: only the
	// first First points (0: all), and MNIST pixels standardised as
	// (p/255 − 0.1307)/0.3081 instead of p/255.
	First       int  `json:"first,omitempty"`
	Standardize bool `json:"standardize,omitempty"`
}

// Model is a trained kernel machine with what is needed to use it again.
type Model struct {
	Machine   string   `json:"machine"` // svm, svm2, svr, krr, logistic
	Loss      string   `json:"loss"`
	Epsilon   float64  `json:"epsilon,omitempty"`
	Lambda    float64  `json:"lambda"`
	Objective string   `json:"objective"`
	Solver    string   `json:"solver"`
	HasBias   bool     `json:"has_bias"`
	Bias      float64  `json:"bias"`
	Kernel    ntk.Spec `json:"kernel"` // the kernel the machine was fitted on
	Train     TrainRef `json:"train"`
	Fit       FitInfo  `json:"fit"` // the solver's settings and report
	// Multi-class machines (version 3): the class names in the order of
	// their indices, how the binary machines combine ("ovo", "ovr"), and
	// one Output per binary machine. With Outputs, Alpha holds Train.N ×
	// len(Outputs) weights, row i the weights of training point i in each
	// machine, and Bias is unused.
	Classes []string `json:"classes,omitempty"`
	Scheme  string   `json:"scheme,omitempty"`
	Outputs []Output `json:"outputs,omitempty"`
	// Task is "regression" for a regressor fitted on a user's data
	// (version 4: package svm/regress), whose predictions are
	// Target.Mean + Target.Scale·g(x); empty for the others (a model with
	// Classes classifies; one without is the single machine of the
	// paper's experiments, whose outputs are g(x) itself).
	Task   string  `json:"task,omitempty"`
	Target *Target `json:"target,omitempty"`
	// Scaling standardises inputs before the kernel, x ↦ (x − Mean)/Scale,
	// with the training data's statistics, then with UnitNorm scales each
	// row to the norm √d (nil: inputs are used as given).
	Scaling *Scaling `json:"scaling,omitempty"`
	// ClassWeights (version 5) are the weights of C of the classes, in the
	// order of Classes, the binary machines were fitted with (libsvm's
	// -wi: the dual variables of class c's examples are bounded by C·w_c);
	// ClassWeight names how they were chosen ("balanced", or the weights
	// given by name). nil: every weight 1.
	ClassWeights []float64 `json:"class_weights,omitempty"`
	ClassWeight  string    `json:"class_weight,omitempty"`
	// Probability (version 5), when not nil, turns the outputs' decision
	// values into class probabilities (nil: the model has none).
	Probability *Probability `json:"probability,omitempty"`
	// Alpha are the kernel-expansion weights (Train.N of them, or
	// Train.N × len(Outputs)).
	Alpha []float64 `json:"-"`
	// X holds the training inputs when Train.Embedded (Train.N×Train.D).
	X linalg.Matrix[float64] `json:"-"`
}

// Output is one binary machine of a multi-class model: class Pos against
// class Neg (−1: against every other class), with its bias.
type Output struct {
	Pos  int     `json:"pos"`
	Neg  int     `json:"neg"`
	Bias float64 `json:"bias"`
}

// Probability is a probability model over a model's outputs, libsvm's:
// Platt's sigmoid P = 1/(1 + exp(A·f + B)) of each output's decision
// value f (A[k], B[k] for Outputs[k], or one pair for a model without
// Outputs), fitted on cross-validated decision values, then combined over
// the classes as Coupling says.
type Probability struct {
	A []float64 `json:"a"`
	B []float64 `json:"b"`
	// Coupling is "pairwise" (one-vs-one: the pairwise probabilities
	// coupled by Wu, Lin and Weng's second method, libsvm's), "normalize"
	// (one-vs-rest: each class's sigmoid, divided by their sum) or
	// "binary" (one machine: P(+1) and 1 − P(+1)).
	Coupling string `json:"coupling"`
	// Folds is the number of folds of the cross-validation whose decision
	// values the sigmoids were fitted on.
	Folds int `json:"folds"`
}

// Scaling is a per-feature standardisation stored with a model, and
// whether each row is then scaled to the Euclidean norm √d (UnitNorm; with
// it, Mean and Scale may be empty: no standardisation).
type Scaling struct {
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	UnitNorm bool      `json:"unit_norm,omitempty"`
}

// TaskRegression is Model.Task of a regressor.
const TaskRegression = "regression"

// Target is the affine map from a regressor's machine output g(x) to its
// prediction, Mean + Scale·g(x): the machine is fitted on the targets
// standardised with the training data's mean and standard deviation.
type Target struct {
	Mean  float64 `json:"mean"`
	Scale float64 `json:"scale"`
}

// weights returns the number of weights the header implies.
func (m *Model) weights() int {
	return m.Train.N * max(1, len(m.Outputs))
}

// InputsSHA256 returns the hex SHA-256 of the rows of x as little-endian
// float64 values, row after row.
func InputsSHA256(x linalg.Matrix[float64]) string {
	h := sha256.New()
	buf := make([]byte, 0, 8*min(x.Cols, 8192)) // a bounded buffer: a LIBSVM row may have 10⁸ columns
	for i := range x.Rows {
		for _, v := range x.Row(i) {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			if len(buf) == cap(buf) {
				h.Write(buf)
				buf = buf[:0]
			}
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// KernelMachine returns the kernel machine of the model (sharing Alpha).
func (m *Model) KernelMachine() *KernelMachine {
	return &KernelMachine{Alpha: m.Alpha, Bias: m.Bias}
}

func (m *Model) check() error {
	switch {
	case m.Kernel.Validate() != nil:
		return fmt.Errorf("%w: kernel: %v", ErrModel, m.Kernel.Validate())
	case m.Train.N < 0 || m.Train.D < 0:
		return fmt.Errorf("%w: negative dimensions %d×%d", ErrModel, m.Train.N, m.Train.D)
	case m.weights() != len(m.Alpha):
		return fmt.Errorf("%w: %d weights for %d training points and %d outputs", ErrModel, len(m.Alpha), m.Train.N, max(1, len(m.Outputs)))
	case m.Train.Embedded && (m.X.Rows != m.Train.N || m.X.Cols != m.Train.D):
		return fmt.Errorf("%w: embedded inputs are %d×%d, header says %d×%d", ErrModel, m.X.Rows, m.X.Cols, m.Train.N, m.Train.D)
	case math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0):
		return fmt.Errorf("%w: bias %v", ErrModel, m.Bias)
	}
	for i, a := range m.Alpha {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("%w: α[%d] = %v", ErrModel, i, a)
		}
	}
	if err := m.checkTask(); err != nil {
		return err
	}
	return m.checkClasses()
}

// checkTask checks the regressor's fields.
func (m *Model) checkTask() error {
	switch m.Task {
	case "":
		if m.Target != nil {
			return fmt.Errorf("%w: a target scaling without task %q", ErrModel, TaskRegression)
		}
		return nil
	case TaskRegression:
	default:
		return fmt.Errorf("%w: task %q (want %q or none)", ErrModel, m.Task, TaskRegression)
	}
	switch t := m.Target; {
	case len(m.Classes) > 0 || len(m.Outputs) > 0:
		return fmt.Errorf("%w: a regressor with classes", ErrModel)
	case t == nil:
		return fmt.Errorf("%w: a regressor without its target scaling", ErrModel)
	case math.IsNaN(t.Mean) || math.IsInf(t.Mean, 0) || !(t.Scale > 0) || math.IsInf(t.Scale, 0):
		return fmt.Errorf("%w: target scaling mean %v, scale %v", ErrModel, t.Mean, t.Scale)
	case !m.Train.Embedded:
		return fmt.Errorf("%w: the regressor does not embed its support vectors", ErrModel)
	}
	return nil
}

// checkClasses checks the multi-class fields.
func (m *Model) checkClasses() error {
	nc := len(m.Classes)
	if len(m.Outputs) > 0 && nc < 2 {
		return fmt.Errorf("%w: %d outputs but %d classes", ErrModel, len(m.Outputs), nc)
	}
	switch m.Scheme {
	case "", "ovo", "ovr":
	default:
		return fmt.Errorf("%w: multi-class scheme %q", ErrModel, m.Scheme)
	}
	for k, o := range m.Outputs {
		if o.Pos < 0 || o.Pos >= nc || o.Neg < -1 || o.Neg >= nc || o.Neg == o.Pos ||
			math.IsNaN(o.Bias) || math.IsInf(o.Bias, 0) {
			return fmt.Errorf("%w: output %d is %+v for %d classes", ErrModel, k, o, nc)
		}
	}
	if m.ClassWeights != nil {
		if len(m.ClassWeights) != nc {
			return fmt.Errorf("%w: %d class weights for %d classes", ErrModel, len(m.ClassWeights), nc)
		}
		for c, w := range m.ClassWeights {
			if !(w > 0) || math.IsInf(w, 0) {
				return fmt.Errorf("%w: class weight %d is %v", ErrModel, c, w)
			}
		}
	}
	if p := m.Probability; p != nil {
		want := max(1, len(m.Outputs))
		if len(p.A) != want || len(p.B) != want {
			return fmt.Errorf("%w: probability model has %d and %d sigmoid parameters for %d outputs", ErrModel, len(p.A), len(p.B), want)
		}
		for k := range p.A {
			if math.IsNaN(p.A[k]) || math.IsInf(p.A[k], 0) || math.IsNaN(p.B[k]) || math.IsInf(p.B[k], 0) {
				return fmt.Errorf("%w: sigmoid %d is (%v, %v)", ErrModel, k, p.A[k], p.B[k])
			}
		}
		wantC := "binary"
		switch {
		case len(m.Outputs) > 0 && m.Scheme == "ovr":
			wantC = "normalize"
		case len(m.Outputs) > 0:
			wantC = "pairwise"
		}
		if p.Coupling != wantC {
			return fmt.Errorf("%w: probability coupling %q for a %q model, want %q", ErrModel, p.Coupling, m.Scheme, wantC)
		}
	}
	if s := m.Scaling; s != nil && (len(s.Mean) > 0 || len(s.Scale) > 0 || !s.UnitNorm) {
		if len(s.Mean) != m.Train.D || len(s.Scale) != m.Train.D {
			return fmt.Errorf("%w: scaling has %d means and %d scales for %d features", ErrModel, len(s.Mean), len(s.Scale), m.Train.D)
		}
		for j := range s.Mean {
			if math.IsNaN(s.Mean[j]) || math.IsInf(s.Mean[j], 0) || !(s.Scale[j] > 0) || math.IsInf(s.Scale[j], 0) {
				return fmt.Errorf("%w: scaling of feature %d: mean %v, scale %v", ErrModel, j, s.Mean[j], s.Scale[j])
			}
		}
	}
	return nil
}

// WriteModel writes m to w in the format above. The caller makes the file
// write atomic (temporary file and rename).
func WriteModel(w io.Writer, m *Model) error {
	if err := m.check(); err != nil {
		return err
	}
	hdr, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var p bytes.Buffer
	p.Grow(4 + len(hdr) + 8*len(m.Alpha))
	binary.Write(&p, binary.LittleEndian, uint32(len(hdr)))
	p.Write(hdr)
	putFloats(&p, m.Alpha)
	if m.Train.Embedded {
		for i := range m.X.Rows {
			putFloats(&p, m.X.Row(i))
		}
	}
	var head [20]byte
	copy(head[:], modelMagic)
	binary.LittleEndian.PutUint32(head[8:], ModelVersion)
	binary.LittleEndian.PutUint64(head[12:], uint64(p.Len()))
	sum := sha256.Sum256(p.Bytes())
	for _, b := range [][]byte{head[:], p.Bytes(), sum[:]} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func putFloats(p *bytes.Buffer, v []float64) {
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		p.Write(b[:])
	}
}

// ReadModel reads a model written by WriteModel. A file that is truncated,
// has trailing bytes, fails its checksum, has another version or an
// inconsistent header is rejected with an error wrapping ErrModel.
func ReadModel(r io.Reader) (*Model, error) {
	var head [20]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated header (%v)", ErrModel, err)
	}
	if string(head[:8]) != modelMagic {
		return nil, fmt.Errorf("%w: not an ntksvm model (magic %q)", ErrModel, head[:8])
	}
	version := binary.LittleEndian.Uint32(head[8:])
	if version < 1 || version > ModelVersion {
		return nil, fmt.Errorf("%w: version %d, this program reads versions 1 to %d", ErrModel, version, ModelVersion)
	}
	plen := binary.LittleEndian.Uint64(head[12:])
	if plen > 1<<40 {
		return nil, fmt.Errorf("%w: payload length %d is absurd", ErrModel, plen)
	}
	// Read what is there (never trusting plen for the allocation), then
	// compare lengths.
	rest, err := io.ReadAll(io.LimitReader(r, int64(plen)+32+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	if uint64(len(rest)) < plen+32 {
		return nil, fmt.Errorf("%w: truncated: %d of %d bytes", ErrModel, len(rest), plen+32)
	}
	if uint64(len(rest)) > plen+32 {
		return nil, fmt.Errorf("%w: trailing bytes after the checksum", ErrModel)
	}
	payload, sum := rest[:plen], rest[plen:]
	if got := sha256.Sum256(payload); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%w: checksum mismatch (corrupted file)", ErrModel)
	}
	if len(payload) < 4 {
		return nil, fmt.Errorf("%w: payload too short", ErrModel)
	}
	hlen := uint64(binary.LittleEndian.Uint32(payload))
	if hlen > maxHeader || hlen > uint64(len(payload)-4) {
		return nil, fmt.Errorf("%w: header length %d", ErrModel, hlen)
	}
	m, err := decodeHeader(payload[4:4+hlen], version)
	if err != nil {
		return nil, err
	}
	body := payload[4+hlen:]
	n, d := m.Train.N, m.Train.D
	if n < 0 || d < 0 || n > len(body)/8 || len(m.Outputs) > len(body)/8 {
		return nil, fmt.Errorf("%w: %d weights do not fit in %d bytes", ErrModel, n, len(body))
	}
	nw := m.weights()
	if nw > len(body)/8 {
		return nil, fmt.Errorf("%w: %d weights do not fit in %d bytes", ErrModel, nw, len(body))
	}
	want := uint64(nw) * 8
	if m.Train.Embedded {
		if d > 0 && uint64(n) > uint64(len(body))/8/uint64(d) {
			return nil, fmt.Errorf("%w: %d×%d inputs do not fit in %d bytes", ErrModel, n, d, len(body))
		}
		want += uint64(n) * uint64(d) * 8
	}
	if uint64(len(body)) != want {
		return nil, fmt.Errorf("%w: body has %d bytes, header implies %d", ErrModel, len(body), want)
	}
	m.Alpha = getFloats(body[:8*nw])
	if m.Train.Embedded {
		x := getFloats(body[8*nw:])
		m.X, _ = linalg.FromSlice(n, d, x)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

func getFloats(b []byte) []float64 {
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// decodeHeader decodes the JSON header of a model file of the version.
func decodeHeader(b []byte, version uint32) (*Model, error) {
	var v1 struct {
		Model
		Params map[string]string `json:"params,omitempty"`
	}
	dst := any(&v1.Model)
	if version == 1 {
		dst = &v1
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrModel, err)
	}
	if version == 1 {
		if err := fromParamsV1(&v1.Model, v1.Params); err != nil {
			return nil, err
		}
	}
	if version < 4 && (v1.Task != "" || v1.Target != nil) {
		return nil, fmt.Errorf("%w: a version %d header with a task (regressors are version 4)", ErrModel, version)
	}
	if version < 5 && (v1.ClassWeights != nil || v1.ClassWeight != "" || v1.Probability != nil) {
		return nil, fmt.Errorf("%w: a version %d header with class weights or probabilities (version 5)", ErrModel, version)
	}
	return &v1.Model, nil
}

// fromParamsV1 moves version 1's string parameters into the typed fields.
func fromParamsV1(m *Model, params map[string]string) error {
	for key, s := range params {
		var err error
		f := &m.Fit
		switch key {
		case "first":
			m.Train.First, err = strconv.Atoi(s)
		case "standardize":
			m.Train.Standardize, err = strconv.ParseBool(s)
		case "ridge_c":
			f.RidgeShift, err = strconv.ParseFloat(s, 64)
		case "C":
			f.C, err = strconv.ParseFloat(s, 64)
		case "primal":
			f.Primal, err = strconv.ParseFloat(s, 64)
		case "dual":
			f.Dual, err = strconv.ParseFloat(s, 64)
		case "rel_gap":
			f.RelGap, err = strconv.ParseFloat(s, 64)
		case "objective", "objective_value":
			f.Objective, err = strconv.ParseFloat(s, 64)
		case "solve_seconds":
			f.Seconds, err = strconv.ParseFloat(s, 64)
		case "iterations":
			f.Iterations, err = strconv.Atoi(s)
		case "support_vectors":
			f.SupportVectors, err = strconv.Atoi(s)
		case "batch":
			f.Batch, err = strconv.Atoi(s)
		case "steps":
			f.Steps, err = strconv.Atoi(s)
		case "lr":
			f.LR, err = strconv.ParseFloat(s, 64)
		case "seed":
			f.Seed, err = strconv.ParseUint(s, 10, 64)
		case "pegasos":
			f.Pegasos, err = strconv.ParseBool(s)
		case "decay":
			f.Decay = s
		default:
			err = errors.New("unknown parameter")
		}
		if err != nil {
			return fmt.Errorf("%w: version 1 parameter %q = %q: %v", ErrModel, key, s, err)
		}
	}
	if m.Train.First < 0 {
		return fmt.Errorf("%w: version 1 parameter first = %d", ErrModel, m.Train.First)
	}
	return nil
}
