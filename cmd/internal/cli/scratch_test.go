package cli

import (
	"io/fs"
	"path/filepath"
	"sort"
	"testing"

	"github.com/krender/krender/files/filesys"
)

// scratchFS is the files of a directory on disk, read where they are, with
// everything a run writes kept in memory over them: a test renders the
// repository's examples and golden cases (-o DIR, --update) through one
// file system without writing into the tree. Paths are taken as
// filesys.Dir takes them; what the run wrote is read from memory, anything
// else from disk. A write that would change a file on disk (a rename or a
// removal of one) fails.
type scratchFS struct {
	disk filesys.FileSystem
	wd   string       // the directory, absolute
	mem  *filesys.Mem // keyed by absolute path (Mem drops the leading "/")
}

var _ filesys.FileSystem = (*scratchFS)(nil)

func newScratchFS(t *testing.T, dir string) *scratchFS {
	t.Helper()
	wd, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &scratchFS{disk: filesys.Dir(wd), wd: wd, mem: &filesys.Mem{}}
}

// abs is name as memory keys it.
func (s *scratchFS) abs(name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(s.wd, name)
}

func (s *scratchFS) written(name string) bool {
	_, err := s.mem.Lstat(s.abs(name))
	return err == nil && s.abs(name) != "/"
}

func (s *scratchFS) Open(name string) (fs.File, error) {
	if s.written(name) {
		return s.mem.Open(s.abs(name))
	}
	return s.disk.Open(name)
}

func (s *scratchFS) ReadFile(name string) ([]byte, error) {
	if s.written(name) {
		return s.mem.ReadFile(s.abs(name))
	}
	return s.disk.ReadFile(name)
}

func (s *scratchFS) Stat(name string) (fs.FileInfo, error) {
	if s.written(name) {
		return s.mem.Stat(s.abs(name))
	}
	return s.disk.Stat(name)
}

func (s *scratchFS) Lstat(name string) (fs.FileInfo, error) {
	if s.written(name) {
		return s.mem.Lstat(s.abs(name))
	}
	return s.disk.Lstat(name)
}

// ReadDir lists the directory on disk and in memory, memory's entries over
// disk's of the same name.
func (s *scratchFS) ReadDir(name string) ([]fs.DirEntry, error) {
	onDisk, diskErr := s.disk.ReadDir(name)
	if !s.written(name) {
		return onDisk, diskErr
	}
	inMem, err := s.mem.ReadDir(s.abs(name))
	if err != nil {
		return nil, err
	}
	byName := map[string]fs.DirEntry{}
	for _, e := range append(onDisk, inMem...) {
		byName[e.Name()] = e
	}
	ents := make([]fs.DirEntry, 0, len(byName))
	for _, e := range byName {
		ents = append(ents, e)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

func (s *scratchFS) RealPath(name string) (string, error) {
	r, err := s.disk.RealPath(name)
	if err != nil && s.written(name) {
		return s.abs(name), nil // memory holds no links
	}
	return r, err
}

func (s *scratchFS) Getwd() (string, error) { return s.wd, nil }

func (s *scratchFS) MkdirAll(name string, perm fs.FileMode) error {
	return s.mem.MkdirAll(s.abs(name), perm)
}

// tempDir is dir as memory keys it, made there: "" is a temporary
// directory of memory's own.
func (s *scratchFS) tempDir(dir string) (string, error) {
	if dir == "" {
		dir = "/tmp"
	}
	return s.abs(dir), s.mem.MkdirAll(s.abs(dir), 0o755)
}

func (s *scratchFS) MkdirTemp(dir, pattern string) (string, error) {
	d, err := s.tempDir(dir)
	if err != nil {
		return "", err
	}
	p, err := s.mem.MkdirTemp(d, pattern)
	return "/" + p, err
}

func (s *scratchFS) CreateTemp(dir, pattern string) (filesys.File, error) {
	d, err := s.tempDir(dir)
	if err != nil {
		return nil, err
	}
	f, err := s.mem.CreateTemp(d, pattern)
	if err != nil {
		return nil, err
	}
	return scratchFile{f}, nil
}

// scratchFile is a file of memory named by its absolute path.
type scratchFile struct{ filesys.File }

func (f scratchFile) Name() string { return "/" + f.File.Name() }

func (s *scratchFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := s.mem.MkdirAll(filepath.Dir(s.abs(name)), 0o755); err != nil {
		return err
	}
	return s.mem.WriteFile(s.abs(name), data, perm)
}

func (s *scratchFS) Chmod(name string, mode fs.FileMode) error {
	return s.mem.Chmod(s.abs(name), mode)
}

func (s *scratchFS) Rename(oldname, newname string) error {
	return s.mem.Rename(s.abs(oldname), s.abs(newname))
}

func (s *scratchFS) Remove(name string) error    { return s.mem.Remove(s.abs(name)) }
func (s *scratchFS) RemoveAll(name string) error { return s.mem.RemoveAll(s.abs(name)) }
