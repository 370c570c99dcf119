package tiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// BlockError is a block that is missing, incomplete or not the plan's;
// its message names the block and its file.
type BlockError struct {
	Index int
	Err   error
}

// Error names the block and says what is wrong with it.
func (e *BlockError) Error() string { return fmt.Sprintf("tile %d: %v", e.Index, e.Err) }

// Unwrap returns the underlying error.
func (e *BlockError) Unwrap() error { return e.Err }

// Verify checks block i of the plan m in dir: its record is there, belongs
// to this manifest and this block, and its .npy file has the recorded
// size and SHA-256. It returns the record, or a *BlockError.
func Verify(dir string, m *Manifest, i int) (*Record, error) {
	b := m.Blocks[i]
	fail := func(format string, a ...any) (*Record, error) {
		return nil, &BlockError{Index: i, Err: fmt.Errorf(format, a...)}
	}
	rows := fmt.Sprintf("rows %d…%d", b.Rows[0], b.Rows[1]-1)
	rb, err := os.ReadFile(filepath.Join(dir, recordName(i)))
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, b.File)); err == nil {
			return fail("%s (%s) has no record %s: its task did not finish; run tile %d/%d again", b.File, rows, recordName(i), i, m.Tiles)
		}
		return fail("%s (%s) is missing; run tile %d/%d", b.File, rows, i, m.Tiles)
	}
	if err != nil {
		return fail("%v", err)
	}
	var r Record
	if err := json.Unmarshal(rb, &r); err != nil || r.Format != Format {
		return fail("%s is not a tile record", recordName(i))
	}
	if r.Manifest != m.ID() {
		return fail("%s is a tile of another kernel or data set (manifest SHA-256 %.12s…, this directory's %.12s…)",
			recordName(i), r.Manifest, m.ID())
	}
	if r.Index != i || r.Rows != b.Rows || r.Cols != b.Cols || r.File != b.File {
		return fail("%s records tile %d, rows %d…%d, not this one", recordName(i), r.Index, r.Rows[0], r.Rows[1]-1)
	}
	sum, n, err := hashFile(filepath.Join(dir, b.File))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("%s (%s) is missing though its record is there; run tile %d/%d again", b.File, rows, i, m.Tiles)
	case err != nil:
		return fail("%v", err)
	case n < r.Bytes:
		return fail("%s is truncated: %d of %d bytes", b.File, n, r.Bytes)
	case n != r.Bytes:
		return fail("%s has %d bytes, its record says %d", b.File, n, r.Bytes)
	case sum != r.SHA256:
		return fail("%s does not match the SHA-256 in %s (changed or replaced since it was written)", b.File, recordName(i))
	}
	return &r, nil
}

// VerifyAll verifies every block of m in dir and returns their records,
// or an error listing every block that fails (each a *BlockError).
func VerifyAll(dir string, m *Manifest) ([]*Record, error) {
	recs := make([]*Record, len(m.Blocks))
	var errs []error
	for i := range m.Blocks {
		r, err := Verify(dir, m, i)
		if err != nil {
			errs = append(errs, err)
		}
		recs[i] = r
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %d of %d tiles are not ready:\n%w", dir, len(errs), len(m.Blocks), errors.Join(errs...))
	}
	return recs, nil
}

// hashFile returns the hex SHA-256 and the size of the file at path.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
