// Command krrmem trains exact KRR on the NTK Gram of MNIST 0/1 (float64,
// L = 1, λ = 1, sum objective: c = λ/2) the way a program that does not
// keep the Gram would, so that its peak memory can be measured:
//
//	go build -o /tmp/krrmem ./svm/testdata/krrmem
//	NTKSVM_MNIST_DIR=/path/to/mnist /usr/bin/time -v /tmp/krrmem -mode inplace
//	NTKSVM_MNIST_DIR=/path/to/mnist /usr/bin/time -v /tmp/krrmem -mode copy
//
// -mode copy is svm.KRR on the full Gram (which copies K), -mode inplace
// is a lower-triangle Gram (ntk.Options.Lower) factored by svm.KRRInPlace.
// It prints the number of points, the seconds of each stage, a checksum of
// α and the training accuracy; compare "Maximum resident set size" with
// one Gram, n²·8 bytes (1.28 GB for n = 12,665). -release=false keeps
// the loader's freed memory and the inputs resident, as a program that
// does not hand them back would.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/debug"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

func main() {
	mode := flag.String("mode", "inplace", "copy (svm.KRR) or inplace (svm.KRRInPlace)")
	first := flag.Int("first", 0, "use only the first n training points (0: all)")
	release := flag.Bool("release", true, "hand the loader's garbage back to the system before the Gram, and the inputs after it (debug.FreeOSMemory), as a program that keeps neither would")
	flag.Parse()
	dir := os.Getenv(mnist.EnvDir)
	train, _, err := mnist.LoadBinary[float64](dir, 0, 1, mnist.Options{First: *first})
	if err != nil {
		log.Fatal(err)
	}
	n := train.X.Rows
	y := train.Y
	ctx := context.Background()
	if *release {
		debug.FreeOSMemory() // the decoded files and the test split
	}
	t0 := time.Now()
	k := linalg.New[float64](n, n)
	o := ntk.Options{Lower: *mode == "inplace"}
	if err := ntk.FillGram(ctx, ntk.DefaultSpec(1), train.X, o, k); err != nil {
		log.Fatal(err)
	}
	if *release {
		train = nil
		debug.FreeOSMemory() // the inputs
	}
	t1 := time.Now()
	c := svm.KRRShift(1, svm.ObjectiveSum, n)
	var m *svm.KernelMachine
	switch *mode {
	case "copy":
		m, err = svm.KRR(ctx, svm.NewDense(k), y, c)
	case "inplace":
		m, err = svm.KRRInPlace(ctx, k, y, c)
	default:
		log.Fatalf("-mode %q: want copy or inplace", *mode)
	}
	if err != nil {
		log.Fatal(err)
	}
	t2 := time.Now()
	var sum float64
	correct := 0
	for i, a := range m.Alpha {
		sum += a
		if g := y[i] - c*a; (g > 0) == (y[i] > 0) { // g = Kα = y − cα
			correct++
		}
	}
	fmt.Printf("n=%d mode=%s gram=%.2fs solve=%.2fs sum(alpha)=%.17g train-acc=%.4f gram-bytes=%d\n",
		n, *mode, t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), sum, float64(correct)/float64(n), int64(n)*int64(n)*8)
}
