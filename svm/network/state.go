package network

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/ntksvm/ntksvm/internal/frame"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/train"
)

// The Stepper state format, all little-endian:
//
//	magic    8 bytes "NTKSVMNS"
//	version  uint32 (networkStateVersion)
//	header   networkStateFields uint64 words (see header)
//	weights  W[0], B[0], W[1], B[1], … W[L], B[L] row-major in T (no B without biases)
//	W_0      W_l,0 and b_l,0 in the same order, for the layers the penalty
//	         pulls toward them (all for RegTheory, the last for RegLastLayer)
//	f₀       n then nTest float64 (without KeepF0 only)
//	checksum uint32 CRC-32C of everything before it
const (
	networkStateMagic   = "NTKSVMNS"
	networkStateVersion = 1
)

// header returns the words that identify the stepper's configuration, its
// data and its progress, with their names for mismatch errors.
func (s *Stepper[T]) header() ([]uint64, []string) {
	var e T
	net := s.net
	hasBias := uint64(0)
	if net.B != nil {
		hasBias = 1
	}
	keep := uint64(0)
	if s.cfg.KeepF0 {
		keep = 1
	}
	words := []uint64{
		uint64(sizeOf(e)), uint64(net.D), uint64(net.Width), uint64(net.Depth), hasBias,
		math.Float64bits(net.WeightStd), math.Float64bits(net.BiasStd),
		uint64(s.x.Rows), uint64(s.test.Rows), uint64(s.hash),
		uint64(s.cfg.Loss.Code()), math.Float64bits(s.cfg.Loss.Epsilon), math.Float64bits(s.cfg.Lambda),
		uint64(s.cfg.Objective), uint64(s.cfg.Reg), keep,
		uint64(s.steps),
	}
	names := []string{
		"element size in bytes", "input dimension", "width", "depth", "biases",
		"σ_w", "σ_b", "training points", "evaluation points", "data fingerprint",
		"loss", "ε", "λ", "objective", "regularisation", "KeepF0", "steps",
	}
	return words, names
}

