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
	"github.com/spf13/afero"

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
// repository commits next to its templates).
func (w Writer) Compare(e *render.Engine, dir string) (*Diff, *render.Result, error) {
	files := map[string]objectFile{}
	var order []string
	res, err := eachFile(e, func(o objectFile) error {
		files[o.name] = o
		order = append(order, o.name)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	d := &Diff{patches: map[string]string{}}
	have, err := readTree(w.fs(), dir)
	if errors.Is(err, fs.ErrNotExist) {
		d.NoDir = true
		d.Missing = order
		return d, res, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, name := range order {
		old, ok := have[name]
		switch {
		case !ok:
			d.Missing = append(d.Missing, name)
		case old != string(files[name].text):
			d.Changed = append(d.Changed, name)
			// Both sides are the file in DIR (--update would write the new
			// one there, and patch -p0 applies the diff to it); after a tab,
			// as diff -u puts timestamps, the new side says where it is from.
			path, rendered := filepath.Join(dir, name), filepath.Join(dir, name)
			if src := files[name].pos.File; src != "" {
				rendered += "\trendered from " + src
			}
			d.patches[name] = udiff.Unified(path, rendered, old, string(files[name].text))
		}
		delete(have, name)
	}
	for name := range have {
		d.Extra = append(d.Extra, name)
	}
	sort.Strings(d.Extra)
	return d, res, nil
}

func readTree(fsys afero.Fs, dir string) (map[string]string, error) {
	if _, err := fsys.Stat(dir); err != nil {
		return nil, err
	}
	out := map[string]string{}
	err := afero.Walk(fsys, dir, func(p string, info fs.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, err := afero.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
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
