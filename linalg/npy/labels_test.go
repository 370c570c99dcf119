package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// labelFile returns a version 1.0 .npy stream of the given descr and shape
// holding data, built by hand as NumPy writes it.
func labelFile(descr, shape string, data []byte) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	pad := 64 - (10+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	dict += strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString(npyMagic + "\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	b.Write(data)
	return b.Bytes()
}

func le(vs ...any) []byte {
	var b bytes.Buffer
	for _, v := range vs {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

func be(vs ...any) []byte {
	var b bytes.Buffer
	for _, v := range vs {
		binary.Write(&b, binary.BigEndian, v)
	}
	return b.Bytes()
}

// utf32 returns s as NumPy stores a '<U width' element.
func utf32(s string, width int) []byte {
	r := []rune(s)
	out := make([]uint32, width)
	for i := range r {
		out[i] = uint32(r[i])
	}
	return le(out)
}

func TestReadLabels(t *testing.T) {
	cases := []struct {
		name, descr, shape string
		data               []byte
		want               []string
	}{
		{"int64", "<i8", "(3,)", le(int64(0), int64(-7), int64(9)), []string{"0", "-7", "9"}},
		{"int32 column", "<i4", "(2, 1)", le(int32(5), int32(-1)), []string{"5", "-1"}},
		{"int16 row", "<i2", "(1, 2)", le(int16(300), int16(-300)), []string{"300", "-300"}},
		{"int8", "|i1", "(2,)", []byte{0xff, 3}, []string{"-1", "3"}},
		{"uint8", "|u1", "(2,)", []byte{0xff, 3}, []string{"255", "3"}},
		{"uint64", "<u8", "(1,)", le(uint64(1 << 63)), []string{"9223372036854775808"}},
		{"big-endian int32", ">i4", "(2,)", be(int32(1), int32(-2)), []string{"1", "-2"}},
		{"bool", "|b1", "(2,)", []byte{1, 0}, []string{"True", "False"}},
		{"float64 whole", "<f8", "(2,)", le(1.0, -1.0), []string{"1", "-1"}},
		{"float32 whole", "<f4", "(2,)", le(float32(3), float32(0)), []string{"3", "0"}},
		{"unicode", "<U6", "(3,)", slices.Concat(utf32("setosa", 6), utf32("vé", 6), utf32("", 6)), []string{"setosa", "vé", ""}},
		{"bytes", "|S4", "(2,)", []byte("cat\x00dogs"), []string{"cat", "dogs"}},
		{"empty", "<i8", "(0,)", nil, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := labelFile(c.descr, c.shape, c.data)
			for _, size := range []int64{int64(len(b)), -1} {
				got, err := ReadLabelsFrom(bytes.NewReader(b), size, len(c.want))
				if err != nil {
					t.Fatalf("size %d: %v", size, err)
				}
				if !slices.Equal(got, c.want) {
					t.Fatalf("size %d: got %q, want %q", size, got, c.want)
				}
			}
		})
	}
}

func TestReadLabelsRefused(t *testing.T) {
	cases := []struct {
		name, descr, shape string
		data               []byte
		want               int
		msg                string
	}{
		{"count", "<i8", "(2,)", le(int64(1), int64(2)), 3, "2 labels, want 3"},
		{"fraction", "<f8", "(2,)", le(1.0, 0.5), 2, "label 1: 0.5 is not a whole number"},
		{"infinity", "<f4", "(1,)", le(uint32(0x7f800000)), 1, "not a whole number"},
		{"bool byte", "|b1", "(1,)", []byte{2}, 1, "neither 0 nor 1"},
		{"object", "|O", "(1,)", le(int64(0)), 1, "object arrays are not read"},
		{"complex", "<c16", "(1,)", make([]byte, 16), 1, "not supported"},
		{"int24", "<i3", "(1,)", make([]byte, 3), 1, "not supported"},
		{"matrix", "<i8", "(2, 2)", make([]byte, 32), 4, "not a vector of labels"},
		{"wide", "<U5000", "(1,)", nil, 1, "the limit is 4096"},
		{"bad code point", "<U1", "(1,)", le(uint32(0xD800)), 1, "not a valid character"},
		{"inner NUL", "<U3", "(1,)", le(uint32('a'), uint32(0), uint32('b')), 1, "NUL character"},
		{"not UTF-8", "|S2", "(1,)", []byte{0xff, 0xfe}, 1, "not UTF-8"},
		{"truncated", "<i8", "(2,)", le(int64(1)), 2, "truncated"},
		{"trailing", "<i8", "(1,)", le(int64(1), int64(2)), 1, "trailing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := labelFile(c.descr, c.shape, c.data)
			_, err := ReadLabelsFrom(bytes.NewReader(b), int64(len(b)), c.want)
			if err == nil || !strings.Contains(err.Error(), c.msg) || !errors.Is(err, ErrFormat) {
				t.Fatalf("got %v, want an ErrFormat naming %q", err, c.msg)
			}
		})
	}
}

func TestReadLabelsFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "y.npy")
	if err := os.WriteFile(p, labelFile("<i8", "(2,)", le(int64(4), int64(2))), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := LabelsHeader(p); err != nil || n != 2 {
		t.Fatalf("LabelsHeader: %d, %v", n, err)
	}
	got, err := ReadLabels(p, 2)
	if err != nil || !slices.Equal(got, []string{"4", "2"}) {
		t.Fatalf("ReadLabels: %q, %v", got, err)
	}
	if _, err := ReadLabels(p, 3); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("a count mismatch does not name the file: %v", err)
	}
	defer SetReadLimit(SetReadLimit(40))
	if _, err := ReadLabels(p, 2); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the read limit: %v", err)
	}
}

// FuzzLabels reads arbitrary bytes as a .npy label vector: it must never
// panic, and what it returns must be one string per declared label.
func FuzzLabels(f *testing.F) {
	f.Add(labelFile("<i8", "(2,)", le(int64(1), int64(2))))
	f.Add(labelFile("<U3", "(1,)", utf32("abc", 3)))
	f.Add(labelFile("|S2", "(2, 1)", []byte("abcd")))
	f.Add(labelFile("<f4", "(1,)", le(float32(2))))
	f.Fuzz(func(t *testing.T, b []byte) {
		defer SetReadLimit(SetReadLimit(1 << 24))
		for _, size := range []int64{int64(len(b)), -1} {
			got, err := ReadLabelsFrom(bytes.NewReader(b), size, -1)
			if err != nil {
				continue
			}
			h, _, err := parseLabelsHeader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				if size >= 0 {
					t.Fatalf("read with a header that does not parse: %v", err)
				}
				continue
			}
			if len(got) != h.Len() {
				t.Fatalf("%d labels read, header says %d", len(got), h.Len())
			}
		}
	})
}
