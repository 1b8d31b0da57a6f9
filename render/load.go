package render

import (
	"path/filepath"
	"strings"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
)

// LoadTemplates parses every template under paths: files as given, directories
// walked recursively for *.yaml and *.yml in lexical order. Every file's
// errors are reported together. Files in skip (the profile's fragments, which
// often live beside the templates) are passed over in directory walks.
func LoadTemplates(fsys FS, paths []string, skip ...string) ([]*manifest.Object, error) {
	return loadTemplates(fsys, manifest.Limits{}, paths, nil, skip...)
}

// LoadManifests reads files and directories of manifests as LoadTemplates
// does; errors call them what (e.g. "CRD file").
func LoadManifests(fsys FS, what string, paths []string) ([]*manifest.Object, error) {
	return loadFiles(fsys, manifest.Limits{}, what, paths, nil)
}

// loadTemplates is LoadTemplates within the run's limits. read, when set,
// is told the bytes of each file before it is parsed.
func loadTemplates(fsys FS, lim manifest.Limits, paths []string, read func(int), skip ...string) ([]*manifest.Object, error) {
	return loadFiles(fsys, lim, "template", paths, read, skip...)
}

func loadFiles(fsys FS, lim manifest.Limits, what string, paths []string, seen func(int), skip ...string) ([]*manifest.Object, error) {
	read := readLimited(fsys, lim.OrDefault().FileBytes)
	var objs []*manifest.Object
	var errs filepos.List
	skipped := map[string]bool{}
	for _, f := range skip {
		skipped[sameFile(f)] = true
	}
	for _, p := range paths {
		files, walked, err := manifestFiles(fsys, what, p, skipped)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			text, err := read(f)
			if err != nil {
				errs = append(errs, filepos.Errorf(filepos.Pos{File: f}, "cannot read %s: %v", what, filepos.FileError(err)))
				continue
			}
			if seen != nil {
				seen(len(text))
			}
			src := manifest.NewSource(f, text)
			src.Limits = lim
			o, err := manifest.Parse(src)
			if err != nil {
				errs = filepos.Append(errs, err)
				continue
			}
			if walked && !anyObject(o) {
				continue // a fragment or other partial YAML beside the templates
			}
			for _, x := range o {
				if x.Kind() == "" || x.APIVersion() == "" {
					errs = append(errs, filepos.Errorf(x.Pos(x.Node), "not a Kubernetes object: apiVersion and kind are required"))
				}
			}
			objs = append(objs, o...)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return objs, nil
}

// sameFile is a key under which two spellings of one path compare equal.
func sameFile(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
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
// walking a directory (rather than named by the user).
func manifestFiles(fsys FS, what, p string, skip map[string]bool) ([]string, bool, error) {
	st, err := fsys.Stat(p)
	if err != nil {
		return nil, false, filepos.Errorf(filepos.Pos{File: p}, "cannot read %s: %v", what, filepos.FileError(err))
	}
	if !st.IsDir() {
		return []string{p}, false, nil
	}
	var files []string
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := fsys.ReadDir(dir)
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
			case skip[sameFile(name)]:
			case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"):
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
