package dataset

import (
	"bytes"
	"testing"
)

// FuzzCSV reads arbitrary bytes as a CSV data file: it must never panic,
// and a data set it accepts has one label per row.
func FuzzCSV(f *testing.F) {
	f.Add([]byte("a,b,label\n1,2,x\n3,4,y\n5,6,x\n"))
	f.Add([]byte("\ufeffa;b;c\r\n1;2;b\r\n3;4;a\r\n"))
	f.Add([]byte("\"x 1\"\t\"y\"\tlab\n1.5\t-2e3\t\"class one\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadCSV(bytes.NewReader(b), "f.csv", Options{})
		if err == nil && len(d.Y) != d.X.Rows {
			t.Fatalf("%d labels for %d rows", len(d.Y), d.X.Rows)
		}
	})
}

// FuzzARFF reads arbitrary bytes as an ARFF data file: it must never
// panic, and a data set it accepts has one label per row.
func FuzzARFF(f *testing.F) {
	f.Add([]byte("@relation r\n@attribute a numeric\n@attribute b real\n@attribute class {x,y}\n@data\n1,2,x\n3,4,y\n"))
	f.Add([]byte("% comment\n@RELATION r\n@ATTRIBUTE a NUMERIC\n@ATTRIBUTE c {p,q}\n@DATA\n{0 1, 1 q}\n?,p\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadARFF(bytes.NewReader(b), "f.arff", Options{})
		if err == nil && len(d.Y) != d.X.Rows {
			t.Fatalf("%d labels for %d rows", len(d.Y), d.X.Rows)
		}
	})
}
