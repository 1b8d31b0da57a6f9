// Package gitfs is a read-only file system of one commit of a git
// repository, read with git's own plumbing (`git ls-tree`, `git cat-file
// --batch`): the base side of `krender diff --base REF`. It touches nothing
// of the repository but its objects: not the working tree, the index, the
// stash nor any ref. Paths are as users type them, relative to the working
// directory's place in the work tree, or absolute: the commit's files
// appear where the work tree holds them.
package gitfs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Git runs git for the file system. Only the command line runs programs,
// with the program and environment main handed it: it implements Git.
type Git interface {
	// Output runs git with args and returns what it printed; an error
	// says what git printed first on its standard error.
	Output(ctx context.Context, args ...string) ([]byte, error)
	// Pipe starts git with args; wait closes in and waits for git to end.
	Pipe(args ...string) (in io.WriteCloser, out io.Reader, wait func() error, err error)
}

func run(ctx context.Context, g Git, args ...string) ([]byte, error) {
	out, err := g.Output(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("git %s: %v", args[0], err)
	}
	return out, nil
}

// entry is one path of the commit's tree.
type entry struct {
	mode fs.FileMode
	oid  string
	size int64
	kids []string // a directory's names, sorted as git sorts them
}

// FS is one commit's tree, as files under the work tree's top.
type FS struct {
	top, cwd string            // the work tree's top and the working directory, absolute, cleaned
	entries  map[string]*entry // by path from the top ("." the top)
	batch    *batch
	Commit   string // the commit's object name
}

// Open reads ref's tree: ref must name a commit (a branch, a tag, a
// remote-tracking branch such as origin/main, HEAD~1, an object name).
// Close stops the git process it reads with.
func Open(ctx context.Context, g Git, ref string) (*FS, error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return nil, fmt.Errorf("--base %q: not a git revision", ref)
	}
	out, err := run(ctx, g, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return nil, fmt.Errorf("--base %s: not in a git work tree (%v)", ref, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) < 1 || lines[0] == "" {
		return nil, fmt.Errorf("--base %s: not in a git work tree", ref)
	}
	prefix := ""
	if len(lines) > 1 {
		prefix = lines[1]
	}
	commit, err := run(ctx, g, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("--base %s: no such commit in this repository (fetch it first, e.g. git fetch origin main)", ref)
	}
	f := &FS{top: filepath.Clean(lines[0]), entries: map[string]*entry{".": {mode: fs.ModeDir | 0o755}}, Commit: strings.TrimSpace(string(commit))}
	f.cwd = filepath.Join(f.top, filepath.FromSlash(prefix))
	tree, err := run(ctx, g, "ls-tree", "-r", "-t", "-l", "-z", "--full-tree", f.Commit)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %v", ref, err)
	}
	if err := f.index(tree); err != nil {
		return nil, fmt.Errorf("--base %s: %v", ref, err)
	}
	f.entries[".git"] = &entry{mode: fs.ModeDir | 0o755} // the load root's mark, as in the work tree
	f.entries["."].kids = append(f.entries["."].kids, ".git")
	f.batch = &batch{git: g}
	return f, nil
}

// index reads `git ls-tree -r -t -l -z` output: "<mode> <type> <oid> <size>\t<path>\0".
func (f *FS) index(out []byte) error {
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, ok := strings.Cut(string(rec), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 {
			return fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		e := &entry{oid: fields[2]}
		switch fields[0] {
		case "040000":
			e.mode = fs.ModeDir | 0o755
		case "120000":
			e.mode = fs.ModeSymlink | 0o777
		case "100755":
			e.mode = 0o755
		case "160000":
			continue // a submodule: its commit is not in this repository
		default:
			e.mode = 0o644
		}
		if fields[3] != "-" {
			e.size, _ = strconv.ParseInt(fields[3], 10, 64)
		}
		f.entries[p] = e
		dir := path.Dir(p)
		if d := f.entries[dir]; d != nil {
			d.kids = append(d.kids, path.Base(p))
		}
	}
	return nil
}

// Close stops the git process that reads the files.
func (f *FS) Close() error { return f.batch.close() }

// Getwd is the working directory: the paths users type start there.
func (f *FS) Getwd() (string, error) { return f.cwd, nil }

// rel is name as a path from the top, links not followed; ok is false
// when name lies outside the work tree.
func (f *FS) rel(name string) (string, bool) {
	p := filepath.FromSlash(name)
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.cwd, p)
	}
	r, err := filepath.Rel(f.top, filepath.Clean(p))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// resolve follows the links on the way to rel (the last one too when
