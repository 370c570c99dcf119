package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/ntksvm/ntksvm/asm"
)

func runCPU(_ context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "cpu", "[-list]")
	list := fs.Bool("list", false, "print only the names of the kernel sets this CPU can run, best first")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *list {
		for _, n := range kernelNames() {
			fmt.Fprintln(e.stdout, n)
		}
		return nil
	}
	c := &cpuid.CPU
	w := e.stdout
	fmt.Fprintf(w, "cpu:        %s\n", nonEmpty(c.BrandName, "unknown"))
	fmt.Fprintf(w, "arch:       %s/%s, %d logical CPUs (GOMAXPROCS %d), %d physical cores\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), c.PhysicalCores)
	if c.Hz > 0 {
		fmt.Fprintf(w, "frequency:  %.2f GHz (reported)\n", float64(c.Hz)/1e9)
	}
	fmt.Fprintf(w, "simd:       %s\n", strings.Join(simdFeatures(), " "))
	fmt.Fprintf(w, "caches:     L1d %s, L2 %s, L3 %s, line %d B\n",
		size(c.Cache.L1D), size(c.Cache.L2), size(c.Cache.L3), c.CacheLine)
	fmt.Fprintf(w, "kernels:    %s (available: %s)\n", asm.Implementation(), strings.Join(kernelNames(), ", "))
	k := asm.Active()
	m32, n32 := k.Tile32()
	m64, n64 := k.Tile64()
	fmt.Fprintf(w, "tiles:      float32 %d×%d, float64 %d×%d (needs: %s)\n", m32, n32, m64, n64, k.Features())
	return nil
}

// simdFeatures lists the detected features that matter to ntksvm's kernels.
func simdFeatures() []string {
	var s []string
	for _, f := range []struct {
		id   cpuid.FeatureID
		name string
	}{
		{cpuid.SSE2, "SSE2"}, {cpuid.AVX, "AVX"}, {cpuid.AVX2, "AVX2"}, {cpuid.FMA3, "FMA3"},
		{cpuid.AVX512F, "AVX512F"}, {cpuid.AVX512DQ, "AVX512DQ"}, {cpuid.AVX512BW, "AVX512BW"},
		{cpuid.AVX512VL, "AVX512VL"}, {cpuid.ASIMD, "ASIMD"}, {cpuid.FPHP, "FPHP"},
		{cpuid.SVE, "SVE"},
	} {
		if cpuid.CPU.Supports(f.id) {
			s = append(s, f.name)
		}
	}
	if len(s) == 0 {
		s = append(s, "none detected")
	}
	return s
}

func size(b int) string {
	switch {
	case b <= 0:
		return "unknown"
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	default:
		return fmt.Sprintf("%d KiB", b>>10)
	}
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
