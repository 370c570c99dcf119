package npy

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLabelWidth bounds the width of a string label (NumPy's '<U n' or
// '|S n' with n above it is refused): class names are short, and the
// width times the count is the memory a file asks for.
const MaxLabelWidth = 4096

// labelKind is how the elements of a label file are decoded.
type labelKind uint8

const (
	labelInt labelKind = iota
	labelUint
	labelBool
	labelFloat
	labelUnicode // UTF-32 code points, NUL-padded
	labelBytes   // bytes, NUL-padded
)

// labelType describes the elements of a label file.
type labelType struct {
	kind  labelKind
	size  int // bytes per element
	big   bool
	descr string
}

// parseLabelDescr accepts the descr of a label vector: integers signed or
// unsigned of 1, 2, 4 or 8 bytes, booleans, float32 and float64, and
// fixed-width strings.
func parseLabelDescr(descr string) (labelType, error) {
	t := labelType{descr: descr}
	bad := func() (labelType, error) {
		return labelType{}, npyErr("labels of dtype %q are not supported (want integers such as '<i8', booleans, whole-number floats, or fixed-width strings '<U n' / '|S n'; object arrays are not read)", descr)
	}
	if len(descr) < 3 {
		return bad()
	}
	switch descr[0] {
	case '<', '|', '=':
		t.big = descr[0] == '=' && !nativeLittle
	case '>':
		t.big = true
	default:
		return bad()
	}
	n, err := strconv.Atoi(descr[2:])
	if err != nil || n <= 0 {
		return bad()
	}
	t.size = n
	switch descr[1] {
	case 'i', 'u':
		if n != 1 && n != 2 && n != 4 && n != 8 {
			return bad()
		}
		t.kind = labelInt
		if descr[1] == 'u' {
			t.kind = labelUint
		}
	case 'b':
		if n != 1 {
			return bad()
		}
		t.kind = labelBool
	case 'f':
		if n != 4 && n != 8 {
			return bad()
		}
		t.kind = labelFloat
	case 'U':
		if n > MaxLabelWidth {
			return labelType{}, npyErr("labels of dtype %q are %d characters wide: the limit is %d", descr, n, MaxLabelWidth)
		}
		t.kind, t.size = labelUnicode, 4*n
	case 'S':
		if n > MaxLabelWidth {
			return labelType{}, npyErr("labels of dtype %q are %d bytes wide: the limit is %d", descr, n, MaxLabelWidth)
		}
		t.kind = labelBytes
	default:
		return bad()
	}
	return t, nil
}

// LabelsHeader reads and checks the header of a .npy vector of class
// labels (see ReadLabels) and returns the number of labels.
func LabelsHeader(path string) (int, error) {
	f, size, err := openSized(path)
	if err != nil {
		return 0, fileErr("LabelsHeader", path, err)
	}
	defer f.Close()
	h, _, err := parseLabelsHeader(bufio.NewReader(f), size)
	if err != nil {
		return 0, fileErr("LabelsHeader", path, err)
	}
	return h.Len(), nil
}

func parseLabelsHeader(r io.Reader, size int64) (Header, labelType, error) {
	var t labelType
	h, _, err := parseHeaderAs(r, size, func(descr string, h *Header) (int, error) {
		var err error
		t, err = parseLabelDescr(descr)
		return t.size, err
	})
	if err != nil {
		return Header{}, labelType{}, err
	}
	if len(h.Shape) == 2 && h.Shape[0] != 1 && h.Shape[1] != 1 {
		return Header{}, labelType{}, npyErr("shape %v is not a vector of labels (want (n,), (n, 1) or (1, n))", h.Shape)
	}
	return h, t, nil
}

// ReadLabels reads a .npy vector of class labels — shape (n,), (n, 1) or
// (1, n) — as text, one string per label: integers of any width and sign
// in decimal, booleans as "False"/"True", floats that are whole numbers
// as integers (others are refused, naming the first), and fixed-width
// strings ('<U n' as NumPy saves a str array, '|S n' for bytes, which must
// be UTF-8) without their padding. want ≥ 0 is the number of labels the
// caller expects, checked against the header before the data is read.
func ReadLabels(path string, want int) ([]string, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, fileErr("ReadLabels", path, err)
	}
	defer f.Close()
	v, err := ReadLabelsFrom(f, size, want)
	if err != nil {
		return nil, fmt.Errorf("npy: ReadLabels %s: %w", path, err)
	}
	return v, nil
}

