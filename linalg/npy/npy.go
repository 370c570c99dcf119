package npy

// This file reads and writes NumPy .npy files (format versions 1.0, 2.0 and
// 3.0, as specified in numpy/lib/format.py): float32 and float64 arrays of
// one or two dimensions in C (row-major) order, either byte order. Every
// format is read from and written to an io.Reader or io.Writer (the ...From
// and ...To functions, NewWriterTo); the path functions open the file
// and write it atomically, and OpenMmap maps it.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/ntksvm/ntksvm/linalg"
)

// Dtype is the element type of a .npy file.
type Dtype int

// The supported element types; the value of each is its size in bytes.
const (
	Float32 Dtype = 4 // NumPy '<f4' (or '>f4' on read)
	Float64 Dtype = 8 // NumPy '<f8' (or '>f8' on read)
)

// String returns "float32", "float64" or "Dtype(n)".
func (d Dtype) String() string {
	switch d {
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return "Dtype(" + strconv.Itoa(int(d)) + ")"
}

// Size returns the size of one element in bytes (4 or 8).
func (d Dtype) Size() int { return int(d) }

func (d Dtype) valid() bool { return d == Float32 || d == Float64 }

// DtypeOf returns the Dtype whose elements are T.
func DtypeOf[T linalg.Float]() Dtype {
	var z T
	return Dtype(unsafe.Sizeof(z))
}

// ErrFormat is wrapped by every error about a malformed or unsupported .npy
// file. The messages name the file and the problem.
var ErrFormat = errors.New("bad .npy file")

const (
	npyMagic = "\x93NUMPY"
	// npyMaxHeader bounds the header length we accept (numpy itself refuses
	// headers over 10,000 bytes by default); the file size bounds it too.
	npyMaxHeader = 1 << 20
	npyAlign     = 64 // numpy pads the header so the data starts at a multiple of 64
)

// nativeLittle reports whether this machine stores numbers little-endian.
var nativeLittle = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Header describes the array stored in a .npy file.
type Header struct {
	Major, Minor int   // format version: 1.0, 2.0 or 3.0
	Dtype        Dtype // Float32 or Float64
	BigEndian    bool  // the file's descr was '>f4' or '>f8'
	Shape        []int // one or two dimensions
	DataOffset   int64 // where the data starts in the file
}

// Rows and Cols give the matrix view of the array: a 1-D array of length n
// is a 1×n matrix.
func (h Header) Rows() int {
	if len(h.Shape) == 1 {
		return 1
	}
	return h.Shape[0]
}

// Cols returns the number of columns of the matrix view (see Rows).
func (h Header) Cols() int { return h.Shape[len(h.Shape)-1] }

// Len returns the number of elements.
func (h Header) Len() int { return h.Rows() * h.Cols() }

func npyErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
}

func fileErr(op, path string, err error) error {
	return fmt.Errorf("npy: %s %s: %w", op, path, err)
}

// ReadHeader reads and checks the header of the .npy file at path
// (including that the file holds exactly the data the header promises).
func ReadHeader(path string) (Header, error) {
	f, size, err := openSized(path)
	if err != nil {
		return Header{}, fileErr("ReadHeader", path, err)
	}
	defer f.Close()
	h, err := parseNpyHeader(bufio.NewReader(f), size)
	if err != nil {
		return Header{}, fileErr("ReadHeader", path, err)
	}
	return h, nil
}

// Read reads a float32 or float64 .npy file of one or two dimensions into
// a new compact matrix; a 1-D array of length n becomes a 1×n matrix. The
// elements are converted to T (rounded when a float64 file is read as
// float32). Any other dtype, Fortran order, more dimensions, a file shorter or
// longer than its header says, or a malformed header is an error wrapping
// ErrFormat that names the file. Memory is allocated only after the header has
// been checked against the file size. It is ReadFrom on the file.
func Read[T linalg.Float](path string) (linalg.Matrix[T], error) {
	f, size, err := openSized(path)
	if err != nil {
		return linalg.Matrix[T]{}, fileErr("Read", path, err)
	}
	defer f.Close()
	m, err := readNpyFile[T](f, size)
	if err != nil {
		return linalg.Matrix[T]{}, fileErr("Read", path, err)
	}
	return m, nil
}

