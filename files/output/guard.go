package output

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/filepos"
)

// Marker is the file -o DIR writes into DIR listing the files it wrote, one
// slash-separated path a line. krender replaces DIR whole, so it does so only
// when DIR holds nothing but what the marker lists (see docs/output.md).
const Marker = ".krender-output"

const markerHeader = "# Written by `krender render -o`: the files below are krender's own. krender replaces this\n" +
	"# directory whole on its next run, and refuses to when it holds anything else (docs/output.md).\n"

// Guard is what -o DIR must never replace besides files krender did not
// write: the current directory (the file system's Getwd) and every input
// of the render, read from the same file system.
type Guard struct {
	Inputs []Input
	// Profile is the profile's file as given: when DIR holds other
	// renders' directories (-o rendered, a slip for -o rendered/prod), the
	// one named after it is the one suggested.
	Profile string
}

// Input is a file or directory the render reads.
type Input struct {
	Name string // as the command line or the profile gives it
	What string // "template", "profile", "fragment"
	Dir  bool   // a directory of templates, walked
}

func (in Input) String() string {
	if in.Dir {
		return "the " + in.What + "s directory " + in.Name
	}
	return "the " + in.What + " " + in.Name
}

// kubectlFormats are kubectl's -o words; -o yaml is kubectl's habit, not a
// directory the user wants.
var kubectlFormats = map[string]bool{
	"yaml": true, "json": true, "name": true, "wide": true, "kyaml": true,
	"jsonpath": true, "jsonpath-file": true, "jsonpath-as-json": true,
	"go-template": true, "go-template-file": true, "template": true, "templatefile": true,
	"custom-columns": true, "custom-columns-file": true,
}

// CheckFormatWord refuses -o yaml (and kubectl's other output formats) when
// no such directory exists: krender writes YAML to stdout by default. A
// directory of that name is still reachable as ./yaml.
func (w Writer) CheckFormatWord(arg string) error {
	word, _, _ := strings.Cut(arg, "=")
	if !kubectlFormats[word] {
		return nil
	}
	if _, err := w.fs().Lstat(arg); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("-o %s is kubectl's output format, not a directory: krender writes YAML to stdout by default "+
		"(drop -o), and -o DIR writes one file per object under DIR; write -o ./%s for a directory named %s", arg, arg, arg)
}

// checkDir refuses a DIR that -o must not replace. It runs before anything
// is written, and again just before the swap.
func (w Writer) checkDir(dir string) error {
	fsys := w.fs()
	fi, err := fsys.Lstat(dir)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// A link would be replaced, not followed, and a file deleted: refused.
	if exists && !fi.IsDir() {
		what := "a file"
		if fi.Mode()&os.ModeSymlink != 0 {
			what = "a symbolic link; krender replaces DIR whole, so it would replace the link rather than write where it points"
		}
		return dirError(dir, "the output directory is %s: give a directory, or a path that does not exist yet", what)
	}
	if err := w.checkPlaces(dir); err != nil {
		return err
	}
	if !exists {
		return nil
	}
	return checkOwned(fsys, dir, w.Guard.profileName())
}

