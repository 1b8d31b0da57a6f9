package output

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/render"
)

// Diff is how a render differs from a directory written by `-o DIR`.
type Diff struct {
	Changed []string // relative paths whose content differs
	Missing []string // rendered, but not in the directory
	Extra   []string // in the directory, but no longer rendered
	NoDir   bool     // the directory does not exist at all
	patches map[string]string
}

// Empty reports whether the directory matches the render exactly.
func (d *Diff) Empty() bool {
	return !d.NoDir && len(d.Changed)+len(d.Missing)+len(d.Extra) == 0
}

// Compare renders everything and compares it with dir (the golden copy a
// repository commits next to its templates), file by file as the units
// render: what it holds is the names of dir's files and the patches, not
// the rendered files, so memory does not grow with the fleet (as -o DIR).
func (w Writer) Compare(e *render.Engine, dir string) (*Diff, *render.Result, error) {
	c := comparison{fsys: w.fs(), dir: dir, d: &Diff{patches: map[string]string{}}}
	c.have, c.treeErr = treeNames(c.fsys, dir)
	res, err := eachFile(e, func(o objectFile) error {
		if err := w.stopped(); err != nil {
			return err
		}
		return c.file(o)
	})
	if err != nil {
		return nil, nil, err
	}
	if errors.Is(c.treeErr, fs.ErrNotExist) {
		c.d.NoDir = true
		return c.d, res, nil
	}
	if c.treeErr != nil {
		return nil, nil, c.treeErr
	}
	for name := range c.have {
		c.d.Extra = append(c.d.Extra, name)
	}
	sort.Strings(c.d.Extra)
	return c.d, res, nil
}

// comparison is one Compare under way.
type comparison struct {
	fsys    filesys.FileSystem
	dir     string
	d       *Diff
	have    map[string]bool // dir's files not yet rendered
	treeErr error           // reading dir failed: a render error comes first
}

// file compares one rendered file with its copy in dir.
func (c *comparison) file(o objectFile) error {
	if c.treeErr != nil || !c.have[o.name] {
		c.d.Missing = append(c.d.Missing, o.name)
		return nil
	}
	delete(c.have, o.name)
	path := filepath.Join(c.dir, o.name)
	b, err := c.fsys.ReadFile(path)
	if err != nil {
		c.treeErr = err
		return nil
	}
	if old := string(b); old != string(o.text) {
		c.d.Changed = append(c.d.Changed, o.name)
		// Both sides are the file in DIR (--update would write the new
		// one there, and patch -p0 applies the diff to it); after a tab,
		// as diff -u puts timestamps, the new side says where it is from.
		rendered := path
		if src := o.pos.File; src != "" {
			rendered += "\trendered from " + src
		}
		c.d.patches[o.name] = udiff.Unified(path, rendered, old, string(o.text))
	}
	return nil
}

// treeNames are the *.yaml files under dir, relative to it.
func treeNames(fsys filesys.FileSystem, dir string) (map[string]bool, error) {
	if _, err := fsys.Stat(dir); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	err := filesys.Walk(fsys, dir, func(p string, info fs.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = true
		return nil
	})
	return out, err
}

// Write prints the difference: a unified diff per changed file (coloured
// when color is set), then missing and extra files.
func (d *Diff) Write(w io.Writer, dir string, color bool) {
	if d.NoDir {
		fmt.Fprintf(w, "%s does not exist: nothing to compare with (write it with --update)\n", dir)
		return
	}
	for _, name := range d.Changed {
		writePatch(w, d.patches[name], color)
	}
	for _, name := range d.Missing {
		fmt.Fprintf(w, "missing: %s (rendered, but not in %s)\n", filepath.Join(dir, name), dir)
	}
	for _, name := range d.Extra {
		fmt.Fprintf(w, "extra: %s (in %s, but no longer rendered)\n", filepath.Join(dir, name), dir)
	}
	fmt.Fprintf(w, "%d changed, %d missing, %d extra\n", len(d.Changed), len(d.Missing), len(d.Extra))
}

func writePatch(w io.Writer, patch string, color bool) {
	if !color {
		io.WriteString(w, patch)
		return
	}
	for _, line := range strings.SplitAfter(patch, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			fmt.Fprintf(w, "\x1b[1m%s\x1b[0m", strings.TrimSuffix(line, "\n"))
		case strings.HasPrefix(line, "+"):
			fmt.Fprintf(w, "\x1b[32m%s\x1b[0m", strings.TrimSuffix(line, "\n"))
		case strings.HasPrefix(line, "-"):
			fmt.Fprintf(w, "\x1b[31m%s\x1b[0m", strings.TrimSuffix(line, "\n"))
		case strings.HasPrefix(line, "@@"):
			fmt.Fprintf(w, "\x1b[36m%s\x1b[0m", strings.TrimSuffix(line, "\n"))
		default:
			io.WriteString(w, strings.TrimSuffix(line, "\n"))
		}
		if strings.HasSuffix(line, "\n") {
			io.WriteString(w, "\n")
		}
	}
}