// readNpyFile is readNpy for a whole file of size bytes, read from its
// start: the data, at the offset the header gives, is read with ReadAt,
// in parallel pieces when it is large (readAtParallel).
func readNpyFile[T linalg.Float](f *os.File, size int64) (linalg.Matrix[T], error) {
	h, err := parseNpyHeader(bufio.NewReader(io.NewSectionReader(f, 0, size)), size)
	if err == nil {
		err = checkReadSize[T](h)
	}
	if err != nil {
		return linalg.Matrix[T]{}, err
	}
	m := linalg.New[T](h.Rows(), h.Cols())
	if len(m.Data) == 0 {
		return m, nil
	}
	if h.Dtype == DtypeOf[T]() && h.BigEndian != nativeLittle {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&m.Data[0])), len(m.Data)*h.Dtype.Size())
		if err := readAtParallel(f, h.DataOffset, b, npyPieceMin); err != nil {
			return linalg.Matrix[T]{}, npyErr("reading the data: %w", err)
		}
		return m, nil
	}
	data := io.NewSectionReader(f, h.DataOffset, size-h.DataOffset)
	if err := readNpyData(data, h, m.Data); err != nil {
		return linalg.Matrix[T]{}, err
	}
	return m, nil
}

// npyPieceMin is the least number of bytes readAtParallel gives one
// goroutine, and npyPieceAlign the boundary (a transparent huge page) its
// pieces start on.
const (
	npyPieceMin   = 16 << 20
	npyPieceAlign = 2 << 20
)

// readAtParallel fills b from r at offset off, in up to linalg.Threads() pieces
// of at least minPiece bytes read concurrently. Reading a large file that
// is in the page cache costs the kernel's copy and the faults that bring
// in the destination's fresh pages, both of which scale with the cores
// doing them (docs/performance.md, "Reading .npy files"). Pieces of a
// huge page or more start on huge-page boundaries, so that no two fault
// in the same page. A piece that ends early (the file shrank) is
// io.ErrUnexpectedEOF.
func readAtParallel(r io.ReaderAt, off int64, b []byte, minPiece int) error {
	if len(b) == 0 {
		return nil
	}
	t := max(1, min(linalg.Threads(), len(b)/max(1, minPiece)))
	piece := (len(b) + t - 1) / t
	base := uintptr(unsafe.Pointer(&b[0]))
	cut := func(w int) int { // start of piece w
		c := w * piece
		if c >= len(b) {
			return len(b)
		}
		if w > 0 && piece >= npyPieceAlign {
			c = int((base+uintptr(c)+npyPieceAlign-1)&^(npyPieceAlign-1) - base)
		}
		return min(c, len(b))
	}
	errs := make([]error, t)
	var wg sync.WaitGroup
	for w := range t {
		lo, hi := cut(w), cut(w+1)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := r.ReadAt(b[lo:hi], off+int64(lo))
			if n == hi-lo {
				err = nil
			} else if err == io.EOF || err == nil {
				err = io.ErrUnexpectedEOF
			}
			errs[w] = err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ReadVector reads a 1-D .npy file (or a 2-D one with a single row or a
// single column) as a vector; otherwise it behaves as Read.
func ReadVector[T linalg.Float](path string) ([]T, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, fileErr("ReadVector", path, err)
	}
	defer f.Close()
	v, err := readNpyVector[T](f, size)
	if err != nil {
		return nil, fileErr("ReadVector", path, err)
	}
	return v, nil
}

// ReadFrom reads a whole .npy stream from r as Read reads a file.
// size is the number of bytes r holds, or -1 if unknown. A known size is
// checked against the header before anything is allocated (and r is read
// no further than size bytes); without it, memory grows only as the data
// arrives, so a header that promises more data than the stream holds fails
// at the stream's end rather than by exhausting memory, and the stream
// must end right after the data. Errors wrap ErrFormat and say what is wrong.
func ReadFrom[T linalg.Float](r io.Reader, size int64) (linalg.Matrix[T], error) {
	m, err := readNpy[T](r, size)
	if err != nil {
		return linalg.Matrix[T]{}, fmt.Errorf("npy: ReadFrom: %w", err)
	}
	return m, nil
}

// ReadVectorFrom reads a whole .npy stream from r as ReadVector reads
// a file; size is as for ReadFrom.
func ReadVectorFrom[T linalg.Float](r io.Reader, size int64) ([]T, error) {
	v, err := readNpyVector[T](r, size)
	if err != nil {
		return nil, fmt.Errorf("npy: ReadVectorFrom: %w", err)
	}
	return v, nil
}

func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("not a regular file")
	}
	return f, st.Size(), nil
}

