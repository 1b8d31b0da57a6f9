package filesys

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is the real file system; relative paths are taken from the directory
// Dir names, the working directory when empty (a test runs as if in another
// working directory with a non-empty Dir). Unlike os.DirFS it takes paths
// as users type them, "../" and absolute ones included, so that errors name
// them as typed.
type Dir string

// OS is the real file system seen from the working directory.
const OS = Dir("")

var _ FileSystem = OS

func (d Dir) path(name string) string {
	if d == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(string(d), name)
}

func (d Dir) Open(name string) (fs.File, error)          { return os.Open(d.path(name)) }
func (d Dir) ReadFile(name string) ([]byte, error)       { return os.ReadFile(d.path(name)) }
func (d Dir) Stat(name string) (fs.FileInfo, error)      { return os.Stat(d.path(name)) }
func (d Dir) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(d.path(name)) }
func (d Dir) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(d.path(name)) }

func (d Dir) RealPath(name string) (string, error) {
	abs, err := filepath.Abs(d.path(name))
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

func (d Dir) Getwd() (string, error) {
	if d == "" {
		return os.Getwd()
	}
	return filepath.Abs(string(d))
}

func (d Dir) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(d.path(name), perm) }

func (d Dir) MkdirTemp(dir, pattern string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", pattern)
	}
	return os.MkdirTemp(d.path(dir), pattern)
}

func (d Dir) CreateTemp(dir, pattern string) (File, error) {
	if dir != "" {
		dir = d.path(dir)
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err // not a File holding a nil *os.File
	}
	return f, nil
}

func (d Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return os.WriteFile(d.path(name), data, perm)
}

func (d Dir) Chmod(name string, mode fs.FileMode) error { return os.Chmod(d.path(name), mode) }

func (d Dir) Rename(oldname, newname string) error {
	return os.Rename(d.path(oldname), d.path(newname))
}

func (d Dir) Remove(name string) error    { return os.Remove(d.path(name)) }
func (d Dir) RemoveAll(name string) error { return os.RemoveAll(d.path(name)) }
