package filesys

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"
	"time"
)

// Mem is a file system in memory, without links, whose working directory
// is "." with nothing above it: tests render and write on it without
// touching the disk. The zero value is empty and ready; it is safe for
// concurrent use.
type Mem struct {
	mu    sync.Mutex
	files fstest.MapFS
	n     int
}

var _ FileSystem = (*Mem)(nil)

// NewMem is a Mem holding files, whose map it takes over: writes land in
// it. A test writes its inputs as an fstest.MapFS, and renders and writes
// on them in memory.
func NewMem(files fstest.MapFS) *Mem { return &Mem{files: files} }

// clean is name as Mem keys it: slash-separated, cleaned, without a
// leading "./" or "/" (Mem's root is "/" and "." alike).
func clean(name string) string {
	p := strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), "/")
	if p == "" {
		return "."
	}
	return p
}

func memErr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

func (m *Mem) locked(f func(fstest.MapFS) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = fstest.MapFS{}
	}
	return f(m.files)
}

func (m *Mem) Open(name string) (fs.File, error) {
	var f fs.File
	err := m.locked(func(files fstest.MapFS) (err error) {
		f, err = files.Open(clean(name))
		return err
	})
	return f, err
}

func (m *Mem) ReadFile(name string) ([]byte, error) {
	var b []byte
	err := m.locked(func(files fstest.MapFS) (err error) {
		b, err = files.ReadFile(clean(name))
		return err
	})
	return b, err
}

func (m *Mem) Stat(name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := m.locked(func(files fstest.MapFS) (err error) {
		fi, err = files.Stat(clean(name))
		return err
	})
	return fi, err
}

func (m *Mem) ReadDir(name string) ([]fs.DirEntry, error) {
	var ents []fs.DirEntry
	err := m.locked(func(files fstest.MapFS) (err error) {
		ents, err = files.ReadDir(clean(name))
		return err
	})
	return ents, err
}

func (m *Mem) Lstat(name string) (fs.FileInfo, error) { return m.Stat(name) }
func (m *Mem) RealPath(name string) (string, error)   { return clean(name), nil }
func (m *Mem) Getwd() (string, error)                 { return ".", nil }

// isDir reports whether p is "." or a directory of files, named or implied.
func isDir(files fstest.MapFS, p string) bool {
	if p == "." {
		return true
	}
	fi, err := files.Stat(p)
	return err == nil && fi.IsDir()
}

func (m *Mem) MkdirAll(name string, perm fs.FileMode) error {
	return m.locked(func(files fstest.MapFS) error { return mkdirAll(files, clean(name), perm) })
}

func mkdirAll(files fstest.MapFS, p string, perm fs.FileMode) error {
	for d := p; d != "."; d = path.Dir(d) {
		if f, ok := files[d]; ok && !f.Mode.IsDir() {
			return memErr("mkdir", p, errors.New("not a directory"))
		}
	}
	for d := p; d != "."; d = path.Dir(d) {
		if _, ok := files[d]; !ok {
			files[d] = &fstest.MapFile{Mode: fs.ModeDir | perm, ModTime: time.Now()}
		}
	}
	return nil
}

func (m *Mem) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return m.locked(func(files fstest.MapFS) error { return writeFile(files, clean(name), data, perm) })
}

func writeFile(files fstest.MapFS, p string, data []byte, perm fs.FileMode) error {
	if !isDir(files, path.Dir(p)) {
		return memErr("open", p, fs.ErrNotExist)
	}
	if isDir(files, p) {
		return memErr("open", p, errors.New("is a directory"))
	}
	files[p] = &fstest.MapFile{Data: append([]byte(nil), data...), Mode: perm, ModTime: time.Now()}
	return nil
}

// unique is pattern with its last "*" (or its end) made unique in dir.
func (m *Mem) unique(files fstest.MapFS, dir, pattern string) string {
	if dir == "" {
		dir = "tmp"
	}
	for {
		m.n++
		n := strconv.Itoa(m.n)
		name := pattern + n
		if i := strings.LastIndex(pattern, "*"); i >= 0 {
			name = pattern[:i] + n + pattern[i+1:]
		}
		p := path.Join(clean(dir), name)
		if _, err := files.Stat(p); err != nil {
			return p
		}
	}
}

func (m *Mem) MkdirTemp(dir, pattern string) (string, error) {
	var p string
	err := m.locked(func(files fstest.MapFS) error {
		if dir != "" && !isDir(files, clean(dir)) {
			return memErr("mkdirtemp", dir, fs.ErrNotExist)
		}
		p = m.unique(files, dir, pattern)
		return mkdirAll(files, p, 0o700)
	})
	return p, err
}

