package npy

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// sink is where the bytes of Writer and NpzWriter go, through a buffer:
// a file written atomically (name is its path) or a caller's stream (name
// is "", f is nil). err is sticky: after an error only close and discard
// act.
type sink struct {
	op       string // the writer's type, for messages
	name     string
	f        *atomicfile.File
	w        *bufio.Writer
	err      error
	finished bool
}

// fileSink starts the atomic write of path, buffered by size bytes.
func fileSink(op, path string, size int) (sink, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return sink{}, err
	}
	return sink{op: op, name: path, f: f, w: bufio.NewWriterSize(f, size)}, nil
}

// streamSink buffers writes to w by size bytes.
func streamSink(op string, w io.Writer, size int) sink {
	return sink{op: op, w: bufio.NewWriterSize(w, size)}
}

// label is " path" for a file, "" for a stream.
func (s *sink) label() string {
	if s.name == "" {
		return ""
	}
	return " " + s.name
}

// errorf formats an error of the writer, naming its file if it has one.
func (s *sink) errorf(format string, args ...any) error {
	return fmt.Errorf("npy: %s%s: "+format, append([]any{s.op, s.label()}, args...)...)
}

// close finishes the sink: unless err (an error of the caller's) is
// non-nil, it flushes the buffer and, for a file, syncs and renames it into
// place; on any error a file's temporary file is removed. It returns err or
// the first error of its own.
func (s *sink) close(err error) error {
	s.finished = true
	if err == nil {
		if ferr := s.w.Flush(); ferr != nil {
			err = s.errorf("%w", ferr)
		}
	}
	if s.f == nil {
		return err
	}
	if err != nil {
		s.f.Abort()
		return err
	}
	if err := s.f.Commit(); err != nil {
		return s.errorf("%w", err)
	}
	return nil
}

// discard abandons the sink: a file's temporary file is removed, a stream
// is only left. It does nothing after close or discard.
func (s *sink) discard() {
	if s.finished {
		return
	}
	s.finished = true
	if s.f != nil {
		s.f.Abort()
	}
}