// readNpy reads a whole .npy stream of size bytes (-1: unknown).
func readNpy[T linalg.Float](r io.Reader, size int64) (linalg.Matrix[T], error) {
	br := bufio.NewReader(limitTo(r, size))
	h, err := parseNpyHeader(br, size)
	if err == nil {
		err = checkReadSize[T](h)
	}
	if err != nil {
		return linalg.Matrix[T]{}, err
	}
	if size < 0 {
		data, err := readNpyGrowing[T](br, h)
		if err != nil {
			return linalg.Matrix[T]{}, err
		}
		return linalg.Matrix[T]{Rows: h.Rows(), Cols: h.Cols(), Stride: h.Cols(), Data: data}, nil
	}
	m := linalg.New[T](h.Rows(), h.Cols())
	if err := readNpyData(br, h, m.Data); err != nil {
		return linalg.Matrix[T]{}, err
	}
	return m, nil
}

// readNpyVector is readNpy for a vector (see ReadVector).
func readNpyVector[T linalg.Float](r io.Reader, size int64) ([]T, error) {
	br := bufio.NewReader(limitTo(r, size))
	h, err := parseNpyHeader(br, size)
	if err == nil && len(h.Shape) == 2 && h.Shape[0] != 1 && h.Shape[1] != 1 {
		err = npyErr("shape %v is not a vector (want 1-D, 1×n or n×1)", h.Shape)
	}
	if err == nil {
		err = checkReadSize[T](h)
	}
	if err != nil {
		return nil, err
	}
	if size < 0 {
		return readNpyGrowing[T](br, h)
	}
	v := linalg.New[T](1, h.Len()).Data
	if err := readNpyData(br, h, v); err != nil {
		return nil, err
	}
	return v, nil
}

// limitTo returns r limited to size bytes, or r itself if size < 0.
func limitTo(r io.Reader, size int64) io.Reader {
	if size < 0 {
		return r
	}
	return io.LimitReader(r, size)
}

// npyGrowStep is the least number of elements readNpyGrowing adds at once.
const npyGrowStep = 1 << 16

// readNpyGrowing reads the data described by h from a stream of unknown
// length, growing the slice (at most doubling it) as the data arrives, and
// checks that the stream ends right after it.
func readNpyGrowing[T linalg.Float](br *bufio.Reader, h Header) ([]T, error) {
	n := h.Len()
	var data []T
	for len(data) < n {
		k := min(n-len(data), max(npyGrowStep, len(data)))
		data = slices.Grow(data, k)
		if err := readNpyData(br, h, data[len(data):len(data)+k]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, npyErr("truncated: shape %v of %v needs %d data bytes, the stream ends before",
					h.Shape, h.Dtype, int64(n)*int64(h.Dtype))
			}
			return nil, err
		}
		data = data[:len(data)+k]
	}
	switch _, err := br.ReadByte(); {
	case err == nil:
		return nil, npyErr("trailing bytes after the %d data bytes of shape %v of %v",
			int64(n)*int64(h.Dtype), h.Shape, h.Dtype)
	case err != io.EOF:
		return nil, npyErr("reading after the data: %w", err)
	}
	return data, nil
}

// parseNpyHeader reads the preamble and header of a .npy stream whose total
// length is size, leaving r at the first data byte. It checks that exactly
// the promised number of data bytes follow. With size < 0 (unknown) only
// the header itself is checked.
func parseNpyHeader(r io.Reader, size int64) (Header, error) {
	h, _, err := parseHeaderAs(r, size, floatDescr)
	return h, err
}

// floatDescr maps the descr of a float32 or float64 array to its Dtype and
// byte order.
func floatDescr(descr string, h *Header) (int, error) {
	switch descr {
	case "<f4":
		h.Dtype = Float32
	case "<f8":
		h.Dtype = Float64
	case ">f4":
		h.Dtype, h.BigEndian = Float32, true
	case ">f8":
		h.Dtype, h.BigEndian = Float64, true
	default:
		return 0, npyErr("dtype %q is not supported (want float32 '<f4'/'>f4' or float64 '<f8'/'>f8')", descr)
	}
	return h.Dtype.Size(), nil
}

