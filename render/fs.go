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
