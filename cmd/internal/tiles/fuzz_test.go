package tiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// FuzzManifest reads arbitrary bytes as a tile directory's manifest.json:
// Load must never panic nor allocate what the file merely declares, and a
// manifest it accepts is the plan of its tiles, whose blocks Verify checks
// (here: all missing) without panicking.
func FuzzManifest(f *testing.F) {
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1}
	x := Data{N: 3*Unit + 5, D: 4, SHA256: "ab"}
	for _, m := range []struct {
		test  *Data
		tiles int
	}{{nil, 3}, {&Data{N: 2*Unit + 7, D: 4, SHA256: "cd"}, 2}} {
		mm, err := NewManifest(spec, x, m.test, m.tiles)
		if err != nil {
			f.Fatal(err)
		}
		b, _ := json.Marshal(mm)
		f.Add(b)
	}
	f.Add([]byte(`{"format":"ntksvm-tiles/1","kernel":{"name":"ntk","depth":2,"sigma_w":1,"sigma_b":0},"train":{"n":1000000000000,"d":1},"tiles":1000000000000}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(dir)
		if err != nil {
			return
		}
		if len(m.Blocks) != m.Tiles || m.Tiles < 1 {
			t.Fatalf("accepted %d blocks for %d tiles", len(m.Blocks), m.Tiles)
		}
		if _, err := VerifyAll(dir, m); err == nil {
			t.Fatal("VerifyAll accepted a directory without tiles")
		}
	})
}

// FuzzTileRecord reads arbitrary bytes as a tile's record and its block
// file: Verify must never panic, and accepts only a record of this block
// whose size and SHA-256 are those of the file.
func FuzzTileRecord(f *testing.F) {
	m, err := NewManifest(ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1}, Data{N: 2*Unit + 5, D: 4, SHA256: "ab"}, nil, 2)
	if err != nil {
		f.Fatal(err)
	}
	block := []byte("block bytes")
	sum, _, _ := hashBytes(block)
	b := m.Blocks[0]
	good, _ := json.Marshal(Record{Format: Format, Manifest: m.ID(), Index: 0, Rows: b.Rows, Cols: b.Cols, File: b.File, Bytes: int64(len(block)), SHA256: sum})
	f.Add(good, block)
	f.Add(good, block[:3])
	f.Add([]byte(`{"format":"ntksvm-tiles/1"}`), []byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, rec, file []byte) {
		if err := os.WriteFile(filepath.Join(dir, recordName(0)), rec, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, b.File), file, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Verify(dir, m, 0)
		if err != nil {
			return
		}
		sum, n, _ := hashBytes(file)
		if r.Index != 0 || r.Manifest != m.ID() || r.Bytes != n || r.SHA256 != sum {
			t.Fatalf("accepted record %+v for a file of %d bytes, SHA-256 %s", r, n, sum)
		}
	})
}

// hashBytes returns what hashFile returns for a file holding b.
func hashBytes(b []byte) (string, int64, error) {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), int64(len(b)), nil
}

// TestManifestDeclaresTooManyTiles: a manifest declaring 10⁹ tiles of
// 10¹² rows (found by FuzzManifest: its bands were allocated, 16 GB) is
// refused by Load, naming the bound.
func TestManifestDeclaresTooManyTiles(t *testing.T) {
	dir := t.TempDir()
	b := []byte(`{"format":"ntksvm-tiles/1","kernel":{"name":"ntk","depth":2,"sigma_w":1,"sigma_b":0},"train":{"n":1000000000000,"d":1},"tiles":1000000000}`)
	if err := os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "1000000000 tiles: want at most 65536") {
		t.Fatalf("Load: %v, want the tile count refused", err)
	}
}
