package svm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/linalg"
)

// WriteLIBSVM writes labels y and the rows of x in LIBSVM's sparse format
// (zeros omitted, shortest round-tripping decimals).
func WriteLIBSVM(w io.Writer, y []float64, x linalg.Matrix[float64]) error {
	if len(y) != x.Rows {
		return inputErr("%d labels for %d points", len(y), x.Rows)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf []byte
	for i := range x.Rows {
		buf = strconv.AppendFloat(buf[:0], y[i], 'g', -1, 64)
		for j, v := range x.Row(i) {
			if v != 0 {
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(j+1), 10)
				buf = append(buf, ':')
				buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
			}
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WritePrecomputed writes the Gram k (n×n) with labels y in LIBSVM's
// precomputed-kernel format (svm-train -t 4): line i is
// "yᵢ 0:i 1:K(i,1) … n:K(i,n)" with the 1-based serial i. Values are the
// shortest decimals that read back to the same float32 or float64
// ('g', −1), so a float64 Gram of n = 12,665 is about 2–3 GB; writes are
// buffered. It returns an error if the shapes do not match or a write fails.
func WritePrecomputed[T linalg.Float](w io.Writer, y []float64, k linalg.Matrix[T]) error {
	if k.Rows != len(y) {
		return inputErr("%d labels for a Gram of %d rows", len(y), k.Rows)
	}
	bits := 64
	var zero T
	if _, ok := any(zero).(float32); ok {
		bits = 32
	}
	bw := bufio.NewWriterSize(w, 4<<20)
	var buf []byte
	for i := range k.Rows {
		buf = strconv.AppendFloat(buf[:0], y[i], 'g', -1, 64)
		buf = append(buf, " 0:"...)
		buf = strconv.AppendInt(buf, int64(i+1), 10)
		for j, v := range k.Row(i) {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, bits)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadPrecomputed reads a file written by WritePrecomputed (or any LIBSVM
// precomputed-kernel training file whose line i has the serial 0:i and
// all n columns): the labels and the n×n kernel.
func ReadPrecomputed(r io.Reader, name string) ([]float64, linalg.Matrix[float64], error) {
	var y []float64
	var data []float64
	n := -1
	err := eachLine(r, name, maxLineBytes(), func(line int, text string) error {
		fields := strings.Fields(text)
		if len(fields) < 2 {
			return fmt.Errorf("%s:%d: want \"label 0:serial 1:K …\"", name, line)
		}
		if n < 0 {
			n = len(fields) - 2
		}
		if len(fields)-2 != n {
			return fmt.Errorf("%s:%d: %d kernel values, the first line has %d", name, line, len(fields)-2, n)
		}
		if len(y) >= n {
			return fmt.Errorf("%s:%d: more rows than the %d columns", name, line, n)
		}
		v, err := parseFinite(fields[0])
		if err != nil {
			return fmt.Errorf("%s:%d: label: %v", name, line, err)
		}
		y = append(y, v)
		if fields[1] != "0:"+strconv.Itoa(line) {
			return fmt.Errorf("%s:%d: %q: want the serial 0:%d", name, line, fields[1], line)
		}
		for j, f := range fields[2:] {
			is, vs, ok := strings.Cut(f, ":")
			if !ok || is != strconv.Itoa(j+1) {
				return fmt.Errorf("%s:%d: %q: want %d:value", name, line, f, j+1)
			}
			v, err := parseFinite(vs)
			if err != nil {
				return fmt.Errorf("%s:%d: column %d: %v", name, line, j+1, err)
			}
			data = append(data, v)
		}
		return nil
	})
	if err != nil {
		return nil, linalg.Matrix[float64]{}, err
	}
	if len(y) != max(n, 0) {
		return nil, linalg.Matrix[float64]{}, fmt.Errorf("%s: %d rows for %d columns: not square", name, len(y), n)
	}
	k, err := linalg.FromSlice(len(y), len(y), data)
	return y, k, err
}

// maxLineBytes bounds a line of a LIBSVM file: a fifth of the memory
// budget (the line, its fields and its parsed row take about five times
// its bytes), or 64 MiB where the system does not say what is available.
func maxLineBytes() int {
	if b, ok := membudget.Default(); ok {
		return int(min(max(b/5, 1<<16), math.MaxInt32))
	}
	return 1 << 26
}

// eachLine calls fn for every line of r (1-based numbers, without the
// line end; a final line without a newline counts). A line longer than
// limit bytes is an error naming it, found before more than about limit
// bytes of it are held.
func eachLine(r io.Reader, name string, limit int, fn func(line int, text string) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var buf []byte
	for line := 1; ; line++ {
		buf = buf[:0]
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			if len(buf)+len(frag) > limit {
				return fmt.Errorf("%s:%d: the line is longer than %s, the most the memory budget allows for one line (a fifth of it)", name, line, membudget.Format(int64(limit)))
			}
			buf = append(buf, frag...)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(buf) == 0 && err != nil {
			return nil
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r")
		if ferr := fn(line, text); ferr != nil {
			return ferr
		}
		if err != nil {
			return nil
		}
	}
}

func parseFinite(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}
