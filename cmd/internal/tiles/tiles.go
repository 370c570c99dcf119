// Package tiles computes a kernel matrix as independent blocks of rows,
// one per task of a job array (a Slurm array, a Kubernetes Indexed Job),
// and assembles them again, checked, into the matrix a single process
// computes, bit for bit.
//
// A tile directory holds:
//
//	manifest.json     the plan: kernel, the SHA-256 of the inputs, the number
//	                  of tiles and every block's row and column range
//	block-0003.npy    block 3, rows [r0, r1) × columns [0, c1) of the kernel
//	block-0003.json   its record: the manifest's SHA-256, the block's range,
//	                  the .npy file's size and SHA-256, who computed it
//
// Each task is a pure function of (inputs, kernel, tile count, index): it
// writes the manifest if it is absent (every task writes the same bytes)
// or checks it, skips a block whose files exist and verify, and otherwise
// computes the block and writes the .npy, then its record, each atomically.
// A block counts as done only once its record exists, so a task killed at
// any point is simply run again. The checksums live in the per-block
// records rather than in the manifest so that concurrent tasks never write
// the same file with different contents.
//
// The Gram K(X, X) is split into bands of rows of its lower triangle, each
// holding about the same number of entries (the band of rows [r0, r1) has
// r1(r1+1)/2 − r0(r0+1)/2), with band edges on multiples of
// linalg.GramStrip so that ntk.FillGramRows gives each band's values bit for
// bit as ntk.FillGram does. A band is stored as an (r1−r0)×r1 matrix whose
// strict upper triangle is zero. The cross kernel K(Z, X) is split into
// bands of rows of Z of equal size.
//
// The same directory discipline serves model selection: a cross-validation
// split into array tasks (classify.CVPlan) keeps its plan and each task's
// results in a task directory (CVManifest, WriteCVTask, CollectCV).
package tiles

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/ntk"
)

// Format names the layout of a tile directory; it is the first field of
// the manifest and of every record.
const Format = "ntksvm-tiles/1"

// ManifestName is the manifest's file name in a tile directory.
const ManifestName = "manifest.json"

// Data identifies a set of inputs: its shape and the SHA-256 of its
// float64 values (svm.InputsSHA256, the hash a model file records).
type Data struct {
	N      int    `json:"n"`
	D      int    `json:"d"`
	SHA256 string `json:"sha256"`
}

// Block is one tile: rows [Rows[0], Rows[1]) and columns [0, Cols) of the
// kernel.
type Block struct {
	Index int    `json:"index"`
	Rows  [2]int `json:"rows"`
	Cols  int    `json:"cols"`
	File  string `json:"file"`
}

// Manifest is the plan of a tile directory.
type Manifest struct {
	Format string   `json:"format"`
	Kernel ntk.Spec `json:"kernel"`
	Train  Data     `json:"train"`          // X
	Test   *Data    `json:"test,omitempty"` // Z for the cross kernel K(Z, X); nil for the Gram
	Tiles  int      `json:"tiles"`
	Blocks []Block  `json:"blocks"`
}

// Record is what a finished block's task writes beside the block.
type Record struct {
	Format   string  `json:"format"`
	Manifest string  `json:"manifest_sha256"` // SHA-256 of the manifest the block belongs to
	Index    int     `json:"index"`
	Rows     [2]int  `json:"rows"`
	Cols     int     `json:"cols"`
	File     string  `json:"file"`
	Bytes    int64   `json:"bytes"`
	SHA256   string  `json:"sha256"`  // of the .npy file
	Kernels  string  `json:"kernels"` // the SIMD kernel set that computed it
	Caches   string  `json:"caches"`  // and the cache sizes its GEMM blocking follows
	CPU      string  `json:"cpu"`
	Host     string  `json:"host"`
	Seconds  float64 `json:"seconds"`
}

// NewManifest returns the plan of tiles blocks of the kernel spec of the
// inputs train (the Gram, test nil) or of test against train.
func NewManifest(spec ntk.Spec, train Data, test *Data, tiles int) (*Manifest, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	var ranges [][2]int
	var err error
	if test == nil {
		ranges, err = SplitTriangle(train.N, tiles)
	} else {
		ranges, err = SplitRows(test.N, tiles)
	}
	if err != nil {
		return nil, err
	}
	m := &Manifest{Format: Format, Kernel: spec, Train: train, Test: test, Tiles: tiles}
	for i, r := range ranges {
		cols := train.N
		if test == nil {
			cols = r[1]
		}
		m.Blocks = append(m.Blocks, Block{Index: i, Rows: r, Cols: cols, File: blockName(i, ".npy")})
	}
	return m, nil
}

