// Command samemodel reports whether two ntksvm model files hold the same
// model: every field and every coefficient bit for bit, except the solver's
// wall time (Fit.Seconds), which no two runs share. It exits 0 if they do,
// 1 if not (naming the first difference) and 2 on a bad file.
//
//	go run ./cmd/ntksvm/testdata/slurm/samemodel A.ntksvm B.ntksvm
package main

import (
	"bytes"
	"fmt"
	"math"
	"os"

	"github.com/ntksvm/ntksvm/svm"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: samemodel A B")
		os.Exit(2)
	}
	var enc [2][]byte
	var models [2]*svm.Model
	for i, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "samemodel:", err)
			os.Exit(2)
		}
		m, err := svm.ReadModel(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "samemodel: %s: %v\n", path, err)
			os.Exit(2)
		}
		m.Fit.Seconds = 0
		var b bytes.Buffer
		if err := svm.WriteModel(&b, m); err != nil {
			fmt.Fprintf(os.Stderr, "samemodel: %s: %v\n", path, err)
			os.Exit(2)
		}
		enc[i], models[i] = b.Bytes(), m
	}
	if !bytes.Equal(enc[0], enc[1]) {
		a, b := models[0].Alpha, models[1].Alpha
		for i := range min(len(a), len(b)) {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				fmt.Printf("different models: α[%d] = %v and %v\n", i, a[i], b[i])
				os.Exit(1)
			}
		}
		fmt.Printf("different models: %d and %d coefficients, or another field differs\n", len(a), len(b))
		os.Exit(1)
	}
	fmt.Printf("same model: %d coefficients and every field bit for bit (solver time aside)\n", len(models[0].Alpha))
}
