package output_test

import (
	"os"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
)

func ExampleTable() {
	t := output.NewTable("step", "objective")
	t.Row(1, 0.5)
	t.Row(1000000, 1e-3)
	t.WriteTo(os.Stdout)
	output.WriteJSONLine(os.Stdout, map[string]any{"steps": 1000000})
	// Output:
	// step,objective
	// 1,0.5
	// 1000000,0.001
	// {"steps":1000000}
}
