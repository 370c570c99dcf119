package atomicfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// WriteFile replaces a file only when the whole new content is written: a
// writer that fails leaves the old file as it was.
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "atomicfile-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "result.txt")

	_ = atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "first result\n")
		return err
	})
	err = atomicfile.WriteFile(path, func(w io.Writer) error {
		io.WriteString(w, "half of a second")
		return fmt.Errorf("the computation failed")
	})
	fmt.Println("second write:", err)
	b, _ := os.ReadFile(path)
	fmt.Print("file holds: ", string(b))
	// Output:
	// second write: the computation failed
	// file holds: first result
}