// parseHeaderAs reads and checks a .npy header whose descr elem accepts,
// returning the element size in bytes elem gives (and the descr), and
// checks that the data size matches size (-1: unknown).
func parseHeaderAs(r io.Reader, size int64, elem func(descr string, h *Header) (int, error)) (Header, string, error) {
	h, descr, err := readHeaderDict(r, size)
	if err != nil {
		return Header{}, "", err
	}
	es, err := elem(descr, &h)
	if err != nil {
		return Header{}, "", err
	}
	// The data size, with overflow checks, against what the file holds.
	rows, cols := int64(h.Rows()), int64(h.Cols())
	const maxBytes = math.MaxInt64 / 2
	var want int64
	if rows != 0 && cols != 0 {
		if cols > maxBytes/rows/int64(es) {
			return Header{}, "", npyErr("shape %v is too large", h.Shape)
		}
		want = rows * cols * int64(es)
		if int64(int(rows*cols)) != rows*cols { // 32-bit systems
			return Header{}, "", npyErr("shape %v is too large", h.Shape)
		}
	}
	if size < 0 {
		return h, descr, nil
	}
	have := size - h.DataOffset
	switch {
	case have < want:
		return Header{}, "", npyErr("truncated: shape %v of %s needs %d data bytes, the file has %d",
			h.Shape, dtypeName(h, descr), want, have)
	case have > want:
		return Header{}, "", npyErr("%d trailing bytes after the %d data bytes of shape %v of %s",
			have-want, want, h.Shape, dtypeName(h, descr))
	}
	return h, descr, nil
}

// dtypeName names the element type in messages: float32/float64 for the
// float arrays, the descr for others.
func dtypeName(h Header, descr string) string {
	if h.Dtype.valid() {
		return h.Dtype.String()
	}
	return descr
}

// readHeaderDict reads the preamble and the header dictionary, checking
// the order and the number of dimensions; the descr is returned for the
// caller to check.
func readHeaderDict(r io.Reader, size int64) (Header, string, error) {
	var pre [12]byte
	known := size >= 0
	if known && size < 10 {
		return Header{}, "", npyErr("file of %d bytes is too short for a .npy header", size)
	}
	if _, err := io.ReadFull(r, pre[:10]); err != nil {
		return Header{}, "", npyErr("reading the preamble: %w", err)
	}
	if string(pre[:6]) != npyMagic {
		return Header{}, "", npyErr("bad magic %q (want \"\\x93NUMPY\")", pre[:6])
	}
	h := Header{Major: int(pre[6]), Minor: int(pre[7])}
	if h.Major < 1 || h.Major > 3 || h.Minor != 0 {
		return Header{}, "", npyErr("unsupported format version %d.%d (want 1.0, 2.0 or 3.0)", h.Major, h.Minor)
	}
	var hlen int64
	preLen := int64(10)
	if h.Major == 1 {
		hlen = int64(pre[8]) | int64(pre[9])<<8
	} else {
		if known && size < 12 {
			return Header{}, "", npyErr("file of %d bytes is too short for a version %d.0 header", size, h.Major)
		}
		if _, err := io.ReadFull(r, pre[10:12]); err != nil {
			return Header{}, "", npyErr("reading the preamble: %w", err)
		}
		hlen = int64(pre[8]) | int64(pre[9])<<8 | int64(pre[10])<<16 | int64(pre[11])<<24
		preLen = 12
	}
	if known && hlen > size-preLen {
		return Header{}, "", npyErr("header length %d runs past the end of the %d-byte file", hlen, size)
	}
	if hlen > npyMaxHeader {
		return Header{}, "", npyErr("header length %d exceeds the limit of %d bytes", hlen, npyMaxHeader)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return Header{}, "", npyErr("reading the header: %w", err)
	}
	if h.Major == 3 && !utf8.Valid(hdr) {
		return Header{}, "", npyErr("version 3.0 header is not valid UTF-8")
	}
	h.DataOffset = preLen + hlen
	descr, err := parseNpyDict(string(hdr), &h)
	if err != nil {
		return Header{}, "", err
	}
	return h, descr, nil
}

