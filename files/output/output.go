// Package output writes what the render engine produces: one stream, one file
// per object under a directory (-o DIR), or a comparison with such a
// directory (--check DIR). Files go through a filesys.FileSystem so that
// tests can run on a file system in memory and make it fail on purpose.
package output

import (
	"context"
	"io"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/render"
)

// DefaultSpoolMemory is how much of a stream is held in memory before the
// rest goes to a temporary file: a fleet's stream may not fit in memory.
const DefaultSpoolMemory = 32 << 20

// Writer writes renders through FS. The zero value uses the real file system.
type Writer struct {
	FS          filesys.FileSystem
	SpoolMemory int // 0: DefaultSpoolMemory
	// Guard is what -o DIR must not replace besides files krender did not
	// write; the zero value guards the process's working directory.
	Guard Guard
	// Context stops a write at the next file when it is cancelled (the
	// CLI cancels it on SIGINT and SIGTERM): what the write created is
	// removed, DIR stays as it was, and the error is context.Cause. nil:
	// never stopped.
	Context context.Context
}

func (w Writer) fs() filesys.FileSystem {
	if w.FS == nil {
		return filesys.OS
	}
	return w.FS
}

// stopped is why the write must stop, or nil while it may go on.
func (w Writer) stopped() error {
	if w.Context == nil || w.Context.Err() == nil {
		return nil
	}
	return context.Cause(w.Context)
}

func (w Writer) spoolMemory() int {
	if w.SpoolMemory <= 0 {
		return DefaultSpoolMemory
	}
	return w.SpoolMemory
}

// WriteStream is Writer{}.WriteStream: the stream, spooled on the real file
// system when large.
func WriteStream(e *render.Engine, out io.Writer) (*render.Result, error) {
	return Writer{}.WriteStream(e, out)
}
