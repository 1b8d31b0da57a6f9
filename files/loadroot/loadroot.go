// Package loadroot keeps the files a profile names inside the repository,
// as kustomize's --load-restrictor LoadRestrictionsRootOnly keeps a
// kustomization's: templates and profiles change in pull requests, and the
// CI runner that renders them holds secrets a profile must not copy into
// its output (see docs/security.md).
package loadroot

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/model/filepos"
)

// Mode is --load-restrictor's value.
type Mode int

const (
	RootOnly Mode = iota // files a profile names must lie within the root
	None                 // no check
)

// Flag and RootFlag are the flags a refusal names.
const (
	Flag     = "--load-restrictor"
	RootFlag = "--root"
)

// ParseMode reads --load-restrictor: kustomize's names and short ones.
func ParseMode(s string) (Mode, error) {
	switch {
	case s == "", strings.EqualFold(s, "rootOnly"), strings.EqualFold(s, "LoadRestrictionsRootOnly"):
		return RootOnly, nil
	case strings.EqualFold(s, "none"), strings.EqualFold(s, "LoadRestrictionsNone"):
		return None, nil
	}
	return RootOnly, fmt.Errorf("%s %q: want rootOnly (the default; or LoadRestrictionsRootOnly) or none (or LoadRestrictionsNone)", Flag, s)
}

// Root is the directory every file a profile names must lie within.
type Root struct {
	fsys  filesys.Reader
	off   bool
	dir   string // where the root really is
	cwd   string // where the working directory really is
	shown string // the root as messages name it
}

// New finds the root on fsys: dir when given (--root), else the top of the
// git work tree holding the working directory (a `.git` directory, or a
// file as in a linked worktree), else, when the run names a profile (""
// for none), the top of the work tree holding it (see profileTree), else
// the working directory itself. Links are followed as fsys follows them
// (RealPath): filesys.Dir on the disk, filesys.Mem has none.
func New(fsys filesys.Reader, dir string, mode Mode, profile string) (*Root, error) {
	if mode == None {
		return &Root{off: true}, nil
	}
	r := &Root{fsys: fsys}
	cwd, err := r.real(".")
	if err != nil {
		return nil, fmt.Errorf("cannot find the working directory: %v", filepos.FileError(err))
	}
	r.cwd = cwd
	if dir != "" {
		st, err := userfs.Stat(fsys, dir)
		if err == nil && !st.IsDir() {
			err = errors.New("not a directory")
		}
		if err == nil {
			r.dir, err = r.real(dir)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", RootFlag, dir, filepos.FileError(err))
		}
		r.shown = dir
		return r, nil
	}
	r.dir = cwd
	if top, ok := r.workTree(cwd); ok {
		r.dir = top
	} else if top, ok := r.profileTree(profile); ok {
		r.dir = top
	}
	r.shown = r.dir
	if rel, err := filepath.Rel(cwd, r.dir); err == nil {
		r.shown = rel // "." or "../..": the same on every machine
	}
	return r, nil
}

// workTree is the nearest directory at or above d, an absolute path, that
// holds `.git`.
func (r *Root) workTree(d string) (string, bool) {
	for {
		if r.holdsGit(d) {
			return d, true
		}
		up := filepath.Dir(d)
		if up == d {
			return "", false
		}
		d = up
	}
}