// parseNpyDict parses the header dictionary, a Python literal such as
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }.
func parseNpyDict(s string, h *Header) (string, error) {
	p := &pyParser{s: s}
	p.ws()
	if !p.eat('{') {
		return "", npyErr("header is not a Python dict: %q", clip(s))
	}
	var descr string
	var fortran bool
	var shape []int
	seen := map[string]bool{}
	for {
		p.ws()
		if p.eat('}') {
			break
		}
		key, ok := p.str()
		if !ok {
			return "", npyErr("header: expected a quoted key at offset %d in %q", p.i, clip(s))
		}
		if seen[key] {
			return "", npyErr("header: key %q appears twice", key)
		}
		seen[key] = true
		p.ws()
		if !p.eat(':') {
			return "", npyErr("header: expected ':' after key %q", key)
		}
		p.ws()
		switch key {
		case "descr":
			if p.peek() == '[' {
				return "", npyErr("structured dtype (descr is a list) is not supported; want float32 or float64")
			}
			if descr, ok = p.str(); !ok {
				return "", npyErr("header: descr is not a string")
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				fortran = true
			case p.word("False"):
			default:
				return "", npyErr("header: fortran_order is not True or False")
			}
		case "shape":
			if shape, ok = p.tuple(); !ok {
				if p.why != "" {
					return "", npyErr("header: shape: %s", p.why)
				}
				return "", npyErr("header: shape is not a tuple of non-negative integers")
			}
		default:
			return "", npyErr("header: unexpected key %q", key)
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		p.ws()
		if !p.eat('}') {
			return "", npyErr("header: expected ',' or '}' at offset %d in %q", p.i, clip(s))
		}
		break
	}
	p.ws()
	if p.i != len(s) {
		return "", npyErr("header: unexpected text after the dict: %q", clip(s[p.i:]))
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return "", npyErr("header: missing key %q", k)
		}
	}
	if fortran {
		return "", npyErr("fortran_order is True (column-major); only C order is supported (save np.ascontiguousarray(a))")
	}
	switch len(shape) {
	case 1, 2:
	case 0:
		return "", npyErr("0-D (scalar) array is not supported; want 1-D or 2-D")
	default:
		return "", npyErr("%d-D array (shape %v) is not supported; want 1-D or 2-D", len(shape), shape)
	}
	h.Shape = shape
	return descr, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// pyParser scans the small subset of Python literals .npy headers use.
type pyParser struct {
	s   string
	i   int
	why string // what tuple found wrong, when more than "not a tuple" can be said
}

func (p *pyParser) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str scans a quoted string without escapes.
func (p *pyParser) str() (string, bool) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", false
	}
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+j]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", false
	}
	p.i += j + 2
	return v, true
}

// tuple scans (), (n,) or (n, m, …) of non-negative integers (Python 2's
// "L" suffix allowed).
func (p *pyParser) tuple() ([]int, bool) {
	if !p.eat('(') {
		return nil, false
	}
	dims := []int{}
	for {
		p.ws()
		if p.eat(')') {
			return dims, true
		}
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		switch {
		case j < p.i && p.i-j > 18:
			p.why = fmt.Sprintf("dimension %s is larger than any array can be (at most 18 digits)", clip(p.s[j:p.i]))
			return nil, false
		case j < p.i && len(dims) >= 32:
			p.why = "more than 32 dimensions"
			return nil, false
		case j == p.i:
			return nil, false
		}
		n, _ := strconv.Atoi(p.s[j:p.i])
		dims = append(dims, n)
		p.eat('L')
		p.ws()
		if p.eat(',') {
			continue
		}
		p.ws()
		if !p.eat(')') {
			return nil, false
		}
		// Python needs a trailing comma in a 1-tuple: (5) is the integer 5.
		if len(dims) == 1 {
			return nil, false
		}
		return dims, true
	}
}

// readNpyData reads len(dst) elements described by h from r into dst.
func readNpyData[T linalg.Float](r io.Reader, h Header, dst []T) error {
	if len(dst) == 0 {
		return nil
	}
	if h.Dtype == DtypeOf[T]() && h.BigEndian != nativeLittle {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(dst)*h.Dtype.Size())
		if _, err := io.ReadFull(r, b); err != nil {
			return npyErr("reading the data: %w", err)
		}
		return nil
	}
	es := h.Dtype.Size()
	buf := make([]byte, min(len(dst)*es, 1<<16))
	for i := 0; i < len(dst); {
		n := min(len(dst)-i, len(buf)/es)
		if _, err := io.ReadFull(r, buf[:n*es]); err != nil {
			return npyErr("reading the data: %w", err)
		}
		decodeFloats(dst[i:i+n], buf, h.Dtype, h.BigEndian)
		i += n
	}
	return nil
}

