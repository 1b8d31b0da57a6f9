// Package userfs reads files by the paths a user types (relative to the
// working directory, or absolute, "../" allowed), so that errors name them
// as typed. The file system takes the path as typed, as every
// filesys.Reader does (filesys.Dir, filesys.Mem, gitfs.FS), and says itself
// where relative paths start (Getwd): nothing here asks which file system
// it was given.
package userfs

import (
	"io"
	"io/fs"
	"path/filepath"

	"github.com/krender/krender/files/filesys"
)

// ReadFile reads the file the user named p.
func ReadFile(fsys fs.FS, p string) ([]byte, error) { return fs.ReadFile(fsys, p) }

// Stat describes the file the user named p.
func Stat(fsys fs.FS, p string) (fs.FileInfo, error) { return fs.Stat(fsys, p) }

// ReadDir lists the directory the user named p, sorted by name.
func ReadDir(fsys fs.FS, p string) ([]fs.DirEntry, error) { return fs.ReadDir(fsys, p) }

// Abs is p made absolute from fsys's working directory (Getwd), without
// following links: a key under which two spellings of one path compare
// equal. On a file system whose working directory is "." (filesys.Mem), it
// is p cleaned.
func Abs(fsys filesys.Reader, p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	wd, err := fsys.Getwd()
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
		f, err := fsys.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, int64(max)+1))
	}
}
