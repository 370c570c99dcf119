package svm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// ErrState is wrapped by every error about a saved training state that
// cannot be restored: a BatchStream's, a KernelStepper's, a
// NetworkStepper's or a Driver's checkpoint that is truncated, corrupted, of another version, or written
// by a trainer of another size or configuration.
var ErrState = errors.New("svm: bad training state")

func stateErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrState, fmt.Sprintf(format, args...))
}

// Saved states share one frame (all integers little-endian):
//
//	offset 0   magic (8 bytes): "NTKSVMBS" BatchStream, "NTKSVMKS"
//	           KernelStepper, "NTKSVMCK" Driver checkpoint
//	offset 8   version, uint32 (stateVersion)
//	offset 12  payload length L, uint64
//	offset 20  payload
//	20 + L     CRC-32C (Castagnoli) of the payload, uint32
//
// A frame is self-delimiting, so frames can follow one another in a stream.
const (
	stateVersion  = 1
	streamMagic   = "NTKSVMBS"
	stepperMagic  = "NTKSVMKS"
	driverMagic   = "NTKSVMCK"
	maxStateBytes = 1 << 40
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var magicNames = map[string]string{
	streamMagic:  "a BatchStream state",
	stepperMagic: "a kernel-machine stepper state",
	driverMagic:  "a training checkpoint",
}

// writeFrame writes payload in a frame with the given magic.
func writeFrame(w io.Writer, magic string, payload []byte) error {
	var head [20]byte
	copy(head[:], magic)
	binary.LittleEndian.PutUint32(head[8:], stateVersion)
	binary.LittleEndian.PutUint64(head[12:], uint64(len(payload)))
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc32.Checksum(payload, castagnoli))
	for _, b := range [][]byte{head[:], payload, sum[:]} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// readFrame reads one frame with the given magic from r, exactly its bytes,
// and returns its checked payload.
func readFrame(r io.Reader, magic string) ([]byte, error) {
	what := magicNames[magic]
	var head [20]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, stateErr("%s: truncated header (%v)", what, err)
	}
	if got := string(head[:8]); got != magic {
		if other, ok := magicNames[got]; ok {
			return nil, stateErr("want %s, got %s", what, other)
		}
		return nil, stateErr("not %s (magic %q)", what, head[:8])
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != stateVersion {
		return nil, stateErr("%s: version %d, this program reads version %d", what, v, stateVersion)
	}
	plen := binary.LittleEndian.Uint64(head[12:])
	if plen > maxStateBytes {
		return nil, stateErr("%s: payload length %d is absurd", what, plen)
	}
	// Read what is there (never trusting plen for the allocation).
	rest, err := io.ReadAll(io.LimitReader(r, int64(plen)+4))
	if err != nil {
		return nil, stateErr("%s: %v", what, err)
	}
	if uint64(len(rest)) < plen+4 {
		return nil, stateErr("%s: truncated: %d of %d bytes", what, len(rest), plen+4)
	}
	payload := rest[:plen]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(rest[plen:]) {
		return nil, stateErr("%s: checksum mismatch (corrupted)", what)
	}
	return payload, nil
}

// enc builds a payload.
type enc struct{ b []byte }

func (e *enc) u64(v uint64)   { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) int(v int)      { e.u64(uint64(int64(v))) }
func (e *enc) f64(v float64)  { e.u64(math.Float64bits(v)) }
func (e *enc) bytes(b []byte) { e.u64(uint64(len(b))); e.b = append(e.b, b...) }
func (e *enc) f64s(v []float64) {
	for _, x := range v {
		e.f64(x)
	}
}

// dec reads a payload; the first error (running out of bytes) sticks and
// later reads return zeros.
type dec struct {
	b    []byte
	what string
	err  error
}

func (d *dec) u64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = stateErr("%s: payload ends early", d.what)
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *dec) int() int      { return int(int64(d.u64())) }
func (d *dec) f64() float64  { return math.Float64frombits(d.u64()) }
func (d *dec) bytes() []byte { return d.take(d.u64(), 1) }

// f64s reads n floats.
func (d *dec) f64s(n int) []float64 {
	b := d.take(uint64(n), 8)
	if b == nil {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// take returns the next n·size bytes.
func (d *dec) take(n, size uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b))/size {
		d.err = stateErr("%s: payload ends early", d.what)
		return nil
	}
	b := d.b[:n*size]
	d.b = d.b[n*size:]
	return b
}

// done returns the first error, or one if bytes are left over.
func (d *dec) done() error {
	if d.err == nil && len(d.b) > 0 {
		d.err = stateErr("%s: %d unexpected bytes at the end of the payload", d.what, len(d.b))
	}
	return d.err
}
