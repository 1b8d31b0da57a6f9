package krm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/lint"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/redact"
)

// unresolvedRule is the finding that is `krender render`'s error: a
// function renders, so it fails on it as render does; every other finding
// is a result, and render would not fail on it either.
const unresolvedRule = "unresolved-var"

// Annotations orchestrators put on items to say where they came from.
var (
	pathAnnotations  = []string{"internal.config.kubernetes.io/path", "config.kubernetes.io/path"}
	indexAnnotations = []string{"internal.config.kubernetes.io/index", "config.kubernetes.io/index"}
)

// findings turns check findings into results, masking secret values.
func findings(src *manifest.Source, set *manifest.Set, fs []lint.Finding, mask *redact.Text) ([]Result, error) {
	var errs filepos.List
	byRef := map[string]*manifest.Object{}
	for _, o := range set.Objects {
		byRef[o.Kind()+"/"+o.Name()] = o
	}
	for _, o := range set.Objects {
		// a finding in zone copies names the object as written: point at the first copy
		if w, _ := o.AsWritten(""); byRef[w] == nil {
			byRef[w] = o
		}
	}
	var out []Result
	for _, f := range fs {
		if f.Rule == unresolvedRule && f.Severity == filepos.Err {
			errs = append(errs, filepos.Errorf(f.Pos, "%s", f.Msg))
			continue
		}
		r := Result{
			Message:  mask.String(strings.TrimSuffix(f.Msg, ".") + ". Fix: " + f.Fix),
			Severity: severity(f.Severity),
			Tags:     map[string]string{"rule": f.Rule, "position": f.Pos.String()},
		}
		if o := byRef[f.Object]; o != nil {
			r.ResourceRef = &ResourceRef{APIVersion: o.APIVersion(), Kind: o.Kind(), Name: o.Name(), Namespace: o.Namespace()}
			if f.Pos.File == src.Path {
				if p := fieldPath(o.Node, f.Pos.Line, f.Pos.Col); p != "" {
					r.Field = &Field{Path: p}
				}
			}
			r.File = fileOf(o)
		}
		if r.File == nil && f.Pos.File != src.Path && f.Pos.File != "" {
			r.File = &File{Path: f.Pos.File} // an injected fragment's file
		}
		out = append(out, r)
	}
	return out, errs.Err()
}

func severity(s filepos.Severity) string {
	switch s {
	case filepos.Err:
		return "error"
	case filepos.Warning:
		return "warning"
	}
	return "info"
}

func fileOf(o *manifest.Object) *File {
	ann := manifest.Lookup(o.Node, "metadata", "annotations")
	for _, k := range pathAnnotations {
		if p := manifest.ScalarAt(ann, k); p != "" {
			f := &File{Path: p}
			for _, ik := range indexAnnotations {
				if i, err := strconv.Atoi(manifest.ScalarAt(ann, ik)); err == nil {
					f.Index = i
					break
				}
			}
			return f
		}
	}
	return nil
}

// fieldPath is the path (spec.template.spec.containers[0].image) of the
// node written at line:col below root, or "".
func fieldPath(root *yaml.Node, line, col int) string {
	var walk func(n *yaml.Node, path string) (string, bool)
	walk = func(n *yaml.Node, path string) (string, bool) {
		if n.Line == line && n.Column == col {
			return path, true
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if k.Line == line && k.Column == col {
					return p, true
				}
				if r, ok := walk(v, p); ok {
					return r, true
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if r, ok := walk(c, fmt.Sprintf("%s[%d]", path, i)); ok {
					return r, true
				}
			}
		}
		return "", false
	}
	p, _ := walk(root, "")
	return p
}

func asLoadError(err error, le **yaml.LoadError) bool { return errors.As(err, le) }
func asLoadErrors(err error, les **yaml.LoadErrors) bool {
	return errors.As(err, les) && len((*les).Errors) > 0
}
