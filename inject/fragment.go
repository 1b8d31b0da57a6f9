package inject

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/profiles"
)

// placeholder is `__NAME__` with NAME in upper case, words joined by single
// underscores, so that shell and Python dunders (`__init__`) are left alone.
var placeholder = regexp.MustCompile(`__([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)__`)

// fragment is a parsed fragment file with its placeholders filled: the same
// for every tenant, so it is built once and cloned per target.
type fragment struct {
	src  *manifest.Source
	node *yaml.Node
}

// loadFragment reads, parses and fills the fragment of in. It decodes as
// yq's load() does, so comments travel the same way: one right above the
// first key goes with it, one set off by a blank line stays in the file.
func loadFragment(read func(string) ([]byte, error), in profiles.Inject) (*fragment, error) {
	if in.Fragment.Value == "" {
		return nil, filepos.Errorf(in.Pos, "inject %s needs a fragment: the file to inject, relative to this profile", in.Name.Value)
	}
	text, err := read(in.FragmentPath)
	if err != nil {
		return nil, filepos.Errorf(in.Fragment.Pos, "cannot read fragment %s: %v", in.FragmentPath, unwrapPathError(err))
	}
	src := manifest.NewSource(in.FragmentPath, text)
	dec := yqlib.NewYamlDecoder(yqlib.LoadYamlPreferences)
	if err := dec.Init(bytes.NewReader(text)); err != nil {
		return nil, filepos.Errorf(filepos.Pos{File: src.Path}, "%v", err)
	}
	var node *yaml.Node
	for {
		cn, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, yamlError(src, err)
		}
		n, err := cn.MarshalYAML()
		if err != nil {
			return nil, filepos.Errorf(filepos.Pos{File: src.Path}, "%v", err)
		}
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			continue
		}
		if node != nil {
			return nil, filepos.Errorf(filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column},
				"a fragment is one YAML document; this is a second one")
		}
		node = n
	}
	if node == nil {
		return nil, filepos.Errorf(filepos.Pos{File: src.Path}, "fragment is empty")
	}
	if err := manifest.CheckDuplicateKeys(src, node); err != nil {
		return nil, err
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
	used := map[string]bool{}
	manifest.WalkScalars(node, func(n *yaml.Node, key bool) {
		locs := placeholder.FindAllStringSubmatchIndex(n.Value, -1)
		if len(locs) == 0 {
			return
		}
		pos := textPositions(src, n, locs)
		var b strings.Builder
		last := 0
		for i, l := range locs {
			name := n.Value[l[2]:l[3]]
			used[name] = true
			t, ok := texts[name]
			if _, declared := in.Values[name]; !declared {
				errs = append(errs, filepos.Errorf(pos[i], "placeholder __%s__ has no value: add it under values of inject %s (%s)",
					name, in.Name.Value, in.Pos))
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
			n.Tag = plainTag(n.Value) // `port: __PORT__` is a number, as it is after sed
		}
	})
	var names []string
	for name := range in.Values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !used[name] && placeholderName.MatchString(name) {
			iv := in.Values[name]
			errs = append(errs, filepos.Errorf(iv.Pos, "value %s fills no placeholder: %s has no __%s__", name, src.Path, name))
		}
	}
	return errs.Err()
}

// plainTag is the tag a plain scalar with text v resolves to.
func plainTag(v string) string {
	var n yaml.Node
	if err := yaml.Load([]byte(v), &n); err != nil || n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return "!!str"
	}
	c := n.Content[0]
	if c.Kind != yaml.ScalarNode || c.Style != 0 || c.Value != v {
		return "!!str"
	}
	return c.Tag
}

// textPositions finds where each match in n's value was written: from the
// scalar's start, each match's text is looked up in order in the file, which
// holds for every style because a placeholder has nothing YAML escapes.
func textPositions(src *manifest.Source, n *yaml.Node, locs [][]int) []filepos.Pos {
	out := make([]filepos.Pos, len(locs))
	from := src.Offset(n.Line, n.Column)
	for i, l := range locs {
		out[i] = filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column}
		if from < 0 {
			continue
		}
		text := n.Value[l[0]:l[1]]
		k := bytes.Index(src.Text[from:], []byte(text))
		if k < 0 {
			from = -1
			continue
		}
		out[i] = src.PosAt(from + k)
		from += k + len(text)
	}
	return out
}

func yamlError(src *manifest.Source, err error) error {
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return manifest.LoadError(src.Path, le)
	}
	return filepos.Errorf(filepos.Pos{File: src.Path}, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}

func unwrapPathError(err error) error {
	var pe interface{ Unwrap() error }
	if errors.As(err, &pe) {
		if inner := pe.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// clone deep-copies a fragment so each target gets nodes of its own.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			c.Content[i] = clone(ch)
		}
	}
	return &c
}
