package mnist

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"strings"
)

// ErrFormat is wrapped by every error about a malformed IDX file: bad magic
// or type code, truncation, trailing bytes, labels out of range, and so on.
var ErrFormat = errors.New("invalid IDX file")

// IDX is a parsed IDX file whose elements are unsigned bytes (type code
// 0x08), the only type MNIST uses.
type IDX struct {
	Dims   []int    // size of each dimension, outermost first
	Data   []byte   // the elements in row-major order; len(Data) is the product of Dims
	Gzip   bool     // the input was gzip-compressed
	SHA256 [32]byte // checksum of the uncompressed bytes (header and data)
}

// maxDims bounds the dimension count Read accepts; the format allows 255,
// but no dataset uses more than a handful.
const maxDims = 16

// maxElems bounds the element count Read accepts (1 PiB), whatever the
// platform's int size; what a file can really hold is bounded by reading.
const maxElems = 1 << 50

// growChunk is the first buffer size when the input size is unknown: the
// buffer then doubles only as data actually arrives.
const growChunk = 64 << 10

// gzipMagic starts every gzip stream.
var gzipMagic = [2]byte{0x1f, 0x8b}

// idxTypes names the IDX type codes; only 0x08 is supported.
var idxTypes = map[byte]string{
	0x08: "unsigned byte", 0x09: "signed byte", 0x0B: "16-bit integer",
	0x0C: "32-bit integer", 0x0D: "32-bit float", 0x0E: "64-bit float",
}

// Read parses an IDX file of unsigned bytes from r, raw or gzip-compressed:
// a stream starting with the gzip magic bytes 1f 8b is decompressed. size is
// the number of bytes r holds, or -1 if unknown; for raw input a known size
// is checked against the header before anything is allocated. Without it,
// and for gzip input, memory grows only as data arrives, so a header that
// claims more data than the input holds fails after reading the input, not
// by exhausting memory.
//
// Errors wrap ErrFormat and say what is wrong; they do not name the input
// (ReadFile adds the file name).
func Read(r io.Reader, size int64) (*IDX, error) { return read(r, size, "", 0) }

