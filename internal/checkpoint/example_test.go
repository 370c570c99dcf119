package checkpoint_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ntksvm/ntksvm/internal/checkpoint"
)

// A training loop hands its state to the sink every few steps (a
// train.Driver's Recorder does so with the Save of its checkpoint
// records); a later run loads the last one and continues from there.
func ExampleFile() {
	dir, err := os.MkdirTemp("", "checkpoint-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	sink := checkpoint.File(filepath.Join(dir, "run.ckpt"))

	weight := 1.0
	for step := 1; step <= 10; step++ {
		weight *= 0.5
		if step%4 == 0 { // checkpoints after steps 4 and 8
			if err := sink(step, func(w io.Writer) error {
				return binary.Write(w, binary.LittleEndian, [2]float64{float64(step), weight})
			}); err != nil {
				fmt.Println(err)
				return
			}
		}
	}

	var state [2]float64
	err = checkpoint.Load(filepath.Join(dir, "run.ckpt"), func(r io.Reader) error {
		return binary.Read(r, binary.LittleEndian, &state)
	})
	fmt.Println(err, "resume after step", state[0], "with weight", state[1])
	// Output:
	// <nil> resume after step 8 with weight 0.00390625
}