// decodeFloats converts len(dst) elements of type d from b.
func decodeFloats[T linalg.Float](dst []T, b []byte, d Dtype, big bool) {
	switch {
	case d == Float64 && big:
		for i := range dst {
			dst[i] = T(math.Float64frombits(beUint64(b[8*i:])))
		}
	case d == Float64:
		for i := range dst {
			dst[i] = T(math.Float64frombits(leUint64(b[8*i:])))
		}
	case big:
		for i := range dst {
			dst[i] = T(math.Float32frombits(beUint32(b[4*i:])))
		}
	default:
		for i := range dst {
			dst[i] = T(math.Float32frombits(leUint32(b[4*i:])))
		}
	}
}

func leUint64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func beUint64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
		uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
}

func leUint32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func beUint32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[3]) | uint32(b[2])<<8 | uint32(b[1])<<16 | uint32(b[0])<<24
}

// npyHeaderBytes returns the preamble and padded header for an array of the
// given dtype and shape, little-endian, C order. version 0 picks 1.0 when
// the header fits its 16-bit length and 2.0 otherwise.
func npyHeaderBytes(d Dtype, shape []int, version int) []byte {
	var dims []string
	for _, n := range shape {
		dims = append(dims, strconv.Itoa(n))
	}
	sh := "(" + strings.Join(dims, ", ") + ")"
	if len(shape) == 1 {
		sh = "(" + dims[0] + ",)"
	}
	descr := "<f8"
	if d == Float32 {
		descr = "<f4"
	}
	dict := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ", }"
	pad := func(pre int) int { return pre + len(dict) + 1 + (npyAlign-(pre+len(dict)+1)%npyAlign)%npyAlign }
	if version == 0 {
		version = 1
		if pad(10)-10 > math.MaxUint16 {
			version = 2
		}
	}
	pre := 10
	if version > 1 {
		pre = 12
	}
	total := pad(pre)
	hlen := total - pre
	var b bytes.Buffer
	b.WriteString(npyMagic)
	b.WriteByte(byte(version))
	b.WriteByte(0)
	b.WriteByte(byte(hlen))
	b.WriteByte(byte(hlen >> 8))
	if version > 1 {
		b.WriteByte(byte(hlen >> 16))
		b.WriteByte(byte(hlen >> 24))
	}
	b.WriteString(dict)
	for b.Len() < total-1 {
		b.WriteByte(' ')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// Writer writes a .npy file row tile by row tile, so a matrix larger than
// memory can be written as it is computed. Elements are given as T and
// stored as the writer's Dtype (rounded when float64 is stored as float32).
// A writer made by NewWriter publishes its file at its path, complete,
// only when Close succeeds: until then the rows go to a temporary file in
// the same directory, which Close syncs and renames over path. One made by
// NewWriterTo writes to a stream. An Writer is not safe for
// concurrent use.
type Writer[T linalg.Float] struct {
	sink
	dtype      Dtype
	rows, cols int
	done       int
	buf        []byte
}

// NewWriter creates a writer of a rows×cols .npy file of the given dtype
// at path (format version 1.0, or 2.0 if the header needs it). It writes the
// header at once; the rows follow with WriteRows.
func NewWriter[T linalg.Float](path string, dtype Dtype, rows, cols int) (*Writer[T], error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("npy: NewWriter %s: negative dimension %d×%d", path, rows, cols)
	}
	return newNpyWriter[T](path, dtype, []int{rows, cols}, 0)
}

// NewWriterTo is NewWriter writing the .npy stream to w instead of a
// file: Close checks that every row was written and flushes the writer's
// buffer into w, which it does not close; Discard only stops the writer
// (what was written to w stays there).
func NewWriterTo[T linalg.Float](w io.Writer, dtype Dtype, rows, cols int) (*Writer[T], error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("npy: NewWriterTo: negative dimension %d×%d", rows, cols)
	}
	return newNpyStream[T](w, dtype, []int{rows, cols}, 0)
}

func newNpyWriter[T linalg.Float](path string, dtype Dtype, shape []int, version int) (*Writer[T], error) {
	if !dtype.valid() {
		return nil, fmt.Errorf("npy: NewWriter %s: unsupported dtype %v (want Float32 or Float64)", path, dtype)
	}
	out, err := fileSink("Writer", path, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("npy: NewWriter %s: %w", path, err)
	}
	w := &Writer[T]{sink: out}
	if err := w.start(dtype, shape, version); err != nil {
		w.Discard()
		return nil, fmt.Errorf("npy: NewWriter %s: %w", path, err)
	}
	return w, nil
}

