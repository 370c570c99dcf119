package svm

import (
	"strings"
	"testing"
)

// TestEachLineLimit: eachLine reads lines up to its limit, across the
// reader's 1 MiB buffer, and refuses a longer one naming the file and line.
func TestEachLineLimit(t *testing.T) {
	big := strings.Repeat("a", 2_500_000) // past the reader's buffer twice
	for _, tc := range []struct {
		name  string
		text  string
		limit int
		lines []int // lengths of the lines read
		err   string
	}{
		{"short lines", "ab\ncd\r\ne", 10, []int{2, 2, 1}, ""},
		{"a line at the limit", "0123456789\nx\n", 11, []int{10, 1}, ""},
		{"a line over the limit", "x\n0123456789\n", 10, []int{1}, "f:2: the line is longer than 10 B"},
		{"a long line within", "x\n" + big + "\ny", 3_000_000, []int{1, 2_500_000, 1}, ""},
		{"a long line over", "x\n" + big + "\ny", 1_500_000, []int{1}, "f:2: the line is longer than 1.4 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			err := eachLine(strings.NewReader(tc.text), "f", tc.limit, func(_ int, text string) error {
				got = append(got, len(text))
				return nil
			})
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if len(got) != len(tc.lines) {
				t.Fatalf("line lengths %v, want %v", got, tc.lines)
			}
			for i := range got {
				if got[i] != tc.lines[i] {
					t.Fatalf("line lengths %v, want %v", got, tc.lines)
				}
			}
		})
	}
}
