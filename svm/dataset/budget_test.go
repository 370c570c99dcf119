package dataset

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestLineBudget: a line longer than a fifth of the memory budget is
// refused, naming the file and the line, before it is held whole; lines
// within it are read.
func TestLineBudget(t *testing.T) {
	long := "1 1:0.5 " + strings.Repeat("x", 300_000) + "\n" // one 300 kB line
	for _, tc := range []struct {
		name   string
		read   func(string, Options) (*Dataset, error)
		text   string
		budget int64
		want   string // "" for success
	}{
		{"libsvm within", readLIBSVMString, "1 1:0.5 2:1\n-1 1:2\n", 1 << 20, ""},
		{"libsvm long line", readLIBSVMString, "1 1:0.5\n-1 1:2\n" + long, 1 << 20, "f: line 3 is longer than 204 KiB, the most the memory budget allows"},
		{"libsvm no budget", readLIBSVMString, "1 1:0.5\n" + strings.Repeat(" ", 300_000) + "-1 1:2\n", 0, ""},
		// 4096 lines of 20 entries: 1.25 MiB of entries, 640 KiB dense.
		{"libsvm entries over the budget", readLIBSVMString, strings.Repeat("1"+entries(20)+"\n", 4100), 1 << 20, "the 81920 features given up to line 4096 need 1 MiB, more than the 1 MiB allowed"},
		{"arff long line", readARFFString, "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\n" + long, 1 << 20, "f: line 6 is longer than 204 KiB"},
		{"arff within", readARFFString, "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\n2,y\n", 1 << 20, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.read(tc.text, Options{MaxBytes: tc.budget})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.want == "" && len(d.Y) != 2:
				t.Fatalf("%d rows, want 2", len(d.Y))
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrData)):
				t.Fatalf("error %v, want ErrData with %q", err, tc.want)
			}
		})
	}
}

// entries returns n LIBSVM entries "1:1 2:1 …".
func entries(n int) string {
	var b strings.Builder
	for j := 1; j <= n; j++ {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(j) + ":1")
	}
	return b.String()
}

func readLIBSVMString(s string, o Options) (*Dataset, error) {
	return ReadLIBSVM(strings.NewReader(s), "f", o)
}

func readARFFString(s string, o Options) (*Dataset, error) {
	return ReadARFF(strings.NewReader(s), "f", o)
}