func (m *Mem) CreateTemp(dir, pattern string) (File, error) {
	var p string
	err := m.locked(func(files fstest.MapFS) error {
		if dir == "" {
			if err := mkdirAll(files, "tmp", 0o700); err != nil {
				return err
			}
		}
		p = m.unique(files, dir, pattern)
		return writeFile(files, p, nil, 0o600)
	})
	if err != nil {
		return nil, err
	}
	return &memFile{m: m, name: p}, nil
}

// children reports whether p has anything below it.
func children(files fstest.MapFS, p string) bool {
	for k := range files {
		if strings.HasPrefix(k, p+"/") {
			return true
		}
	}
	return false
}

func (m *Mem) Chmod(name string, mode fs.FileMode) error {
	return m.locked(func(files fstest.MapFS) error {
		p := clean(name)
		fi, err := files.Stat(p)
		if err != nil {
			return memErr("chmod", name, fs.ErrNotExist)
		}
		f := &fstest.MapFile{Mode: fi.Mode().Type() | mode.Perm(), ModTime: fi.ModTime()}
		if old, ok := files[p]; ok {
			f.Data, f.Sys = old.Data, old.Sys
		}
		files[p] = f
		return nil
	})
}

func (m *Mem) Rename(oldname, newname string) error {
	return m.locked(func(files fstest.MapFS) error {
		from, to := clean(oldname), clean(newname)
		if _, err := files.Stat(from); err != nil {
			return memErr("rename", oldname, fs.ErrNotExist)
		}
		if !isDir(files, path.Dir(to)) {
			return memErr("rename", newname, fs.ErrNotExist)
		}
		if children(files, to) {
			return memErr("rename", newname, errors.New("directory not empty"))
		}
		for k, f := range files {
			if k == from || strings.HasPrefix(k, from+"/") {
				delete(files, k)
				files[to+strings.TrimPrefix(k, from)] = f
			}
		}
		return nil
	})
}

func (m *Mem) Remove(name string) error {
	return m.locked(func(files fstest.MapFS) error {
		p := clean(name)
		if children(files, p) {
			return memErr("remove", name, errors.New("directory not empty"))
		}
		if _, ok := files[p]; !ok {
			return memErr("remove", name, fs.ErrNotExist)
		}
		delete(files, p)
		return nil
	})
}

func (m *Mem) RemoveAll(name string) error {
	return m.locked(func(files fstest.MapFS) error {
		p := clean(name)
		for k := range files {
			if k == p || strings.HasPrefix(k, p+"/") {
				delete(files, k)
			}
		}
		return nil
	})
}

// memFile is a file of Mem open for writing and reading back; each write
// lands in Mem at once.
type memFile struct {
	m    *Mem
	name string
	at   int64
}

func (f *memFile) Name() string { return f.name }
func (f *memFile) Close() error { return nil }

func (f *memFile) Write(b []byte) (int, error) {
	err := f.m.locked(func(files fstest.MapFS) error {
		mf, ok := files[f.name]
		if !ok {
			return memErr("write", f.name, fs.ErrNotExist)
		}
		data := append([]byte(nil), mf.Data...) // a reader may hold the old bytes
		if end := f.at + int64(len(b)); end > int64(len(data)) {
			data = append(data, make([]byte, end-int64(len(data)))...)
		}
		copy(data[f.at:], b)
		files[f.name] = &fstest.MapFile{Data: data, Mode: mf.Mode, ModTime: time.Now()}
		return nil
	})
	if err != nil {
		return 0, err
	}
	f.at += int64(len(b))
	return len(b), nil
}

func (f *memFile) Read(b []byte) (int, error) {
	data, err := f.m.ReadFile(f.name)
	if err != nil {
		return 0, err
	}
	if f.at >= int64(len(data)) {
		return 0, io.EOF
	}
	n := copy(b, data[f.at:])
	f.at += int64(n)
	return n, nil
}

func (f *memFile) Seek(offset int64, whence int) (int64, error) {
	base := int64(0)
	switch whence {
	case io.SeekCurrent:
		base = f.at
	case io.SeekEnd:
		data, err := f.m.ReadFile(f.name)
		if err != nil {
			return 0, err
		}
		base = int64(len(data))
	}
	if base+offset < 0 {
		return 0, memErr("seek", f.name, fs.ErrInvalid)
	}
	f.at = base + offset
	return f.at, nil
}