// last), as the kernel does, within the commit.
func (f *FS) resolve(rel string, last bool) (string, error) {
	done := "."
	parts := strings.Split(rel, "/")
	hops := 0
	for i := 0; i < len(parts); i++ {
		part := parts[i]
		if part == "." || part == "" {
			continue
		}
		next := path.Join(done, part)
		if part == ".." {
			if done == "." {
				return "", fs.ErrNotExist // above the top: not in the commit
			}
			done = next
			continue
		}
		e := f.entries[next]
		if e == nil {
			return "", fs.ErrNotExist
		}
		if e.mode&fs.ModeSymlink == 0 || (i == len(parts)-1 && !last) {
			done = next
			continue
		}
		if hops++; hops > 40 {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := f.batch.read(e.oid)
		if err != nil {
			return "", err
		}
		t := string(target)
		if path.IsAbs(t) {
			r, ok := f.rel(t)
			if !ok {
				return "", fs.ErrNotExist
			}
			t = r
		} else {
			t = path.Join(done, t)
		}
		parts = append(strings.Split(t, "/"), parts[i+1:]...)
		done, i = ".", -1
	}
	return path.Clean(done), nil
}

func (f *FS) lookup(op, name string, follow bool) (string, *entry, error) {
	rel, ok := f.rel(name)
	if !ok {
		return "", nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	r, err := f.resolve(rel, follow)
	if err != nil {
		return "", nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return r, f.entries[r], nil
}

// RealPath is name made absolute with every link followed.
func (f *FS) RealPath(name string) (string, error) {
	r, _, err := f.lookup("realpath", name, true)
	if err != nil {
		return "", err
	}
	return filepath.Join(f.top, filepath.FromSlash(r)), nil
}

func (f *FS) Stat(name string) (fs.FileInfo, error) {
	r, e, err := f.lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return info{name: path.Base(r), e: e}, nil
}

func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	r, e, err := f.lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return info{name: path.Base(r), e: e}, nil
}

func (f *FS) ReadFile(name string) ([]byte, error) {
	_, e, err := f.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	b, err := f.batch.read(e.oid)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	r, e, err := f.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	if !e.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	var out []fs.DirEntry
	for _, k := range e.kids {
		out = append(out, fs.FileInfoToDirEntry(info{name: k, e: f.entries[path.Join(r, k)]}))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

func (f *FS) Open(name string) (fs.File, error) {
	r, e, err := f.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		ents, err := f.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &dir{info: info{name: path.Base(r), e: e}, ents: ents}, nil
	}
	b, err := f.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &file{info: info{name: path.Base(r), e: e}, Reader: bytes.NewReader(b)}, nil
}

type info struct {
	name string
	e    *entry
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.e.size }
func (i info) Mode() fs.FileMode  { return i.e.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.e.mode.IsDir() }
func (i info) Sys() any           { return nil }

type file struct {
	info info
	*bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

type dir struct {
	info info
	ents []fs.DirEntry
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dir) Close() error               { return nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		ents := d.ents
		d.ents = nil
		return ents, nil
	}
	if len(d.ents) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.ents))
	ents := d.ents[:n]
	d.ents = d.ents[n:]
	return ents, nil
}

// batch is one `git cat-file --batch`, started at the first read: the
// files of a run are read through one process, one at a time.
type batch struct {
	git  Git
	mu   sync.Mutex
	wait func() error // nil until started
	in   io.WriteCloser
	out  *bufio.Reader
	err  error
	done bool
}

func (b *batch) start() error {
	in, out, wait, err := b.git.Pipe("cat-file", "--batch")
	if err != nil {
		return fmt.Errorf("git cat-file: %v", err)
	}
	b.wait, b.in, b.out = wait, in, bufio.NewReaderSize(out, 64<<10)
	return nil
}

// read returns the object oid's content.
func (b *batch) read(oid string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return nil, errors.New("git cat-file: closed")
	}
	if b.err != nil {
		return nil, b.err
	}
	if b.wait == nil {
		if b.err = b.start(); b.err != nil {
			return nil, b.err
		}
	}
	if _, err := io.WriteString(b.in, oid+"\n"); err != nil {
		b.err = fmt.Errorf("git cat-file: %v", err)
		return nil, b.err
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		b.err = fmt.Errorf("git cat-file: %v", err)
		return nil, b.err
	}
	fields := strings.Fields(header)
	if len(fields) != 3 {
		return nil, fmt.Errorf("git cat-file: %s", strings.TrimSpace(header))
	}
	size, err := strconv.Atoi(fields[2])
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %s", strings.TrimSpace(header))
	}
	data := make([]byte, size+1) // and the newline after it
	if _, err := io.ReadFull(b.out, data); err != nil {
		b.err = fmt.Errorf("git cat-file: %v", err)
		return nil, b.err
	}
	return data[:size], nil
}

func (b *batch) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = true
	if b.wait == nil {
		return nil
	}
	return b.wait()
}