// profileTree is the top of the git work tree holding the profile at path,
// as written: the nearest directory above it that holds `.git`, its links
// followed. A symbolic link on the way up that lies inside a work tree (a
// link a pull request could commit) does not choose the root: the work
// tree holding the link does, so that `profiles -> /elsewhere/checkout`
// leaves the root at the repository, where Check and CheckGiven hold
// what the link leads to.
func (r *Root) profileTree(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	abs, err := userfs.Abs(r.fsys, path)
	if err != nil {
		return "", false
	}
	top, linked := "", false
	for d := filepath.Dir(abs); ; {
		if r.holdsGit(d) && (top == "" || linked) {
			top, linked = d, false
		}
		linked = linked || r.isLink(d)
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if top == "" {
		return "", false
	}
	real, err := r.real(top)
	return real, err == nil
}

func (r *Root) holdsGit(d string) bool {
	_, err := userfs.Stat(r.fsys, filepath.Join(d, ".git"))
	return err == nil
}

// isLink reports whether d itself is a symbolic link.
func (r *Root) isLink(d string) bool {
	st, err := r.fsys.Lstat(d)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// Off reports whether the check is turned off (--load-restrictor none).
func (r *Root) Off() bool { return r == nil || r.off }

// String is the root as messages name it.
func (r *Root) String() string { return r.shown }

// Check refuses path, which a profile names as what (extends, fragment,
// CRD file) at pos, unless it leads into the root. A path that does not
// exist is judged by the nearest directory above it that does.
func (r *Root) Check(what, path string, pos filepos.Pos) error {
	if r.Off() {
		return nil
	}
	real, err := r.resolve(path)
	if err != nil {
		return filepos.Errorf(pos, "%s %s: %v", what, path, filepos.FileError(err))
	}
	if within(r.dir, real) {
		return nil
	}
	return filepos.Errorf(pos, "%s %s%s is outside the root %s, and krender reads the files a profile names only within it (%s)",
		what, path, r.leads(path, real), r.shown, r.hint())
}

// CheckWalked refuses file, found by walking the directory dir, unless it
// leads into dir or the root: a symbolic link committed among the
// templates must not reach the rest of the machine.
func (r *Root) CheckWalked(what, dir, file string) error {
	if r.Off() {
		return nil
	}
	pos := filepos.Pos{File: file}
	real, err := r.resolve(file)
	if err != nil {
		return filepos.Errorf(pos, "cannot read %s: %v", what, filepos.FileError(err))
	}
	if within(r.dir, real) {
		return nil
	}
	if d, err := r.resolve(dir); err == nil && within(d, real) {
		return nil
	}
	return filepos.Errorf(pos, "this %s leads to %s, outside the directory %s and the root %s, and krender reads a file found in a directory only within one of them (%s)",
		what, real, dir, r.shown, r.hint())
}

// CheckGiven refuses path, named on the command line, only when it lies in
// the root as written but leads out of it: the caller chose the path, but
// whoever committed the link chose where it goes. A path written outside
// the root is the caller's own and is read as given.
func (r *Root) CheckGiven(what, path string) error {
	if r.Off() {
		return nil
	}
	if !within(r.dir, r.lexical(path)) {
		return nil
	}
	real, err := r.resolve(path)
	if err != nil || within(r.dir, real) {
		return nil // reading it says what is wrong
	}
	return filepos.Errorf(filepos.Pos{File: path}, "this %s leads to %s, outside the root %s, and krender reads a path in the root only when it leads to a file within it (%s)",
		what, real, r.shown, r.hint())
}

func (r *Root) hint() string {
	return fmt.Sprintf("widen the root with %s DIR, or allow any file with %s none", RootFlag, Flag)
}

// leads says where path really goes when a symbolic link took it there.
func (r *Root) leads(path, real string) string {
	if r.lexical(path) == real {
		return ""
	}
	return " (which leads to " + real + ")"
}

// lexical is path as written, made absolute from the working directory.
func (r *Root) lexical(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(r.cwd, path)
}

// real is name made absolute with its links followed, or lexically clean on
// a file system that has no links.
func (r *Root) real(name string) (string, error) {
	return r.fsys.RealPath(name)
}

// resolve is real for a path that may not exist yet: the nearest existing
// directory above it resolved, the rest joined on.
func (r *Root) resolve(name string) (string, error) {
	p, err := r.real(name)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return p, err
	}
	clean := filepath.Clean(name)
	parent := filepath.Dir(clean)
	if parent == clean {
		return "", err
	}
	d, err := r.resolve(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, filepath.Base(clean)), nil
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
