package render

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"
)

// FS is what a render reads from. Paths are the user's own (relative to the
// working directory, or absolute), so they appear in errors as typed.
type FS interface {
	ReadFile(name string) ([]byte, error)
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
}

// OSFS reads the real file system.
type OSFS struct{}

func (OSFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (OSFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OSFS) Open(name string) (fs.File, error)          { return os.Open(name) }

// RealPath is name made absolute, symbolic links followed (see loadroot).
func (OSFS) RealPath(name string) (string, error) { return realPath(name) }

// MapFS is an in-memory FS for tests; paths are slash-separated and relative.
type MapFS fstest.MapFS

func (m MapFS) clean(name string) string {
	return strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), "./")
}
func (m MapFS) ReadFile(name string) ([]byte, error)  { return fstest.MapFS(m).ReadFile(m.clean(name)) }
func (m MapFS) Stat(name string) (fs.FileInfo, error) { return fstest.MapFS(m).Stat(m.clean(name)) }
func (m MapFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return fstest.MapFS(m).ReadDir(m.clean(name))
}
func (m MapFS) Open(name string) (fs.File, error) { return fstest.MapFS(m).Open(m.clean(name)) }

// RealPath is name cleaned: a MapFS has no links, and its working directory
// is "." with nothing above it, so a path leaving it keeps its leading "..".
func (m MapFS) RealPath(name string) (string, error) { return m.clean(name), nil }

// DirFS reads the real file system with relative paths taken from dir, so a
// test can run as if in another working directory.
type DirFS string

func (d DirFS) path(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(string(d), name)
}
func (d DirFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(d.path(name)) }
func (d DirFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(d.path(name)) }
func (d DirFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(d.path(name)) }
func (d DirFS) Open(name string) (fs.File, error)          { return os.Open(d.path(name)) }
func (d DirFS) RealPath(name string) (string, error)       { return realPath(d.path(name)) }

func realPath(name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// readLimited reads files of fsys up to max+1 bytes: enough for the parser's
// limits check to say where a file passes max, without reading a huge file
// whole. An FS without Open is read whole.
func readLimited(fsys FS, max int) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		o, ok := fsys.(interface{ Open(string) (fs.File, error) })
		if !ok {
			return fsys.ReadFile(name)
		}
		f, err := o.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, int64(max)+1))
	}
}
