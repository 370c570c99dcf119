package equiv

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
	"slices"
	"sort"

	"github.com/ntksvm/ntksvm/linalg"
)

// StateFormat is the version of the layout of the run state files
// (runN.ckpt, runN.done): a fingerprint frame, then the state. A change
// that makes old state unreadable, or read differently, increments it.
const StateFormat = 2

// fingerprintMagic opens every run state file.
const fingerprintMagic = "NTKSVM-EQUIV-RUN\n"

// maxFingerprint bounds the fingerprint frame a reader accepts, so that a
// corrupt length cannot ask for gigabytes.
const maxFingerprint = 1 << 20

// ErrFingerprint is wrapped by the error of a state file that belongs to
// another experiment (another configuration, other data, another format)
// or has no fingerprint.
var ErrFingerprint = errors.New("equiv: the saved run state is not of this experiment")

// Fingerprint is what determines a run, saved at the head of its state
// files and compared with the resuming run's before any state is loaded.
type Fingerprint struct {
	Format int    `json:"format"` // StateFormat
	Run    int    `json:"run"`    // 1-based index of the run in the experiment
	Config Config `json:"config"` // the whole configuration, seed included
	// Data is the SHA-256 (hex) of the data as used: the training and test
	// inputs and labels after NTrain and NTest, as float64 bits.
	Data string `json:"data_sha256"`
	// Init is the SHA-256 (hex) of the given initial weights (Config.Init),
	// so that a run is never continued from other weights under the same
	// file name; "" when the weights are drawn from the seed.
	Init string `json:"init_sha256,omitempty"`
}

// dataSHA256 returns the hex SHA-256 of the data d uses: the shapes, then
// every input and label as little-endian float64 bits.
func dataSHA256(d *usedData) string {
	h := sha256.New()
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	buf := make([]byte, 0, 1<<16)
	floats := func(xs []float64) {
		for _, v := range xs {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			if len(buf) == cap(buf) {
				h.Write(buf)
				buf = buf[:0]
			}
		}
		h.Write(buf)
		buf = buf[:0]
	}
	for _, m := range []linalg.Matrix[float64]{d.x, d.xt} {
		put(uint64(m.Rows))
		put(uint64(m.Cols))
		for i := range m.Rows {
			floats(m.Row(i))
		}
	}
	for _, y := range [][]float64{d.y, d.yt} {
		put(uint64(len(y)))
		floats(y)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeFingerprint writes the magic and fp as a length-prefixed JSON frame.
func writeFingerprint(w io.Writer, fp Fingerprint) error {
	b, err := json.Marshal(fp)
	if err != nil {
		return err
	}
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(b)))
	for _, p := range [][]byte{[]byte(fingerprintMagic), n[:], b} {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// readFingerprint reads the frame writeFingerprint wrote.
func readFingerprint(r io.Reader) (Fingerprint, error) {
	var fp Fingerprint
	magic := make([]byte, len(fingerprintMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != fingerprintMagic {
		return fp, fmt.Errorf("%w: it has no fingerprint (written by an older version of ntksvm, or not a run state file); start the experiment afresh without --resume", ErrFingerprint)
	}
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return fp, fmt.Errorf("%w: truncated fingerprint: %v", ErrFingerprint, err)
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > maxFingerprint {
		return fp, fmt.Errorf("%w: fingerprint of %d bytes (at most %d): the file is corrupt", ErrFingerprint, size, maxFingerprint)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return fp, fmt.Errorf("%w: truncated fingerprint: %v", ErrFingerprint, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fp); err != nil {
		return fp, fmt.Errorf("%w: corrupt fingerprint: %v", ErrFingerprint, err)
	}
	return fp, nil
}

// checkFingerprint compares the fingerprint saved in a state file (got)
// with the resuming run's (want) and returns an error naming the first
// field that differs, with both values.
func checkFingerprint(got, want Fingerprint) error {
	switch {
	case got.Format != want.Format:
		return fmt.Errorf("%w: state format %d, this version reads %d", ErrFingerprint, got.Format, want.Format)
	case got.Run != want.Run:
		return fmt.Errorf("%w: it is the state of run %d, not run %d", ErrFingerprint, got.Run, want.Run)
	case got.Data != want.Data:
		return fmt.Errorf("%w: it was trained on other data (SHA-256 %.12s…, the data now is %.12s…)", ErrFingerprint, got.Data, want.Data)
	}
	if field, a, b, ok := configDiff(got.Config, want.Config); !ok {
		return fmt.Errorf("%w: its configuration has %q = %s, config.json has %s", ErrFingerprint, field, a, b)
	}
	return nil
}

// configDiff compares two configurations field by field in their JSON
// form and returns the first field (by name) that differs, with the two
// values; ok is true when they are equal.
func configDiff(a, b Config) (field, va, vb string, ok bool) {
	ma, mb := configFields(a), configFields(b)
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, dup := ma[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		x, y := ma[k], mb[k]
		if !slices.Equal(x, y) {
			return k, orAbsent(x), orAbsent(y), false
		}
	}
	return "", "", "", true
}

func configFields(c Config) map[string][]byte {
	b, _ := json.Marshal(c)
	var raw map[string]json.RawMessage
	json.Unmarshal(b, &raw)
	m := map[string][]byte{}
	for k, v := range raw {
		m[k] = v
	}
	return m
}

func orAbsent(v []byte) string {
	if v == nil {
		return "(absent)"
	}
	return string(v)
}