// read is Read for a file of kind ("" for any) that must have want
// dimensions (0 for any): a file of another kind is refused by its magic
// number, before its dimensions are read.
func read(r io.Reader, size int64, kind string, want int) (*IDX, error) {
	br := bufio.NewReaderSize(r, 32<<10)
	m, _ := br.Peek(2)
	gz := len(m) == 2 && m[0] == gzipMagic[0] && m[1] == gzipMagic[1]
	var src io.Reader = br
	if gz {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip header: %v", ErrFormat, err)
		}
		defer zr.Close()
		src = zr
		size = -1 // the compressed size does not bound the content
	}
	f := &IDX{Gzip: gz}
	h := newAsyncHash()
	defer h.stop()

	var magic [4]byte
	if n, err := io.ReadFull(src, magic[:]); err != nil {
		return nil, readErr(err, gz, fmt.Sprintf("truncated: %d bytes, too short for the 4-byte magic number", n))
	}
	h.Write(magic[:])
	if magic[0] != 0 || magic[1] != 0 {
		return nil, fmt.Errorf("%w: bad magic number 0x%08x: an IDX file starts with two zero bytes",
			ErrFormat, binary.BigEndian.Uint32(magic[:]))
	}
	if t := magic[2]; t != 0x08 {
		if name, ok := idxTypes[t]; ok {
			return nil, fmt.Errorf("%w: type code 0x%02X (%s) is not supported; only 0x08 (unsigned byte)", ErrFormat, t, name)
		}
		return nil, fmt.Errorf("%w: unknown type code 0x%02X in magic number 0x%08x (want 0x08, unsigned byte)",
			ErrFormat, t, binary.BigEndian.Uint32(magic[:]))
	}
	nd := int(magic[3])
	if want != 0 && nd != want {
		other := ""
		switch nd {
		case 1:
			other = " (that of a label file)"
		case 3:
			other = " (that of an image file)"
		}
		return nil, fmt.Errorf("%w: magic number 0x%08x has %d dimensions%s; %s file has %d (magic 0x%08x)",
			ErrFormat, binary.BigEndian.Uint32(magic[:]), nd, other, kind, want, 0x800+want)
	}
	if nd == 0 || nd > maxDims {
		return nil, fmt.Errorf("%w: %d dimensions (want 1…%d)", ErrFormat, nd, maxDims)
	}
	hdr := make([]byte, 4*nd)
	if n, err := io.ReadFull(src, hdr); err != nil {
		return nil, readErr(err, gz, fmt.Sprintf("truncated header: %d dimensions need %d bytes of sizes, got %d", nd, 4*nd, n))
	}
	h.Write(hdr)
	total := uint64(1)
	f.Dims = make([]int, nd)
	for i := range f.Dims {
		d := uint64(binary.BigEndian.Uint32(hdr[4*i:]))
		f.Dims[i] = int(d)
		if d != 0 && total > min(maxElems, math.MaxInt)/d {
			return nil, fmt.Errorf("%w: dimensions %s hold more than %d elements", ErrFormat, dimString(readDims(hdr)), uint64(maxElems))
		}
		total *= d
	}
	n := int(total)
	hlen := int64(4 + 4*nd)
	if size >= 0 {
		switch have := size - hlen; {
		case have < int64(n):
			return nil, fmt.Errorf("%w: truncated: the header promises %s = %d data bytes but the file holds %d",
				ErrFormat, dimString(f.Dims), n, max(have, 0))
		case have > int64(n):
			return nil, fmt.Errorf("%w: %d trailing bytes after the %s = %d data bytes the header promises",
				ErrFormat, have-int64(n), dimString(f.Dims), n)
		}
	}

	var err error
	f.Data, err = readData(src, n, size >= 0, h.write)
	if err != nil && len(f.Data) == n {
		// All the data arrived, then the gzip stream failed.
		return nil, readErr(err, gz, gzipTail)
	}
	if err != nil {
		return nil, readErr(err, gz, fmt.Sprintf("truncated: the header promises %s = %d data bytes but only %d follow",
			dimString(f.Dims), n, len(f.Data)))
	}
	if t, err := countTrailing(src); err != nil {
		return nil, readErr(err, gz, gzipTail)
	} else if t > 0 {
		more := ""
		if t > maxTrailingCount {
			more = "more than "
			t = maxTrailingCount
		}
		return nil, fmt.Errorf("%w: %s%d trailing bytes after the %s = %d data bytes the header promises",
			ErrFormat, more, t, dimString(f.Dims), n)
	}
	f.SHA256 = h.sum()
	return f, nil
}

// gzipTail describes a gzip stream that fails after all the data arrived.
const gzipTail = "the gzip stream is damaged after the data: cut short before its checksum trailer, or followed by stray bytes"

// readData reads the n data bytes, passing each piece to consume as soon as
// it arrives (consume must not modify it). If exact, the input is known to
// hold them and the buffer is allocated at once; otherwise it grows as data
// arrives. On error it returns what it read so far, which can be all n bytes
// when the error came with the last of them.
func readData(r io.Reader, n int, exact bool, consume func([]byte)) ([]byte, error) {
	var buf []byte
	if exact {
		buf = make([]byte, 0, n)
	} else {
		buf = make([]byte, 0, min(n, growChunk))
	}
	done := 0 // bytes passed to consume
	for len(buf) < n {
		if len(buf) == cap(buf) {
			// The old array stays valid for consume: it is never written again.
			nb := make([]byte, len(buf), min(n, 2*cap(buf)))
			copy(nb, buf)
			buf = nb
		}
		k, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+readPiece)])
		buf = buf[:len(buf)+k]
		if len(buf)-done >= readPiece || len(buf) == n {
			consume(buf[done:])
			done = len(buf)
		}
		if err == io.EOF && len(buf) < n {
			return buf, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return buf, err
		}
	}
	return buf, nil
}

