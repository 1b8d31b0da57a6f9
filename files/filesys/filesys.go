// Package filesys is the one way krender touches files, reading and writing
// alike, as kustomize's filesys.FileSystem is for kustomize: Dir is the real
// file system (the only place, besides cmd, that calls os for files), Mem a
// file system in memory for tests. It imports nothing of krender, so that
// every layer, the model's profile loader included, can take one.
package filesys

import (
	"io"
	"io/fs"
	"path/filepath"
	"sort"
)

// FileSystem is what krender does with files: read user paths and the load
// root (links included), and replace an output directory through a staging
// directory swapped in by rename. Paths are as the user typed them:
// relative to the working directory (Getwd), or absolute.
type FileSystem interface {
	Reader

	MkdirAll(name string, perm fs.FileMode) error
	// MkdirTemp creates a new directory in dir ("": the temporary
	// directory), its name pattern with the last "*" made unique.
	MkdirTemp(dir, pattern string) (string, error)
	// CreateTemp creates a new file as MkdirTemp does a directory.
	CreateTemp(dir, pattern string) (File, error)
	WriteFile(name string, data []byte, perm fs.FileMode) error
	Chmod(name string, mode fs.FileMode) error
	Rename(oldname, newname string) error
	Remove(name string) error
	RemoveAll(name string) error
}

// Reader is the reading half of a FileSystem: what the loaders, the load
// root and the actions that write nothing take. Paths are as the user typed
// them, and each implementation says itself whether links are followed
// (RealPath) and where relative paths start (Getwd): no caller asks which
// file system it holds.
type Reader interface {
	fs.FS
	fs.ReadFileFS
	fs.StatFS
	fs.ReadDirFS
	// Lstat is Stat without following a final symbolic link.
	Lstat(name string) (fs.FileInfo, error)
	// RealPath is name made absolute with every link followed; it fails
	// on a path that does not exist, except on a file system without
	// links, which returns it cleaned.
	RealPath(name string) (string, error)
	// Getwd is the directory relative paths start from.
	Getwd() (string, error)
}

// File is a file open for writing and reading back: a spooled stream.
type File interface {
	io.ReadWriteCloser
	io.Seeker
	Name() string
}

// Walk visits root and everything below it in lexical order, as
// filepath.Walk does, without following links (Lstat): a link is reported,
// never entered, so a walk of a directory krender replaces sees what the
// replacement would delete.
func Walk(fsys FileSystem, root string, fn filepath.WalkFunc) error {
	info, err := fsys.Lstat(root)
	if err != nil {
		return fn(root, nil, err)
	}
	return walk(fsys, root, info, fn)
}

func walk(fsys FileSystem, p string, info fs.FileInfo, fn filepath.WalkFunc) error {
	if err := fn(p, info, nil); err != nil {
		if info.IsDir() && err == filepath.SkipDir {
			return nil
		}
		return err
	}
	if !info.IsDir() {
		return nil
	}
	ents, err := fsys.ReadDir(p)
	if err != nil {
		return fn(p, info, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		name := filepath.Join(p, e.Name())
		fi, err := fsys.Lstat(name)
		if err != nil {
			if err := fn(name, fi, err); err != nil && err != filepath.SkipDir {
				return err
			}
			continue
		}
		if err := walk(fsys, name, fi, fn); err != nil && (!fi.IsDir() || err != filepath.SkipDir) {
			return err
		}
	}
	return nil
}
