package inject

import (
	"regexp"
	"sort"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
)

// placeholder is `__NAME__` with NAME in upper case, words joined by single
// underscores, so that shell and Python dunders (`__init__`) are left alone.
var placeholder = regexp.MustCompile(`__([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)__`)

// fragment is a parsed fragment file with its placeholders filled: the same
// for every tenant, so it is built once and grafted (copied) per target.
type fragment struct {
	src  *manifest.Source
	node *yaml.Node
}

// loadFragment reads, parses and fills the fragment of in. It decodes as
// yq's load() does, so comments travel the same way: one right above the
// first key goes with it, one set off by a blank line stays in the file.
func loadFragment(read func(string) ([]byte, error), in profiles.Inject, lim limits.Limits) (*fragment, error) {
	if in.Fragment.Value == "" {
		return nil, filepos.Errorf(in.Pos, "inject %s needs a fragment: the file to inject, relative to this profile", in.Name.Value)
	}
	text, err := read(in.FragmentPath)
	if err != nil {
		return nil, filepos.Errorf(in.Fragment.Pos, "cannot read fragment %s: %v", in.FragmentPath, filepos.FileError(err))
	}
	src := manifest.NewSource(in.FragmentPath, text)
	src.Limits = lim
	var node *yaml.Node
	err = manifest.Decode(src, yqlib.LoadYamlPreferences, func(_ int, n *yaml.Node, _ string) error {
		if node != nil {
			return filepos.Errorf(filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column},
				"a fragment is one YAML document; this is a second one")
		}
		node = n
		return nil
	})
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, filepos.Errorf(filepos.Pos{File: src.Path}, "fragment is empty")
	}
	if err := fillPlaceholders(src, node, in); err != nil {
		return nil, err
	}
	return &fragment{src: src, node: node}, nil
}

// fillPlaceholders replaces every `__NAME__` in the fragment's scalars (keys
// included; comments are prose and left as written) with its checked value.
// It works on parsed scalars, so no value can change the YAML structure.
func fillPlaceholders(src *manifest.Source, node *yaml.Node, in profiles.Inject) error {
	f := &filler{src: src, in: in, used: map[string]bool{}}
	f.texts, f.errs = checkedTexts(in)
	manifest.WalkScalars(node, f.scalar)
	return append(f.errs, unusedValues(src, in, f.used)...).Err()
}

// filler fills the placeholders of one fragment, noting the names it used
// and the placeholders that have no value.
type filler struct {
	src   *manifest.Source
	in    profiles.Inject
	texts map[string]string // checked values by name
	used  map[string]bool
	errs  filepos.List
}

// checkedTexts is each well-named value's checked text.
func checkedTexts(in profiles.Inject) (map[string]string, filepos.List) {
	var errs filepos.List
	texts := map[string]string{}
	for name, iv := range in.Values {
		if !placeholderName.MatchString(name) {
			errs = append(errs, filepos.Errorf(iv.Pos, "value name %q must be upper case words joined by '_' (it fills __%s__)", name, name))
			continue
		}
		t, err := fill(name, iv)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		texts[name] = t
	}
	return texts, errs
}

// scalar replaces the placeholders in one scalar.
func (f *filler) scalar(n *yaml.Node, key bool) {
	locs := placeholder.FindAllStringSubmatchIndex(n.Value, -1)
	if len(locs) == 0 {
		return
	}
	found := make([]string, len(locs))
	for i, l := range locs {
		found[i] = n.Value[l[0]:l[1]]
	}
	pos := f.src.TextPositions(n, found)
	var b strings.Builder
	last := 0
	for i, l := range locs {
		name := n.Value[l[2]:l[3]]
		f.used[name] = true
		t, ok := f.texts[name]
		if _, declared := f.in.Values[name]; !declared {
			f.errs = append(f.errs, filepos.Errorf(pos[i], "placeholder __%s__ has no value: add it under values of inject %s (%s)",
				name, f.in.Name.Value, f.in.Pos))
		}
		if !ok {
			t = n.Value[l[0]:l[1]] // reported above or at the value
		}
		b.WriteString(n.Value[last:l[0]])
		b.WriteString(t)
		last = l[1]
	}
	b.WriteString(n.Value[last:])
	whole := len(locs) == 1 && locs[0][0] == 0 && locs[0][1] == len(n.Value)
	n.Value = b.String()
	if whole && !key && n.Style == 0 {
		n.Tag = manifest.PlainTag(n.Value) // `port: __PORT__` is a number, as it is after sed
	}
}

// unusedValues reports, in name order, the well-named values no
// placeholder of the fragment asked for.
func unusedValues(src *manifest.Source, in profiles.Inject, used map[string]bool) filepos.List {
	var names []string
	for name := range in.Values {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs filepos.List
	for _, name := range names {
		if !used[name] && placeholderName.MatchString(name) {
			iv := in.Values[name]
			errs = append(errs, filepos.Errorf(iv.Pos, "value %s fills no placeholder: %s has no __%s__", name, src.Path, name))
		}
	}
	return errs
}
