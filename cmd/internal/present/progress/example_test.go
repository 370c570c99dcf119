package progress_test

import (
	"os"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
)

// In a log (not a terminal), a status line is one plain line per update.
func ExampleStatus() {
	s := progress.NewStatus(os.Stdout, false)
	s.Update("step 1/100 objective 0.5")
	s.Update("step 100/100 objective 0.01")
	s.End()
	// Output:
	// step 1/100 objective 0.5
	// step 100/100 objective 0.01
}
