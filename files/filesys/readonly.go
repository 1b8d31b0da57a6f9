package filesys

import (
	"io/fs"
	"syscall"
)

// ReadOnly is fsys refusing every write with EPERM, as a read-only mount
// does: tests hold krender to reporting a write it could not make, and a
// Reader (one commit's tree) becomes a FileSystem.
func ReadOnly(fsys Reader) FileSystem { return readOnly{fsys} }

type readOnly struct{ Reader }

func denied(op, name string) error { return &fs.PathError{Op: op, Path: name, Err: syscall.EPERM} }

func (readOnly) MkdirAll(name string, _ fs.FileMode) error            { return denied("mkdir", name) }
func (readOnly) MkdirTemp(dir, _ string) (string, error)              { return "", denied("mkdirtemp", dir) }
func (readOnly) CreateTemp(dir, _ string) (File, error)               { return nil, denied("createtemp", dir) }
func (readOnly) WriteFile(name string, _ []byte, _ fs.FileMode) error { return denied("open", name) }
func (readOnly) Chmod(name string, _ fs.FileMode) error               { return denied("chmod", name) }
func (readOnly) Rename(oldname, _ string) error                       { return denied("rename", oldname) }
func (readOnly) Remove(name string) error                             { return denied("remove", name) }
func (readOnly) RemoveAll(name string) error                          { return denied("remove", name) }