// fingerprint is the CRC-32C of the bits of x, y and the evaluation points.
func (s *Stepper[T]) fingerprint() uint32 {
	h := crc32.New(frame.Castagnoli)
	var buf []byte
	for _, m := range []linalg.Matrix[T]{s.x, s.test} {
		for i := range m.Rows {
			buf = appendT(buf[:0], m.Row(i))
			h.Write(buf)
		}
	}
	buf = buf[:0]
	for _, v := range s.y {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	h.Write(buf)
	return h.Sum32()
}

// appendT appends the little-endian bits of x.
func appendT[T linalg.Float](b []byte, x []T) []byte {
	switch x := any(x).(type) {
	case []float32:
		for _, v := range x {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	case []float64:
		for _, v := range x {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// arrays returns the state's arrays in file order.
func (s *Stepper[T]) arrays() (ts [][]T, fs [][]float64) {
	net := s.net
	for l := range net.W {
		ts = append(ts, net.W[l].Data)
		if net.B != nil {
			ts = append(ts, net.B[l])
		}
	}
	for l := range s.w0 {
		if s.w0[l] != nil {
			ts = append(ts, s.w0[l])
		}
		if s.b0 != nil && s.b0[l] != nil {
			ts = append(ts, s.b0[l])
		}
	}
	if !s.cfg.KeepF0 {
		fs = append(fs, s.f0, s.f0Test)
	}
	return ts, fs
}

// SaveState implements Stepper: it writes the weights W_t, the initial
// weights the penalty needs (RegTheory, RegLastLayer), f₀ on the training and evaluation points and the step count
// in a versioned little-endian binary format (magic "NTKSVMNS", a header
// of the configuration, shapes and a fingerprint of the data, the arrays,
// and a CRC-32C trailer). A stepper built with the same configuration and
// data continues bit-identically after LoadState. It refuses to save a
// stepper whose weights a failed step left unusable.
func (s *Stepper[T]) SaveState(w io.Writer) error {
	if s.failed != nil {
		return s.failed
	}
	h := crc32.New(frame.Castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<16)
	buf := make([]byte, 0, 1<<16)
	buf = append(buf, networkStateMagic...)
	buf = binary.LittleEndian.AppendUint32(buf, networkStateVersion)
	words, _ := s.header()
	for _, v := range words {
		buf = binary.LittleEndian.AppendUint64(buf, v)
	}
	bw.Write(buf)
	ts, fs := s.arrays()
	const chunk = 4096
	for _, a := range ts {
		for i := 0; i < len(a); i += chunk {
			buf = appendT(buf[:0], a[i:min(i+chunk, len(a))])
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("svm: saving network state: %w", err) // stop at the first failed write
			}
		}
	}
	for _, a := range fs {
		for i := 0; i < len(a); i += chunk {
			buf = appendT(buf[:0], a[i:min(i+chunk, len(a))])
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("svm: saving network state: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("svm: saving network state: %w", err)
	}
	if _, err := w.Write(binary.LittleEndian.AppendUint32(nil, h.Sum32())); err != nil {
		return fmt.Errorf("svm: saving network state: %w", err)
	}
	return nil
}

// LoadState implements Stepper: it restores a state written by SaveState.
// It returns an error wrapping train.ErrState, and changes nothing, if the
// magic, version, element type, shapes, configuration or data fingerprint
// differ from this stepper's (naming the first mismatch). A state that
// then turns out truncated, or fails its checksum, has been partly read
// into the weights: the error says so and Step refuses to run until a good
// state is loaded.
func (s *Stepper[T]) LoadState(r io.Reader) error {
	h := crc32.New(frame.Castagnoli)
	br := bufio.NewReaderSize(r, 1<<16)
	tr := io.TeeReader(br, h)
	words, names := s.header()
	head := make([]byte, 8+4+8*len(words))
	if _, err := io.ReadFull(tr, head); err != nil {
		return fmt.Errorf("%w: reading the header: %v", train.ErrState, err)
	}
	if string(head[:8]) != networkStateMagic {
		return fmt.Errorf("%w: not a network stepper state (magic %q)", train.ErrState, head[:8])
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != networkStateVersion {
		return fmt.Errorf("%w: version %d, want %d", train.ErrState, v, networkStateVersion)
	}
	const stepsWord = 16 // index of the step count in header()
	var steps uint64
	for k, want := range words {
		got := binary.LittleEndian.Uint64(head[12+8*k:])
		if k == stepsWord {
			steps = got
			continue
		}
		if got != want {
			return fmt.Errorf("%w: %s is %s in the state, %s in this stepper", train.ErrState, names[k], wordString(k, got), wordString(k, want))
		}
	}
	if steps > 1<<62 {
		return fmt.Errorf("%w: step count %d", train.ErrState, steps)
	}
	ts, fs := s.arrays()
	if err := s.readArrays(tr, ts, fs); err != nil {
		return s.partial(err)
	}
	var sum [4]byte
	want := h.Sum32()
	if _, err := io.ReadFull(br, sum[:]); err != nil {
		return s.partial(fmt.Errorf("reading the checksum: %v", err))
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != want {
		return s.partial(fmt.Errorf("checksum %08x, computed %08x", got, want))
	}
	s.steps = int(steps)
	s.failed = nil
	for l := range s.wmax {
		s.wmax[l] = math.Inf(1) // unknown: the next step reads the weights
	}
	return nil
}

// wordString formats header word k for an error message.
func wordString(k int, v uint64) string {
	switch k {
	case 5, 6, 11, 12: // σ_w, σ_b, ε, λ
		return fmt.Sprint(math.Float64frombits(v))
	case 9:
		return fmt.Sprintf("%08x", v)
	case 10:
		if l, ok := svm.LossFromCode(uint8(v)); ok {
			return l.Name()
		}
	case 13:
		return svm.Objective(v).String()
	case 14:
		return Regularization(v).String()
	}
	return fmt.Sprint(v)
}

// partial marks the stepper unusable after a load that failed midway.
func (s *Stepper[T]) partial(err error) error {
	s.failed = fmt.Errorf("%w: %v; the weights were partly overwritten: load a good state before stepping", train.ErrState, err)
	return s.failed
}

// readArrays reads the arrays of the state in place.
func (s *Stepper[T]) readArrays(r io.Reader, ts [][]T, fs [][]float64) error {
	buf := make([]byte, 1<<16)
	var e T
	sz := sizeOf(e)
	for _, a := range ts {
		for i := 0; i < len(a); {
			k := min(len(a)-i, len(buf)/sz)
			b := buf[:k*sz]
			if _, err := io.ReadFull(r, b); err != nil {
				return fmt.Errorf("reading the weights: %v", err)
			}
			decodeT(a[i:i+k], b)
			i += k
		}
	}
	for _, a := range fs {
		for i := 0; i < len(a); {
			k := min(len(a)-i, len(buf)/8)
			b := buf[:k*8]
			if _, err := io.ReadFull(r, b); err != nil {
				return fmt.Errorf("reading f₀: %v", err)
			}
			decodeT(a[i:i+k], b)
			i += k
		}
	}
	return nil
}

// decodeT sets dst from its little-endian bits in b.
func decodeT[T linalg.Float](dst []T, b []byte) {
	switch d := any(dst).(type) {
	case []float32:
		for i := range d {
			d[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case []float64:
		for i := range d {
			d[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
}

var _ train.ContextStepper = (*Stepper[float32])(nil)
