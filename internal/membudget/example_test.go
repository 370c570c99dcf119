package membudget_test

import (
	"fmt"

	"github.com/ntksvm/ntksvm/internal/membudget"
)

// ExampleCheck refuses, before allocating, a dense float64 Gram of 60,000
// points under a 4 GiB budget (--mem 4GiB), saying what it needs.
func ExampleCheck() {
	budget, err := membudget.ParseSize("4GiB")
	if err != nil {
		panic(err)
	}
	n := int64(60000)
	fmt.Println(membudget.Check("the dense Gram of 60000 points", n*n*8, budget, "use the on-demand Gram"))
	// Output:
	// the dense Gram of 60000 points needs 26.8 GiB of memory; the budget is 4.0 GiB: use the on-demand Gram
}
