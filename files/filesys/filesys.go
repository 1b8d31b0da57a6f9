// Package filesys is the one way krender touches files, reading and writing
// alike, as kustomize's filesys.FileSystem is for kustomize: Dir is the real
// file system (the only place, besides cmd, that calls os for files), Mem a
// file system in memory for tests. It imports nothing of krender, so that
// every layer, the model's profile loader included, can take one.
package filesys

import (
	"io"
	"io/fs"
)

// FileSystem is what krender does with files: read user paths and the load
// root (links included), and replace an output directory through a staging
// directory swapped in by rename. Paths are as the user typed them:
// relative to the working directory (Getwd), or absolute.
type FileSystem interface {
	fs.FS
	fs.ReadFileFS
	fs.StatFS
	fs.ReadDirFS
	// Lstat is Stat without following a final symbolic link.
	Lstat(name string) (fs.FileInfo, error)
	// RealPath is name made absolute with every link followed; a file
	// system without links returns it cleaned.
	RealPath(name string) (string, error)
	// Getwd is the directory relative paths start from.
	Getwd() (string, error)

	MkdirAll(name string, perm fs.FileMode) error
	// MkdirTemp creates a new directory in dir ("": the temporary
	// directory), its name pattern with the last "*" made unique.
	MkdirTemp(dir, pattern string) (string, error)
	// CreateTemp creates a new file as MkdirTemp does a directory.
	CreateTemp(dir, pattern string) (File, error)
	WriteFile(name string, data []byte, perm fs.FileMode) error
	Rename(oldname, newname string) error
	Remove(name string) error
	RemoveAll(name string) error
}

// File is a file open for writing and reading back: a spooled stream.
type File interface {
	io.ReadWriteCloser
	io.Seeker
	Name() string
}

// Walk visits root and everything below it in lexical order, as
// fs.WalkDir does, on the paths as fsys takes them.
func Walk(fsys FileSystem, root string, fn fs.WalkDirFunc) error {
	return fs.WalkDir(fsys, root, fn)
}
