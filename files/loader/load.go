// Package loader reads krender's model from files: profiles, templates and
// CustomResourceDefinitions, by the user's paths (package userfs) and
// within the load root (package loadroot). The engine gets what it parsed.
package loader

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
)

// StdinPath is the template path that means standard input, as with kubectl
// -f -; StdinName is what positions in it are called.
const (
	StdinPath = "-"
	StdinName = "<stdin>"
)

// CheckStdin refuses StdinPath given twice: a stream is read once, and the
// second read would find it empty.
func CheckStdin(paths []string, stdin io.Reader) error {
	if stdin == nil {
		return nil
	}
	n := 0
	for _, p := range paths {
		if p == StdinPath {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("template path %s (standard input) is given %d times: it can be read only once", StdinPath, n)
	}
	return nil
}

// Templates is where templates are read from, and how.
type Templates struct {
	FS     filesys.Reader
	Root   *loadroot.Root // where links found in directories must lead; nil: anywhere
	Limits limits.Limits  // the run's limits; zero: the defaults
	Stdin  io.Reader      // what the path StdinPath reads; nil: StdinPath is a file name
	Seen   func(int)      // when set, told the bytes of each file before it is parsed
	Skip   []string       // files passed over in directory walks (the profile's fragments)
	// Context stops the read before the next file or document when it is
	// done, with its cause; nil: never.
	Context context.Context
}

// LoadTemplates parses every template under paths: files as given, directories
// walked recursively for *.yaml and *.yml in lexical order. Every file's
// errors are reported together, up to the file that takes the run past
// limits.inputBytes or limits.inputNodes: no file after it is read. Files in skip (the profile's fragments, which
// often live beside the templates) are passed over in directory walks.
func LoadTemplates(fsys filesys.Reader, paths []string, skip ...string) ([]*manifest.Object, error) {
	return Templates{FS: fsys, Skip: skip}.Load(paths)
}

// Load parses every template under paths as LoadTemplates does, within
// t's limits and root, with the path StdinPath read from t.Stdin.
func (t Templates) Load(paths []string) ([]*manifest.Object, error) {
	l := &fileLoader{lim: t.Limits, what: "template", stdin: t.Stdin, seen: t.Seen, ctx: t.Context}
	return l.loadFiles(t.FS, t.Root, paths, t.Skip...)
}

// LoadManifests reads files and directories of manifests as LoadTemplates
// does; errors call them what (e.g. "CRD file"). A file found by walking a
// directory must lie within it or root (see loadroot.Root.CheckWalked); a
// nil root checks nothing.
func LoadManifests(fsys filesys.Reader, root *loadroot.Root, what string, paths []string) ([]*manifest.Object, error) {
	return (&fileLoader{what: what}).loadFiles(fsys, root, paths)
}

// loadFiles reads paths; StdinPath means stdin when stdin is not nil (only
// templates can come from there), and is an ordinary file name otherwise.
func (l *fileLoader) loadFiles(fsys filesys.Reader, root *loadroot.Root, paths []string, skip ...string) ([]*manifest.Object, error) {
	lim, what, stdin := l.lim, l.what, l.stdin
	l.maxBytes = lim.OrDefault().FileBytes
	l.read = userfs.ReadLimited(fsys, l.maxBytes)
	skipped := map[string]bool{}
	for _, f := range skip {
		skipped[sameFile(fsys, f)] = true
	}
	var objs []*manifest.Object
	var errs filepos.List
	for _, p := range paths {
		files, walked, err := []string{p}, false, error(nil)
		if p != StdinPath || stdin == nil {
			files, walked, err = manifestFiles(fsys, root, what, p, skipped)
		}
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if err := l.stopped(); err != nil {
				return nil, err
			}
			o, err := l.load(f, walked)
			if stop := l.stopped(); stop != nil {
				return nil, stop
			}
			errs = filepos.Append(errs, err)
			objs = append(objs, o...)
			if err != nil && lim.Spent() {
				// The run is past inputBytes or inputNodes: every further
				// file would be refused too, and reading them is what the
				// limits spare.
				return nil, errs.Err()
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return objs, nil
}

// fileLoader reads and parses one file at a time within the run's limits.
type fileLoader struct {
	lim      limits.Limits
	what     string
	stdin    io.Reader
	seen     func(int)
	maxBytes int
	read     func(string) ([]byte, error)
	ctx      context.Context // nil: never stopped
}

// stopped is why the read must stop, or nil.
func (l *fileLoader) stopped() error {
	if l.ctx == nil || l.ctx.Err() == nil {
		return nil
	}
	return context.Cause(l.ctx)
}

// load parses the objects of file f; walked files that hold no object
// (fragments and other partial YAML beside the templates) give none.
func (l *fileLoader) load(f string, walked bool) ([]*manifest.Object, error) {
	name, text, err := l.text(f)
	if err != nil {
		return nil, filepos.Errorf(filepos.Pos{File: name}, "cannot read %s: %v", l.what, filepos.FileError(err))
	}
	if l.seen != nil {
		l.seen(len(text))
	}
	src := manifest.NewSource(name, text)
	src.Limits = l.lim
	ctx := l.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	o, err := manifest.ParseContext(ctx, src)
	if err != nil {
		return nil, err
	}
	if walked && !anyObject(o) {
		return nil, nil
	}
	var errs filepos.List
	for _, x := range o {
		if x.Kind() == "" || x.APIVersion() == "" {
			errs = append(errs, filepos.Errorf(x.Pos(x.Node), "not a Kubernetes object: apiVersion and kind are required"))
		}
	}
	return o, errs.Err()
}

// text is the name f is reported under and its bytes.
func (l *fileLoader) text(f string) (string, []byte, error) {
	if f == StdinPath && l.stdin != nil {
		// up to one byte past the limit, as userfs.ReadLimited does
		text, err := io.ReadAll(io.LimitReader(l.stdin, int64(l.maxBytes)+1))
		return StdinName, text, err
	}
	text, err := l.read(f)
	return f, text, err
}

// sameFile is a key under which two spellings of one path compare equal.
func sameFile(fsys filesys.Reader, p string) string {
	if abs, err := userfs.Abs(fsys, p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// anyObject reports whether a file holds at least one Kubernetes object;
// directory walks skip files that hold none, such as injection fragments.
func anyObject(objs []*manifest.Object) bool {
	for _, o := range objs {
		if o.Kind() != "" {
			return true
		}
	}
	return false
}

// manifestFiles lists the files behind p, and whether they were found by
// walking a directory (rather than named by the user). The walk follows no
// link to a directory; a link to a file must stay within p or root.
func manifestFiles(fsys filesys.Reader, root *loadroot.Root, what, p string, skip map[string]bool) ([]string, bool, error) {
	st, err := userfs.Stat(fsys, p)
	if err != nil {
		return nil, false, filepos.Errorf(filepos.Pos{File: p}, "cannot read %s: %v", what, filepos.FileError(err))
	}
	if !st.IsDir() {
		return []string{p}, false, nil
	}
	var files []string
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := userfs.ReadDir(fsys, dir)
		if err != nil {
			return filepos.Errorf(filepos.Pos{File: dir}, "cannot read %ss: %v", what, filepos.FileError(err))
		}
		for _, e := range entries { // ReadDir sorts by name
			name := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				if err := walk(name); err != nil {
					return err
				}
			case skip[sameFile(fsys, name)]:
			case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"):
				if e.Type()&fs.ModeSymlink != 0 {
					if err := root.CheckWalked(what, p, name); err != nil {
						return err
					}
				}
				files = append(files, name)
			}
		}
		return nil
	}
	if err := walk(p); err != nil {
		return nil, false, err
	}
	if len(files) == 0 {
		return nil, false, filepos.Errorf(filepos.Pos{File: p}, "no *.yaml or *.yml %ss in this directory", what)
	}
	return files, true, nil
}
