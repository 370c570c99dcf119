package asm

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	// A name every build knows but this CPU or build cannot run.
	foreign := "neon"
	if runtime.GOARCH == "arm64" {
		foreign = "avx512"
	}
	if Lookup(foreign) != nil {
		t.Fatalf("%s is available on %s", foreign, runtime.GOARCH)
	}
	for _, tc := range []struct {
		in      string
		want    string // kernel set name; "" for an error
		errHas  []string
		comment string
	}{
		{in: "", want: available[0].name},
		{in: "auto", want: available[0].name},
		{in: " AUTO ", want: available[0].name},
		{in: "generic", want: "generic"},
		{in: "Generic", want: "generic"},
		{in: "GENERIC\n", want: "generic"},
		{in: "sse9", errHas: []string{`"sse9"`, "not a kernel set", "generic"}},
		{in: "avx", errHas: []string{`"avx"`, "not a kernel set"}},
		{in: foreign, errHas: []string{foreign, "cannot run", "available", "generic"}},
		{in: strings.ToUpper(foreign), errHas: []string{foreign, "cannot run"}},
	} {
		k, err := choose(tc.in)
		if tc.want != "" {
			if err != nil || k == nil || k.name != tc.want {
				t.Errorf("choose(%q) = %v, %v; want %s", tc.in, k, err, tc.want)
			}
			continue
		}
		if err == nil || k != nil {
			t.Errorf("choose(%q) = %v, nil; want an error", tc.in, k)
			continue
		}
		for _, s := range tc.errHas {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("choose(%q) error %q does not mention %q", tc.in, err, s)
			}
		}
	}
	// Every available set can be chosen by its name, in any case.
	for _, k := range available {
		for _, name := range []string{k.name, strings.ToUpper(k.name)} {
			if got, err := choose(name); err != nil || got != k {
				t.Errorf("choose(%q) = %v, %v", name, got, err)
			}
		}
	}
}

func TestAvailable(t *testing.T) {
	av := Available()
	if len(av) == 0 || av[len(av)-1] != generic {
		t.Fatalf("Available() = %v: want generic last", names())
	}
	seen := map[string]bool{}
	for _, k := range av {
		if seen[k.name] {
			t.Errorf("%s listed twice", k.name)
		}
		seen[k.name] = true
		if Lookup(k.name) != k {
			t.Errorf("Lookup(%q) is not the listed set", k.name)
		}
		known := false
		for _, n := range knownNames {
			known = known || n == k.name
		}
		if !known {
			t.Errorf("%s is not in knownNames", k.name)
		}
		if k.Name() != k.name || k.Features() == "" {
			t.Errorf("%s: Name %q, Features %q", k.name, k.Name(), k.Features())
		}
	}
	av[0] = nil // a copy: the package's list is unchanged
	if available[0] == nil {
		t.Fatal("Available returned the package's own slice")
	}
	if Lookup("nonesuch") != nil {
		t.Error("Lookup(nonesuch) != nil")
	}
}

// TestActive checks the choice made at start-up against NTKSVM_SIMD as the
// test process sees it (make test-impls runs the tests once per set).
func TestActive(t *testing.T) {
	env := os.Getenv("NTKSVM_SIMD")
	want, err := choose(env)
	if err != nil {
		if Check() == nil || Check().Error() != err.Error() {
			t.Fatalf("NTKSVM_SIMD=%q: Check() = %v, want %v", env, Check(), err)
		}
		want = available[0]
	} else if Check() != nil {
		t.Fatalf("NTKSVM_SIMD=%q: Check() = %v", env, Check())
	}
	if Active() != want || Implementation() != want.name {
		t.Fatalf("NTKSVM_SIMD=%q: active %s, want %s", env, Implementation(), want.name)
	}
}

// TestEnvOverride runs this test binary again with NTKSVM_SIMD set, to
// prove that the variable is read at start-up: the child reports its
// Implementation and Check through TestEnvOverrideChild.
func TestEnvOverride(t *testing.T) {
	if os.Getenv("NTKSVM_ASM_CHILD") != "" {
		t.Skip("in the child")
	}
	if testing.Short() {
		t.Skip("starts subprocesses; -short (e.g. under qemu) skips it")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no executable:", err)
	}
	last := available[len(available)-1].name // differs from the default when there is assembly
	for _, tc := range []struct{ env, want string }{
		{"generic", "impl=generic check=<nil>"},
		{strings.ToUpper(last), "impl=" + last + " check=<nil>"},
		{"bogus", "impl=" + available[0].name + " check=asm: NTKSVM_SIMD=\"bogus\" is not a kernel set"},
	} {
		cmd := exec.Command(exe, "-test.run=^TestEnvOverrideChild$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "NTKSVM_SIMD="+tc.env, "NTKSVM_ASM_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("NTKSVM_SIMD=%s: child failed: %v\n%s", tc.env, err, out)
		}
		if !strings.Contains(string(out), "CHILD "+tc.want) {
			t.Errorf("NTKSVM_SIMD=%s: child said\n%s\nwant a line starting %q", tc.env, out, "CHILD "+tc.want)
		}
	}
}

func TestEnvOverrideChild(t *testing.T) {
	if os.Getenv("NTKSVM_ASM_CHILD") == "" {
		t.Skip("only run by TestEnvOverride")
	}
	t.Logf("CHILD impl=%s check=%v", Implementation(), Check())
}
