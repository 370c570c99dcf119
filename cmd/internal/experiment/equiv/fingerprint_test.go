package equiv

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	base := Fingerprint{Format: StateFormat, Run: 1, Config: Config{Seed: 6, Widths: []int{16}, Loss: "hinge"}, Data: "ab12"}
	var buf bytes.Buffer
	if err := writeFingerprint(&buf, base); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("state")
	got, err := readFingerprint(&buf)
	if err != nil || checkFingerprint(got, base) != nil || buf.String() != "state" {
		t.Fatalf("round trip: %+v, %v, rest %q", got, err, buf.String())
	}
	for _, tc := range []struct {
		name   string
		change func(*Fingerprint)
		want   string
	}{
		{"seed", func(f *Fingerprint) { f.Config.Seed = 7 }, `"seed" = 6, config.json has 7`},
		{"widths", func(f *Fingerprint) { f.Config.Widths = []int{32} }, `"widths" = [16], config.json has [32]`},
		{"data", func(f *Fingerprint) { f.Data = "cd34" }, "other data"},
		{"format", func(f *Fingerprint) { f.Format = StateFormat + 1 }, "state format"},
		{"run", func(f *Fingerprint) { f.Run = 2 }, "state of run 1, not run 2"},
	} {
		want := base
		want.Config.Widths = append([]int(nil), base.Config.Widths...)
		tc.change(&want)
		err := checkFingerprint(base, want)
		if !errors.Is(err, ErrFingerprint) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, bad := range []string{"", "NTKSVM-EQUIV-RUN\n", "NTKSVM-EQUIV-RUN\n\xff\xff\xff\xff", "NTKSVM-EQUIV-RUN\n\x02\x00\x00\x00{", "other"} {
		if _, err := readFingerprint(strings.NewReader(bad)); !errors.Is(err, ErrFingerprint) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