// Rows returns the number of rows of the whole kernel.
func (m *Manifest) Rows() int {
	if m.Test != nil {
		return m.Test.N
	}
	return m.Train.N
}

// What is "K(X, X)" or "K(Z, X)".
func (m *Manifest) What() string {
	if m.Test != nil {
		return "K(Z, X)"
	}
	return "K(X, X)"
}

func blockName(i int, ext string) string { return fmt.Sprintf("block-%04d%s", i, ext) }

// recordName is the file name of block i's record.
func recordName(i int) string { return blockName(i, ".json") }

// encode returns the manifest's file content.
func (m *Manifest) encode() []byte {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic("tiles: manifest does not encode: " + err.Error()) // only plain fields and a validated Spec
	}
	return append(b, '\n')
}

// ID returns the SHA-256 of the manifest's file content, which every
// record of its blocks carries.
func (m *Manifest) ID() string {
	s := sha256.Sum256(m.encode())
	return hex.EncodeToString(s[:])
}

// Prepare creates dir if needed and writes m as its manifest, or checks
// that the manifest already there is m: a directory holds the tiles of
// one kernel of one data set only.
func Prepare(dir string, m *Manifest) error {
	old, path, err := prepareManifest(dir, "tile directory", m.encode())
	if err != nil || old == nil {
		return err
	}
	var there Manifest
	if err := json.Unmarshal(old, &there); err != nil {
		return fmt.Errorf("%s is not a tile manifest (%v); use an empty directory", path, err)
	}
	return fmt.Errorf("%s holds the tiles of another computation: %s; use another directory", dir, Diff(&there, m))
}

// prepareManifest creates dir if needed and writes enc as its manifest when
// it has none. It returns the manifest already there when that differs from
// enc (nil when it was written or is the same), and its path.
func prepareManifest(dir, what string, enc []byte) (old []byte, path string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("%s: %w", what, err)
	}
	path = filepath.Join(dir, ManifestName)
	old, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, atomicfile.WriteFile(path, func(w io.Writer) error {
			_, err := w.Write(enc)
			return err
		})
	}
	if err != nil || bytes.Equal(old, enc) {
		return nil, path, err
	}
	return old, path, nil
}

// Load reads the manifest of dir.
func Load(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s: not a tile directory (ntksvm kernel --tile i/N --out %s writes one)", dir, ManifestName, dir)
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("%s: format %q, want %q", path, m.Format, Format)
	}
	want, err := NewManifest(m.Kernel, m.Train, m.Test, m.Tiles)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if !bytes.Equal(want.encode(), m.encode()) {
		return nil, fmt.Errorf("%s: its blocks are not the plan of %d tiles of its kernel (edited?)", path, m.Tiles)
	}
	return &m, nil
}

// Diff describes how the manifest there differs from want, in the user's
// terms, or returns "" when they are the same plan.
func Diff(there, want *Manifest) string {
	short := func(s string) string { return s[:min(len(s), 12)] + "…" }
	data := func(d *Data) string {
		if d == nil {
			return "none"
		}
		return fmt.Sprintf("%d×%d, SHA-256 %s", d.N, d.D, short(d.SHA256))
	}
	switch {
	case there.Kernel != want.Kernel:
		return fmt.Sprintf("kernel %s there, %s here", there.Kernel, want.Kernel)
	case there.Train != want.Train:
		return fmt.Sprintf("training inputs %s there, %s here", data(&there.Train), data(&want.Train))
	case (there.Test == nil) != (want.Test == nil) || (there.Test != nil && *there.Test != *want.Test):
		return fmt.Sprintf("test inputs %s there, %s here", data(there.Test), data(want.Test))
	case there.Tiles != want.Tiles:
		return fmt.Sprintf("%d tiles there, %d here", there.Tiles, want.Tiles)
	case there.Format != want.Format:
		return fmt.Sprintf("format %q there, %q here", there.Format, want.Format)
	case !bytes.Equal(there.encode(), want.encode()):
		return "the block ranges differ"
	}
	return ""
}
