// Package outpath checks the output files of one run of a command before
// the command reads any data: each output can be written (see
// atomicfile.Check: a regular file or a new name, in a writable directory,
// with a valid name), no output is one of the run's input files, and no
// two outputs are the same file. Files are compared by device and inode
// (or, for names yet to be created, by directory and name), never by
// spelling: "X.npy", "./X.npy" and a symbolic link to it are one file.
package outpath

import (
	"errors"
	"fmt"
	"os"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// Path is a file given to a command, with the flag that gave it (for
// messages).
type Path struct {
	Flag string // e.g. "--out"
	Path string
}

// Check returns an error naming the flag and the problem for the first
// output (in order) that cannot be written, is one of the inputs, or is
// the same file as an earlier output. Outputs with an empty Path are
// skipped (flags not given). Inputs that do not exist, or are not
// readable, are skipped too: reading them reports that.
func Check(outputs, inputs []Path) error {
	type seen struct {
		p  Path
		id atomicfile.Ident
	}
	var outs []seen
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		if err := atomicfile.Check(o.Path); err != nil {
			return fmt.Errorf("%s: %w", o.Flag, err)
		}
		id, err := atomicfile.Identity(o.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Flag, err)
		}
		for _, in := range inputs {
			if in.Path == "" {
				continue
			}
			fi, err := os.Stat(in.Path)
			if err != nil {
				continue
			}
			if id.SameFile(fi) {
				return &SameError{Output: o, Other: in, Input: true}
			}
		}
		for _, s := range outs {
			if atomicfile.SameIdentity(s.id, id) {
				return &SameError{Output: o, Other: s.p}
			}
		}
		outs = append(outs, seen{o, id})
	}
	return nil
}

// SameError is an output that is the same file as an input or as another
// output of the run.
type SameError struct {
	Output, Other Path
	Input         bool // Other is an input
}

// Error names both flags and paths.
func (e *SameError) Error() string {
	if e.Input {
		return fmt.Sprintf("%s %s is the same file as the input %s %s: writing it would destroy the input; choose another name",
			e.Output.Flag, e.Output.Path, e.Other.Flag, e.Other.Path)
	}
	return fmt.Sprintf("%s %s is the same file as %s %s: one would overwrite the other; choose different names",
		e.Output.Flag, e.Output.Path, e.Other.Flag, e.Other.Path)
}

// ErrSame matches a *SameError with errors.Is.
var ErrSame = errors.New("output is the same file as another path of the run")

// Is makes errors.Is(err, ErrSame) true for a *SameError.
func (e *SameError) Is(target error) bool { return target == ErrSame }
