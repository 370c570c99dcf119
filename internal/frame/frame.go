// Package frame is the checksummed binary frame that every saved training
// state of ntksvm is written in (a BatchStream's, a kernel-machine
// stepper's, a Driver's checkpoint), with the little-endian encoder and
// decoder of the payloads. A frame is self-delimiting, so frames can
// follow one another in one stream. The package knows what each magic
// names, not what a payload holds.
//
// Layout (all integers little-endian):
//
//	offset 0   magic (8 bytes), one of the Magic constants
//	offset 8   version, uint32 (Version)
//	offset 12  payload length L, uint64
//	offset 20  payload
//	20 + L     CRC-32C (Castagnoli) of the payload, uint32
package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// ErrState is wrapped by every error about a saved training state that
// cannot be restored: truncated, corrupted, of another version, or written
// by a trainer of another size or configuration.
var ErrState = errors.New("svm: bad training state")

// Errorf returns an error wrapping ErrState with the formatted message.
func Errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrState, fmt.Sprintf(format, args...))
}

// The magics of the saved states, and the version every frame carries.
const (
	Version       = 1
	StreamMagic   = "NTKSVMBS" // a BatchStream's state
	StepperMagic  = "NTKSVMKS" // a kernel-machine stepper's state
	DriverMagic   = "NTKSVMCK" // a Driver's checkpoint
	ScaleMagic    = "NTKSVMSC" // a fit at scale's checkpoint (svm/classify)
	maxStateBytes = 1 << 40
)

// Castagnoli is the CRC-32C table of the frames' checksums.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

var names = map[string]string{
	StreamMagic:  "a BatchStream state",
	StepperMagic: "a kernel-machine stepper state",
	DriverMagic:  "a training checkpoint",
	ScaleMagic:   "a checkpoint of a fit at scale",
}

// Name returns what a frame with the given magic holds, for messages.
func Name(magic string) string { return names[magic] }

// Write writes payload in a frame with the given magic.
func Write(w io.Writer, magic string, payload []byte) error {
	var head [20]byte
	copy(head[:], magic)
	binary.LittleEndian.PutUint32(head[8:], Version)
	binary.LittleEndian.PutUint64(head[12:], uint64(len(payload)))
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc32.Checksum(payload, Castagnoli))
	for _, b := range [][]byte{head[:], payload, sum[:]} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Read reads one frame with the given magic from r, exactly its bytes,
// and returns its checked payload. Errors wrap ErrState and name what the
// frame should have held and what it holds instead.
func Read(r io.Reader, magic string) ([]byte, error) {
	what := names[magic]
	var head [20]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, Errorf("%s: truncated header (%v)", what, err)
	}
	if got := string(head[:8]); got != magic {
		if other, ok := names[got]; ok {
			return nil, Errorf("want %s, got %s", what, other)
		}
		return nil, Errorf("not %s (magic %q)", what, head[:8])
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != Version {
		return nil, Errorf("%s: version %d, this program reads version %d", what, v, Version)
	}
	plen := binary.LittleEndian.Uint64(head[12:])
	if plen > maxStateBytes {
		return nil, Errorf("%s: payload length %d is absurd", what, plen)
	}
	// Read what is there (never trusting plen for the allocation).
	rest, err := io.ReadAll(io.LimitReader(r, int64(plen)+4))
	if err != nil {
		return nil, Errorf("%s: %v", what, err)
	}
	if uint64(len(rest)) < plen+4 {
		return nil, Errorf("%s: truncated: %d of %d bytes", what, len(rest), plen+4)
	}
	payload := rest[:plen]
	if crc32.Checksum(payload, Castagnoli) != binary.LittleEndian.Uint32(rest[plen:]) {
		return nil, Errorf("%s: checksum mismatch (corrupted)", what)
	}
	return payload, nil
}

// Enc builds a payload: integers as uint64, floats as their IEEE-754
// bits, byte strings as their length and bytes.
type Enc struct{ B []byte }

// U64 appends v.
func (e *Enc) U64(v uint64) { e.B = binary.LittleEndian.AppendUint64(e.B, v) }

// Int appends v as a two's-complement uint64.
func (e *Enc) Int(v int) { e.U64(uint64(int64(v))) }

// F64 appends the bits of v.
func (e *Enc) F64(v float64) { e.U64(math.Float64bits(v)) }

// Bytes appends len(b) and b.
func (e *Enc) Bytes(b []byte) { e.U64(uint64(len(b))); e.B = append(e.B, b...) }

// F64s appends the bits of every element of v (not its length).
func (e *Enc) F64s(v []float64) {
	for _, x := range v {
		e.F64(x)
	}
}

// Dec reads a payload written by Enc; the first error (running out of
// bytes) sticks and later reads return zeros. What names the state in
// messages.
type Dec struct {
	B    []byte
	What string
	Err  error
}

// U64 reads a uint64.
func (d *Dec) U64() uint64 {
	if d.Err != nil {
		return 0
	}
	if len(d.B) < 8 {
		d.Err = Errorf("%s: payload ends early", d.What)
		return 0
	}
	v := binary.LittleEndian.Uint64(d.B)
	d.B = d.B[8:]
	return v
}

// Int reads an int written by Enc.Int.
func (d *Dec) Int() int { return int(int64(d.U64())) }

// F64 reads a float64.
func (d *Dec) F64() float64 { return math.Float64frombits(d.U64()) }

// Bytes reads a byte string written by Enc.Bytes (aliasing the payload).
func (d *Dec) Bytes() []byte { return d.Take(d.U64(), 1) }

// F64s reads n floats.
func (d *Dec) F64s(n int) []float64 {
	b := d.Take(uint64(n), 8)
	if b == nil {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// Take returns the next n·size bytes.
func (d *Dec) Take(n, size uint64) []byte {
	if d.Err != nil {
		return nil
	}
	if n > uint64(len(d.B))/size {
		d.Err = Errorf("%s: payload ends early", d.What)
		return nil
	}
	b := d.B[:n*size]
	d.B = d.B[n*size:]
	return b
}

// Done returns the first error, or one if bytes are left over.
func (d *Dec) Done() error {
	if d.Err == nil && len(d.B) > 0 {
		d.Err = Errorf("%s: %d unexpected bytes at the end of the payload", d.What, len(d.B))
	}
	return d.Err
}