func newNpyStream[T linalg.Float](out io.Writer, dtype Dtype, shape []int, version int) (*Writer[T], error) {
	if !dtype.valid() {
		return nil, fmt.Errorf("npy: NewWriterTo: unsupported dtype %v (want Float32 or Float64)", dtype)
	}
	w := &Writer[T]{sink: streamSink("Writer", out, 1<<16)}
	if err := w.start(dtype, shape, version); err != nil {
		w.Discard()
		return nil, fmt.Errorf("npy: NewWriterTo: %w", err)
	}
	return w, nil
}

// start sets the shape and writes the header.
func (w *Writer[T]) start(dtype Dtype, shape []int, version int) error {
	w.dtype, w.rows, w.cols = dtype, 1, shape[len(shape)-1]
	if len(shape) == 2 {
		w.rows = shape[0]
	}
	_, err := w.w.Write(npyHeaderBytes(dtype, shape, version))
	return err
}

// WriteRows appends the rows of m, which must have the writer's number of
// columns, after those already written. Writing more rows than the file
// holds is an error.
func (w *Writer[T]) WriteRows(m linalg.Matrix[T]) error {
	if w.err != nil {
		return w.err
	}
	if w.finished {
		return w.errorf("WriteRows after Close")
	}
	if m.Cols != w.cols {
		return fmt.Errorf("%w: Writer%s: rows have %d columns, the file %d", linalg.ErrShape, w.label(), m.Cols, w.cols)
	}
	if m.Rows > w.rows-w.done {
		return fmt.Errorf("%w: Writer%s: %d more rows would exceed the %d rows of the file (%d written)",
			linalg.ErrShape, w.label(), m.Rows, w.rows, w.done)
	}
	for i := range m.Rows {
		if err := w.writeRow(m.Row(i)); err != nil {
			w.err = w.errorf("%w", err)
			return w.err
		}
	}
	w.done += m.Rows
	return nil
}

func (w *Writer[T]) writeRow(row []T) error {
	if len(row) == 0 {
		return nil
	}
	if w.dtype == DtypeOf[T]() && nativeLittle {
		_, err := w.w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&row[0])), len(row)*w.dtype.Size()))
		return err
	}
	es := w.dtype.Size()
	if w.buf == nil {
		w.buf = make([]byte, 1<<16)
	}
	for len(row) > 0 {
		n := min(len(row), len(w.buf)/es)
		b := w.buf[:n*es]
		if w.dtype == Float64 {
			for i, v := range row[:n] {
				putLE64(b[8*i:], math.Float64bits(float64(v)))
			}
		} else {
			for i, v := range row[:n] {
				putLE32(b[4*i:], math.Float32bits(float32(v)))
			}
		}
		if _, err := w.w.Write(b); err != nil {
			return err
		}
		row = row[n:]
	}
	return nil
}

