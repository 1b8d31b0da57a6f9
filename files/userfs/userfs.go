// Package userfs reads files by the paths a user types (relative to the
// working directory, or absolute, "../" allowed) through io/fs, so that
// errors name them as typed; filesys.Dir takes such paths.
// The functions here accept any fs.FS: a file system other than Dir (an
// fstest.MapFS in tests) gets the path cleaned into fs.ValidPath form.
package userfs

import (
	"io"
	"io/fs"
	"path"
	"path/filepath"

	"strings"

	"github.com/krender/krender/files/filesys"
)

// name is the path fsys is asked for: as typed for Dir, else cleaned and
// slash-separated (an in-memory file system's working directory is "."
// with nothing above it).
func name(fsys fs.FS, p string) string {
	if _, ok := fsys.(filesys.Dir); ok {
		return p
	}
	return Clean(p)
}

// Clean is p as an in-memory file system names it: slash-separated,
// cleaned, without a leading "./"; a path leaving "." keeps its "..".
func Clean(p string) string {
	return strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "./")
}

// ReadFile reads the file the user named p.
func ReadFile(fsys fs.FS, p string) ([]byte, error) { return fs.ReadFile(fsys, name(fsys, p)) }

// Stat describes the file the user named p.
func Stat(fsys fs.FS, p string) (fs.FileInfo, error) { return fs.Stat(fsys, name(fsys, p)) }

// ReadDir lists the directory the user named p, sorted by name.
func ReadDir(fsys fs.FS, p string) ([]fs.DirEntry, error) { return fs.ReadDir(fsys, name(fsys, p)) }

// Open opens the file the user named p.
func Open(fsys fs.FS, p string) (fs.File, error) { return fsys.Open(name(fsys, p)) }

// RealPath is p made absolute with every link followed (Dir, or any FS
// with a RealPath method), or cleaned (a file system without links, such
// as fstest.MapFS).
func RealPath(fsys fs.FS, p string) (string, error) {
	if r, ok := fsys.(interface{ RealPath(string) (string, error) }); ok {
		return r.RealPath(p)
	}
	return Clean(p), nil
}

// Abs is p made absolute from fsys's working directory (a FileSystem's
// Getwd), without following links: a key under which two spellings of one
// path compare equal. A file system without a working directory (such as
// fstest.MapFS) gets p cleaned.
func Abs(fsys fs.FS, p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	w, ok := fsys.(interface{ Getwd() (string, error) })
	if !ok {
		return Clean(p), nil
	}
	wd, err := w.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, p), nil
}

// ReadLimited reads files of fsys up to max+1 bytes: enough for the
// parser's limits check to say where a file passes max, without reading a
// huge file whole.
func ReadLimited(fsys fs.FS, max int) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		f, err := Open(fsys, p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, int64(max)+1))
	}
}
