package equiv

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"testing"
)

// FuzzConfig decodes arbitrary bytes as a config.json, as "equiv --resume"
// reads one: it must never panic, and a configuration it accepts must
// parse, list its runs and estimate its memory without panicking.
func FuzzConfig(f *testing.F) {
	for _, name := range []string{"fig1", "figA1"} {
		for _, quick := range []bool{false, true} {
			c, err := Preset(name, quick)
			if err != nil {
				f.Fatal(err)
			}
			b, _ := json.Marshal(c)
			f.Add(b)
		}
	}
	f.Add([]byte(`{"widths":[1],"lrs":[1e308],"steps":9223372036854775807,"seeds":2147483647}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseConfig(b)
		if err != nil {
			return
		}
		if _, err := c.parse(); err != nil {
			return
		}
		if runs := c.Runs(100); len(runs) == 0 {
			t.Fatalf("a valid configuration has no runs: %s", b)
		}
		MemoryNeed(c, 100, 50, 784)
	})
}

// FuzzRunState decodes arbitrary bytes as a run state file (runN.done):
// a fingerprint, then a gob. It must never panic; only a state with this
// run's fingerprint is decoded.
func FuzzRunState(f *testing.F) {
	cfg, err := Preset("fig1", true)
	if err != nil {
		f.Fatal(err)
	}
	fp := Fingerprint{Format: StateFormat, Run: 1, Config: cfg, Data: "ab"}
	var buf bytes.Buffer
	writeFingerprint(&buf, fp)
	gob.NewEncoder(&buf).Encode(&RunResult{RunSpec: RunSpec{Width: 16, LR: 0.1, Steps: 10}, Done: 5})
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:len(fingerprintMagic)+2])
	f.Add([]byte(fingerprintMagic + "\x02\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var rec RunResult
		if err := decodeRunState(bytes.NewReader(b), fp, &rec); err != nil {
			return
		}
		saved, err := readFingerprint(bytes.NewReader(b))
		if err != nil || checkFingerprint(saved, fp) != nil {
			t.Fatalf("decoded a state whose fingerprint does not match: %v", err)
		}
	})
}