func putLE64(b []byte, v uint64) {
	_ = b[7]
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

func putLE32(b []byte, v uint32) {
	_ = b[3]
	for i := range 4 {
		b[i] = byte(v >> (8 * i))
	}
}

// Close finishes the file: it checks that every row was written, flushes,
// and, for a file, syncs and renames the temporary file to the path
// (internal/atomicfile). On any error the temporary file is removed and
// nothing appears at the path. Close after Close or Discard does nothing.
func (w *Writer[T]) Close() error {
	if w.finished {
		return nil
	}
	err := w.err
	if err == nil && w.done != w.rows {
		err = w.errorf("closed after %d of %d rows", w.done, w.rows)
	}
	return w.close(err)
}

// Discard abandons the file: the temporary file is removed and nothing is
// written at the path (a stream's writer only stops). Discard after Close
// does nothing, so it can be deferred.
func (w *Writer[T]) Discard() { w.discard() }

// Write writes m to path as a 2-D .npy file of T's dtype, atomically
// (temporary file, sync, rename).
func Write[T linalg.Float](path string, m linalg.Matrix[T]) error {
	w, err := NewWriter[T](path, DtypeOf[T](), m.Rows, m.Cols)
	if err != nil {
		return err
	}
	return w.writeAll(m)
}

// WriteVector writes v to path as a 1-D .npy file of T's dtype,
// atomically.
func WriteVector[T linalg.Float](path string, v []T) error {
	return writeNpyVersion(path, []int{len(v)}, v, 0)
}

// WriteTo writes m to w as a 2-D .npy stream of T's dtype, the bytes
// Write writes to a file.
func WriteTo[T linalg.Float](w io.Writer, m linalg.Matrix[T]) error {
	nw, err := NewWriterTo[T](w, DtypeOf[T](), m.Rows, m.Cols)
	if err != nil {
		return err
	}
	return nw.writeAll(m)
}

// WriteVectorTo writes v to w as a 1-D .npy stream of T's dtype, the
// bytes WriteVector writes to a file.
func WriteVectorTo[T linalg.Float](w io.Writer, v []T) error {
	nw, err := newNpyStream[T](w, DtypeOf[T](), []int{len(v)}, 0)
	if err != nil {
		return err
	}
	return nw.writeAll(linalg.Matrix[T]{Rows: 1, Cols: len(v), Stride: len(v), Data: v})
}

// writeNpyVersion writes data with the given shape and format version (0:
// automatic); the tests use it to produce every version.
func writeNpyVersion[T linalg.Float](path string, shape []int, data []T, version int) error {
	w, err := newNpyWriter[T](path, DtypeOf[T](), shape, version)
	if err != nil {
		return err
	}
	return w.writeAll(linalg.Matrix[T]{Rows: w.rows, Cols: w.cols, Stride: w.cols, Data: data})
}

// writeAll writes m, all the rows, and closes the writer.
func (w *Writer[T]) writeAll(m linalg.Matrix[T]) error {
	defer w.Discard()
	if err := w.WriteRows(m); err != nil {
		return err
	}
	return w.Close()
}

// MappedMatrix is a matrix read from a .npy file by OpenMmap. Its
// elements live in a private copy-on-write memory mapping of the file when
// Mapped reports true: writes to them change this process's view only,
// never the file. Close releases the mapping; the linalg.Matrix must not be used
// after Close.
type MappedMatrix[T linalg.Float] struct {
	linalg.Matrix[T]
	unmap func() error
}

// Mapped reports whether the elements are memory-mapped rather than read
// into memory.
func (m *MappedMatrix[T]) Mapped() bool { return m.unmap != nil }

// Close releases the mapping (if any). It is safe to call more than once.
func (m *MappedMatrix[T]) Close() error {
	m.Matrix = linalg.Matrix[T]{}
	if m.unmap == nil {
		return nil
	}
	err := m.unmap()
	m.unmap = nil
	return err
}

// OpenMmap opens a .npy file as Read does but, for large files,
// without reading it: when the file's dtype is T, its byte order is this
// machine's and the system supports it (unix), the matrix is a view of a
// memory mapping of the file, paged in on use. Otherwise (other systems, a
// dtype or byte order needing conversion, misaligned data) it falls back to
// reading the file into memory; Mapped says which happened.
func OpenMmap[T linalg.Float](path string) (*MappedMatrix[T], error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, fileErr("OpenMmap", path, err)
	}
	defer f.Close()
	h, err := parseNpyHeader(bufio.NewReader(f), size)
	if err != nil {
		return nil, fileErr("OpenMmap", path, err)
	}
	n := h.Len()
	if n > 0 && h.Dtype == DtypeOf[T]() && h.BigEndian != nativeLittle && h.DataOffset%int64(h.Dtype) == 0 &&
		size == int64(int(size)) {
		b, unmap, err := mmapFile(f, int(size))
		if err == nil {
			data := unsafe.Slice((*T)(unsafe.Pointer(&b[h.DataOffset])), n)
			m := linalg.Matrix[T]{Rows: h.Rows(), Cols: h.Cols(), Stride: h.Cols(), Data: data}
			return &MappedMatrix[T]{Matrix: m, unmap: unmap}, nil
		}
		if !errors.Is(err, errMmapUnsupported) {
			return nil, fileErr("OpenMmap", path, err)
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fileErr("OpenMmap", path, err)
	}
	m, err := readNpy[T](f, size)
	if err != nil {
		return nil, fileErr("OpenMmap", path, err)
	}
	return &MappedMatrix[T]{Matrix: m}, nil
}

var errMmapUnsupported = errors.New("memory mapping is not supported on this system")
