package render

import (
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