// ReadLabelsFrom reads a .npy stream of size bytes (-1: unknown) as
// ReadLabels reads a file.
func ReadLabelsFrom(r io.Reader, size int64, want int) ([]string, error) {
	br := bufio.NewReader(limitTo(r, size))
	h, t, err := parseLabelsHeader(br, size)
	if err != nil {
		return nil, err
	}
	n := h.Len()
	if want >= 0 && n != want {
		return nil, npyErr("%d labels, want %d (one per row of the data)", n, want)
	}
	if lim := readLimit.Load(); lim > 0 && int64(n) > lim/int64(16+t.size) {
		return nil, fmt.Errorf("%w: %d labels of dtype %q need %.1f GiB as text, only %.1f GiB of memory is available",
			ErrTooLarge, n, t.descr, float64(n)*float64(16+t.size)/(1<<30), float64(lim)/(1<<30))
	}
	out := make([]string, 0, min(n, 1<<20))
	el := make([]byte, t.size)
	for i := range n {
		if _, err := io.ReadFull(br, el); err != nil {
			return nil, npyErr("reading label %d of %d: %w", i, n, err)
		}
		s, err := t.decode(el)
		if err != nil {
			return nil, npyErr("label %d: %w", i, err)
		}
		out = append(out, s)
	}
	if size < 0 {
		if _, err := br.ReadByte(); err != io.EOF {
			return nil, npyErr("trailing bytes after the %d labels", n)
		}
	}
	return out, nil
}

// decode returns one element as text.
func (t labelType) decode(b []byte) (string, error) {
	var order binary.ByteOrder = binary.LittleEndian
	if t.big {
		order = binary.BigEndian
	}
	switch t.kind {
	case labelInt:
		var v int64
		switch t.size {
		case 1:
			v = int64(int8(b[0]))
		case 2:
			v = int64(int16(order.Uint16(b)))
		case 4:
			v = int64(int32(order.Uint32(b)))
		default:
			v = int64(order.Uint64(b))
		}
		return strconv.FormatInt(v, 10), nil
	case labelUint:
		var v uint64
		switch t.size {
		case 1:
			v = uint64(b[0])
		case 2:
			v = uint64(order.Uint16(b))
		case 4:
			v = uint64(order.Uint32(b))
		default:
			v = order.Uint64(b)
		}
		return strconv.FormatUint(v, 10), nil
	case labelBool:
		switch b[0] {
		case 0:
			return "False", nil
		case 1:
			return "True", nil
		}
		return "", fmt.Errorf("boolean byte %d is neither 0 nor 1", b[0])
	case labelFloat:
		var f float64
		if t.size == 4 {
			f = float64(math.Float32frombits(order.Uint32(b)))
		} else {
			f = math.Float64frombits(order.Uint64(b))
		}
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("%v is not a whole number (class labels stored as floats must be integers)", f)
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	case labelUnicode:
		var sb strings.Builder
		for k := 0; k+4 <= len(b); k += 4 {
			c := rune(order.Uint32(b[k:]))
			if c == 0 {
				if strings.Trim(string(b[k:]), "\x00") != "" {
					return "", fmt.Errorf("a NUL character inside the string")
				}
				break
			}
			if !utf8.ValidRune(c) {
				return "", fmt.Errorf("code point %#x is not a valid character", uint32(c))
			}
			sb.WriteRune(c)
		}
		return sb.String(), nil
	default:
		s := strings.TrimRight(string(b), "\x00")
		if strings.IndexByte(s, 0) >= 0 {
			return "", fmt.Errorf("a NUL byte inside the string")
		}
		if !utf8.ValidString(s) {
			return "", fmt.Errorf("%q is not UTF-8", s)
		}
		return s, nil
	}
}