// readPiece is the most readData reads at once, and so the granularity at
// which the checksum overlaps reading.
const readPiece = 1 << 20

// asyncHash computes a SHA-256 checksum in its own goroutine, so that
// hashing overlaps reading and decompression.
type asyncHash struct {
	h       hash.Hash
	ch      chan []byte
	done    chan struct{}
	stopped bool
}

func newAsyncHash() *asyncHash {
	a := &asyncHash{h: sha256.New(), ch: make(chan []byte, 64), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for b := range a.ch {
			a.h.Write(b)
		}
	}()
	return a
}

// write queues b, which must not be modified afterwards.
func (a *asyncHash) write(b []byte) { a.ch <- b }

// Write queues a copy of b for hashing.
func (a *asyncHash) Write(b []byte) { a.write(bytes.Clone(b)) }

// stop ends the goroutine; later calls do nothing.
func (a *asyncHash) stop() {
	if !a.stopped {
		a.stopped = true
		close(a.ch)
		<-a.done
	}
}

// sum waits for everything queued and returns the checksum.
func (a *asyncHash) sum() [32]byte {
	a.stop()
	var s [32]byte
	a.h.Sum(s[:0])
	return s
}

// maxTrailingCount bounds how many trailing bytes are counted for the error.
const maxTrailingCount = 1 << 20

// countTrailing reads r to its end (which makes a gzip reader verify its
// checksum) and returns how many bytes were left, counting at most
// maxTrailingCount+1.
func countTrailing(r io.Reader) (int64, error) {
	var one [1]byte
	k, err := io.ReadFull(r, one[:])
	if k == 0 {
		if err == io.EOF {
			return 0, nil
		}
		return 0, err
	}
	// A gzip stream that fails after yielding more bytes is corrupt, which
	// says more than that it has trailing bytes.
	t, err := io.Copy(io.Discard, io.LimitReader(r, maxTrailingCount))
	if err != nil && isGzipErr(err) {
		return 1 + t, err
	}
	return 1 + t, nil
}

// readErr turns an error of the underlying reader into a format error: a
// short read becomes msg, anything the gzip decoder reports is named as such.
func readErr(err error, gz bool, msg string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s", ErrFormat, msg)
	}
	if gz && isGzipErr(err) {
		return fmt.Errorf("%w: corrupt gzip stream: %v (%s)", ErrFormat, err, strings.TrimPrefix(msg, "truncated: "))
	}
	return err // an I/O error, not a format problem
}

// isGzipErr reports whether err comes from the gzip or flate decoder rather
// than the underlying reader.
func isGzipErr(err error) bool {
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		return true
	}
	s := err.Error()
	return strings.HasPrefix(s, "flate:") || strings.HasPrefix(s, "gzip:")
}

// readDims decodes the dimension sizes in an IDX header after the magic.
func readDims(hdr []byte) []int {
	d := make([]int, len(hdr)/4)
	for i := range d {
		d[i] = int(binary.BigEndian.Uint32(hdr[4*i:]))
	}
	return d
}

// dimString formats dims as "60000×28×28".
func dimString(dims []int) string {
	var b strings.Builder
	for i, d := range dims {
		if i > 0 {
			b.WriteString("×")
		}
		fmt.Fprint(&b, d)
	}
	return b.String()
}

// ReadFile reads the IDX file at path with Read. Errors name the file.
func ReadFile(path string) (*IDX, error) { return readFile(path, "", 0) }

// readFile is ReadFile with read's expectation of kind and dimensions.
func readFile(path, kind string, want int) (*IDX, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	f, err := read(fh, size, kind, want)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// EncodeIDX returns an uncompressed IDX file of unsigned bytes (type code
// 0x08) with the given dimensions, outermost first, and data: what Read
// parses. It writes the header and the data as given, without checking
// one against the other, so it also makes the malformed files that Read
// must refuse.
func EncodeIDX(dims []uint32, data []byte) []byte {
	b := make([]byte, 0, 4+4*len(dims)+len(data))
	b = append(b, 0, 0, 0x08, byte(len(dims)))
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}
