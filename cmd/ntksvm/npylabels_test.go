package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// npyVector writes a 1-D .npy file of the given NumPy descr holding data,
// with the header NumPy writes.
func npyVector(t *testing.T, path, descr string, n int, data []byte) {
	t.Helper()
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descr, n)
	dict += strings.Repeat(" ", (64-(10+len(dict)+1)%64)%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	b.Write(data)
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestNpyLabels: class labels in a .npy file as NumPy saves them, integers
// (int64, the default) or strings, are read by the commands that take
// X.npy,labels; a fractional float label is refused naming it.
func TestNpyLabels(t *testing.T) {
	dir := t.TempDir()
	x := linalg.New[float64](6, 2)
	for i := range x.Data {
		x.Data[i] = float64(i%5) - 1.5
	}
	xp := filepath.Join(dir, "X.npy")
	if err := npy.Write(xp, x); err != nil {
		t.Fatal(err)
	}
	var ints bytes.Buffer
	binary.Write(&ints, binary.LittleEndian, []int64{3, 7, 3, 7, 9, 9})
	npyVector(t, filepath.Join(dir, "yi.npy"), "<i8", 6, ints.Bytes())
	var strs bytes.Buffer
	for _, s := range []string{"cat", "dog", "cat", "dog", "emu", "emu"} {
		binary.Write(&strs, binary.LittleEndian, []uint32{uint32(s[0]), uint32(s[1]), uint32(s[2]), 0})
	}
	npyVector(t, filepath.Join(dir, "ys.npy"), "<U4", 6, strs.Bytes())
	var half bytes.Buffer
	binary.Write(&half, binary.LittleEndian, []float64{1, 0, 1, 0, 0.5, 1})
	npyVector(t, filepath.Join(dir, "yf.npy"), "<f8", 6, half.Bytes())

	for _, c := range []struct {
		labels string
		want   []string
	}{
		{"yi.npy", []string{"3 classes", "3 ", "7 ", "9 "}},
		{"ys.npy", []string{"3 classes", "cat", "dog", "emu"}},
	} {
		code, out, errOut := runCLI(t, "data", "info", xp+","+filepath.Join(dir, c.labels))
		if code != 0 {
			t.Fatalf("data info with %s: exit %d: %s", c.labels, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("data info with %s lacks %q:\n%s", c.labels, w, out)
			}
		}
	}
	code, out, errOut := runCLI(t, "cv", "--data", xp+","+filepath.Join(dir, "ys.npy"), "--folds", "2",
		"--depth", "1", "--C", "1", "--sigma-b", "0")
	if code != 0 || !strings.Contains(errOut, "3 classes") || !strings.Contains(out, "6 support vectors") {
		t.Errorf("cv with string labels: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "data", "info", xp+","+filepath.Join(dir, "yf.npy"))
	if code == 0 || !strings.Contains(errOut, "label 4: 0.5 is not a whole number") {
		t.Errorf("fractional label: exit %d: %s", code, errOut)
	}
}