// profileName is the profile's file name without its extension, or "".
func (g Guard) profileName() string {
	if g.Profile == "" || g.Profile == "-" {
		return ""
	}
	base := filepath.Base(g.Profile)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func dirError(dir, format string, args ...any) error {
	return filepos.Errorf(filepos.Pos{File: dir}, format, args...)
}

// checkPlaces refuses a DIR that is or holds the current directory or an
// input, or lies inside a templates directory.
func (w Writer) checkPlaces(dir string) error {
	wd, err := w.fs().Getwd()
	if err != nil {
		return err
	}
	at := w.resolve(wd, dir)
	cwd := w.resolve(wd, wd)
	switch {
	case at == cwd:
		return dirError(dir, "the output directory is the current directory; krender replaces DIR whole and would delete everything else here: give a directory of its own, such as rendered/")
	case within(cwd, at):
		return dirError(dir, "the output directory holds the current directory; krender replaces DIR whole and would delete everything else in it: give a directory of its own, such as rendered/")
	}
	for _, in := range w.Guard.Inputs {
		p := w.resolve(wd, in.Name)
		switch {
		case p == at:
			return dirError(dir, "the output directory is %s, which this render reads; krender replaces DIR whole and would delete it: give a directory of its own", in)
		case within(p, at):
			return dirError(dir, "the output directory holds %s, which this render reads; krender replaces DIR whole and would delete it: give a directory of its own", in)
		case in.Dir && within(at, p):
			return dirError(dir, "the output directory is inside %s, so the next render would read its files as templates: give a directory outside it", in)
		}
	}
	return nil
}

// resolve makes p absolute from wd, the file system's working directory,
// and follows the symbolic links of the part of it that exists (RealPath:
// a file system without links, such as filesys.Mem, takes it lexically).
func (w Writer) resolve(wd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(wd, p)
	}
	p = filepath.Clean(p)
	fsys := w.fs()
	for rest := ""; ; {
		if r, err := fsys.RealPath(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// within reports whether p lies strictly under dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkOwned refuses a DIR that holds anything its marker does not list:
// an empty DIR, or one holding only files krender wrote, may be replaced.
func checkOwned(fsys filesys.FileSystem, dir, profile string) error {
	entries, modes, err := listDir(fsys, dir)
	if err != nil || len(entries) == 0 {
		return err
	}
	if err := checkMarked(dir, entries, modes, profile); err != nil {
		return err
	}
	owned, err := readMarker(fsys, dir)
	if err != nil {
		return err
	}
	var stray []string
	for _, e := range entries {
		if e == Marker || owned[e] && modes[e].IsRegular() || modes[e].IsDir() && owned[e+"/"] {
			continue
		}
		stray = append(stray, e)
	}
	if len(stray) > 0 {
		return dirError(dir, "the output directory holds %s, which krender did not write (%s does not list it); krender replaces DIR whole and would delete %s: "+
			"move it away, or give a directory of its own", describe(stray, modes), path.Join(filepath.ToSlash(dir), Marker), them(stray))
	}
	return nil
}

// listDir is everything under dir, slash-separated, relative to dir, in
// lexical order, with each entry's mode.
func listDir(fsys filesys.FileSystem, dir string) ([]string, map[string]fs.FileMode, error) {
	var entries []string
	modes := map[string]fs.FileMode{}
	err := filesys.Walk(fsys, dir, func(p string, info fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(dir, p); rel != "." {
			rel = filepath.ToSlash(rel)
			entries = append(entries, rel)
			modes[rel] = info.Mode()
		}
		return nil
	})
	return entries, modes, err
}

// checkMarked refuses a non-empty DIR that is not krender's by its marker:
// one holding a Git repository, another render's output, or no marker file.
func checkMarked(dir string, entries []string, modes map[string]fs.FileMode, profile string) error {
	for _, e := range entries {
		if path.Base(e) == ".git" {
			return dirError(dir, "the output directory holds %s, a Git repository's data, which krender did not write; krender replaces DIR whole and would delete it: give a directory of its own", e)
		}
	}
	mode, hasMarker := modes[Marker]
	if sub := otherRender(entries); sub != "" && !hasMarker { // -o rendered, a slip for -o rendered/prod
		if profile == "" {
			profile = sub
		}
		return dirError(dir, "the output directory holds %s/, another render's output (it has its own %s); krender replaces DIR whole and would delete it: did you mean -o %s?",
			sub, Marker, path.Join(filepath.ToSlash(dir), profile))
	}
	if !hasMarker {
		return dirError(dir, "the output directory holds %s and has no %s, so krender did not write it; krender replaces DIR whole and would delete %s: "+
			"give a new or empty directory (if an earlier krender wrote DIR, delete it and render again)", describe(entries, modes), Marker, them(entries))
	}
	if !mode.IsRegular() {
		return dirError(dir, "the output directory's %s is not a file krender wrote: give a new or empty directory", Marker)
	}
	return nil
}

// otherRender is the first directory of entries that has a marker of its
// own, or "".
func otherRender(entries []string) string {
	for _, e := range entries {
		if sub, ok := strings.CutSuffix(e, "/"+Marker); ok {
			return sub
		}
	}
	return ""
}

// describe names the first of entries and counts the rest.
func describe(entries []string, modes map[string]fs.FileMode) string {
	first := entries[0]
	switch m := modes[first]; {
	case m&fs.ModeSymlink != 0:
		first += " (a symbolic link)"
	case m.IsDir():
		first += "/"
	}
	if n := len(entries) - 1; n > 0 {
		return fmt.Sprintf("%s (and %d more)", first, n)
	}
	return first
}

func them(entries []string) string {
	if len(entries) > 1 {
		return "them"
	}
	return "it"
}

// readMarker reads the files DIR's marker lists, and every directory above
// them (with a trailing slash). Only names krender writes are accepted, so
// a hand-edited marker cannot make krender delete anything else.
func readMarker(fsys filesys.FileSystem, dir string) (map[string]bool, error) {
	name := filepath.Join(dir, Marker)
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	owned := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		e := strings.TrimSpace(sc.Text())
		if e == "" || strings.HasPrefix(e, "#") {
			continue
		}
		parts := strings.Split(e, "/")
		if !strings.HasSuffix(e, ".yaml") || len(parts) > 2 || path.Clean(e) != e || parts[0] == ".." || parts[0] == "" {
			return nil, filepos.Errorf(filepos.Pos{File: name, Line: line, Col: 1}, "%q is not a file krender writes (TENANT/KIND-NAME.yaml or KIND-NAME.yaml): give a new or empty directory", e)
		}
		owned[e] = true
		if len(parts) == 2 {
			owned[parts[0]+"/"] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return owned, nil
}

// writeMarker lists the files written into tmp, sorted.
func writeMarker(fsys filesys.FileSystem, tmp string, names []string) error {
	sorted := make([]string, len(names))
	for i, n := range names {
		sorted[i] = filepath.ToSlash(n)
	}
	sort.Strings(sorted)
	var b strings.Builder
	b.WriteString(markerHeader)
	for _, n := range sorted {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return fsys.WriteFile(filepath.Join(tmp, Marker), []byte(b.String()), 0o644)
}
