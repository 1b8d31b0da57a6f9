package manifest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
)

// Parse reads every document of src. It goes through yqlib's decoder so that
// leading comments and `---` lines come out exactly as `yq` would print them,
// which keeps krender's output byte-compatible with the pipelines it replaces.
// Empty documents (a trailing `---`) are no objects, but yq prints them, so
// they travel as text on the object next to them.
func Parse(src *Source) ([]*Object, error) { return ParseContext(context.Background(), src) }

// ParseContext is Parse, stopped before the next document once ctx is
// done, with its cause: a file of 8 MiB takes seconds to parse.
func ParseContext(ctx context.Context, src *Source) ([]*Object, error) {
	var objs []*Object
	before := "" // empty documents before the first object, as leading content
	err := decode(ctx, src, yqlib.NewDefaultYamlPreferences(), func(doc int, n *yaml.Node, leading string) error {
		if isEmptyDoc(n) {
			if len(objs) > 0 {
				objs[len(objs)-1].Trailer += emptyDocText(n, leading)
			} else {
				before += emptyDocLeading(n, leading)
			}
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return filepos.Errorf(filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column},
				"document %d is not a mapping; a Kubernetes object is expected", doc+1)
		}
		if l := asList(n, before+leading); l != nil {
			for _, item := range l.items.Content {
				objs = append(objs, &Object{Node: item, Src: src, Doc: doc, List: l})
			}
		} else {
			objs = append(objs, &Object{Node: n, Src: src, Doc: doc, Leading: before + leading})
		}
		before = ""
		return nil
	})
	return objs, err
}

// Decode hands each non-empty document of src to f, with its index and the
// comments and separators before it, after checking it for duplicate keys.
// prefs chooses how yqlib attaches leading comments (its load() differs from
// its command line).
func Decode(src *Source, prefs yqlib.YamlPreferences, f func(doc int, n *yaml.Node, leading string) error) error {
	return decode(context.Background(), src, prefs, func(doc int, n *yaml.Node, leading string) error {
		if isEmptyDoc(n) {
			return nil
		}
		return f(doc, n, leading)
	})
}

// decode is Decode with the empty documents included, stopped before a
// document when ctx is done. Every document is held to the
// limits before the stages see it.
func decode(ctx context.Context, src *Source, prefs yqlib.YamlPreferences, f func(doc int, n *yaml.Node, leading string) error) error {
	stop := &Set{Context: ctx}
	check, err := src.Limits.Decoding(src.LimitsFile(), prefs.LeadingContentPreProcessing)
	if err != nil {
		return err
	}
	dec := yqlib.NewYamlDecoder(prefs)
	if err := dec.Init(bytes.NewReader(src.Text)); err != nil {
		return filepos.Errorf(filepos.Pos{File: src.Path}, "%v", err)
	}
	for doc := 0; ; doc++ {
		if err := stop.Stopped(); err != nil {
			return err
		}
		cn, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return yamlError(src, err)
		}
		n, err := cn.MarshalYAML()
		if err != nil {
			return filepos.Errorf(filepos.Pos{File: src.Path}, "%v", err)
		}
		if !isEmptyDoc(n) {
			if err := check.Document(n, doc); err != nil {
				return err
			}
			if err := CheckDuplicateKeys(src, n); err != nil {
				return err
			}
		}
		if err := f(doc, n, cn.LeadingContent); err != nil {
			return err
		}
	}
}

// isEmptyDoc: an empty or comment-only document (or an explicit null).
func isEmptyDoc(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// emptyDocText is what yq prints for an empty document that follows another:
// the separator, then its value on a line of its own (an empty line for a
// bare trailing `---`). yq drops comments inside it.
func emptyDocText(n *yaml.Node, leading string) string {
	var b strings.Builder
	if !strings.HasPrefix(leading, yqDocSeparator) {
		b.WriteString("---\n")
	}
	_ = yqlib.PrintYAMLLeadingContent(&b, leading, true, false) // a strings.Builder does not fail
	if leading == "" || n.Value != "" {
		b.WriteString(n.Value + "\n")
	}
	return b.String()
}

// emptyDocLeading is an empty document before a file's first object, as part
// of that object's leading content: it prints the same, except that an
// explicit `null` becomes a comment.
func emptyDocLeading(n *yaml.Node, leading string) string {
	text := leading
	if leading == "" || n.Value != "" {
		text += n.Value + "\n"
	}
	return text + yqDocSeparator + "\n"
}

// CheckDuplicateKeys rejects a mapping with a key twice: go-yaml keeps the
// last silently when decoding into nodes, and kubectl would reject it.
func CheckDuplicateKeys(src *Source, n *yaml.Node) error {
	var errs filepos.List
	Walk(n, func(m *yaml.Node) {
		if m.Kind != yaml.MappingNode {
			return
		}
		var seen map[string]*yaml.Node // for large mappings only
		if len(m.Content) > 2*smallMapping {
			seen = map[string]*yaml.Node{}
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k := m.Content[i]
			if mergeKey(k) {
				continue
			}
			if prev := earlierKey(m, i, seen); prev != nil {
				errs = append(errs, filepos.Errorf(filepos.Pos{File: src.Path, Line: k.Line, Col: k.Column},
					"duplicate key %q (first at line %d)", k.Value, prev.Line))
			}
			if seen != nil {
				seen[k.Value] = k
			}
		}
	})
	return errs.Err()
}

// smallMapping: up to this many keys, a mapping's keys are compared with
// each other rather than put in a map (most mappings of a manifest).
const smallMapping = 16

func mergeKey(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.Value == "<<" }

// earlierKey is the last key before the i-th entry of m with its text, or
// nil; seen holds the keys before it when m is large.
func earlierKey(m *yaml.Node, i int, seen map[string]*yaml.Node) *yaml.Node {
	if seen != nil {
		return seen[m.Content[i].Value]
	}
	for j := i - 2; j >= 0; j -= 2 {
		if p := m.Content[j]; !mergeKey(p) && p.Value == m.Content[i].Value {
			return p
		}
	}
	return nil
}

// yamlError turns a go-yaml error into one that names the file.
func yamlError(src *Source, err error) error {
	if le := LoadErrors(src, err, nil); le != nil {
		return le
	}
	return filepos.Errorf(filepos.Pos{File: src.Path}, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// LoadErrors states the go-yaml load errors err holds (a *yaml.LoadError,
// or the errors of a *yaml.LoadErrors) at their places in src: a tab in
// indentation at the tab (see TabError), any other error through restate
// when that gives a message of the caller's own, else as LoadError does. It
// is nil when err holds no load error, for the caller to state.
func LoadErrors(src *Source, err error, restate func(*yaml.LoadError) string) error {
	one := func(e *yaml.LoadError) *filepos.Error {
		if te := TabError(src, e); te != nil {
			return te
		}
		if fe := FlowReferenceError(src, e); fe != nil {
			return fe
		}
		if restate != nil {
			if msg := restate(e); msg != "" {
				return filepos.Errorf(filepos.Pos{File: src.Path, Line: e.Mark.Line, Col: e.Mark.Column}, "%s", msg)
			}
		}
		return LoadError(src.Path, e)
	}
	var les *yaml.LoadErrors // first: it answers As for *yaml.LoadError with its first error
	if errors.As(err, &les) && len(les.Errors) > 0 {
		var l filepos.List
		for _, e := range les.Errors {
			l = append(l, one(e))
		}
		return l.Err()
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return one(le)
	}
	return nil
}

// TabError restates a go-yaml error caused by a tab in a line's indentation
// ("found character that cannot start any token", "found a tab character
// that violates indentation"), at the tab; nil for any other error. Editors
// hide tabs, and go-yaml's words do not say what to fix.
func TabError(src *Source, e *yaml.LoadError) *filepos.Error {
	if !strings.Contains(e.Message, "tab") && !strings.Contains(e.Message, "cannot start any token") {
		return nil
	}
	for _, line := range []int{e.Mark.Line, e.ContextMark.Line} {
		if line < 1 || line > len(src.lineStarts) {
			continue
		}
		text := src.Text[src.lineStarts[line-1]:]
		for i, c := range text {
			if c == '\t' {
				return filepos.Errorf(filepos.Pos{File: src.Path, Line: line, Col: i + 1},
					"invalid YAML: found a tab character in indentation; YAML indents with spaces")
			}
			if c != ' ' {
				break
			}
		}
	}
	return nil
}

// FlowReferenceError restates a go-yaml error caused by an unquoted ${NAME}
// inside a flow collection (`labels: {tier: ${TIER}}`, `args: [--x=${X}]`)
// at its $, saying to quote it; nil for any other error. The parser stops at
// the reference's {, which a flow collection reads as its own, and says only
// that a ',' is missing. A template that envsubst rewrote before any YAML
// reader saw it worked so; krender reads the YAML first.
func FlowReferenceError(src *Source, e *yaml.LoadError) *filepos.Error {
	collection := map[string]string{"while parsing a flow mapping": "mapping {...}", "while parsing a flow sequence": "sequence [...]"}[e.ContextMsg]
	off := src.Offset(e.Mark.Line, e.Mark.Column)
	if collection == "" || off < 1 || off >= len(src.Text) || src.Text[off] != '{' || src.Text[off-1] != '$' {
		return nil
	}
	ref := "${"
	if end := bytes.IndexAny(src.Text[off:], "}\n"); end > 0 && src.Text[off+end] == '}' {
		ref = string(src.Text[off-1 : off+end+1])
	}
	return filepos.Errorf(src.PosAt(off-1),
		"invalid YAML: %s inside a flow %s must be quoted (\"...%s...\"): unquoted, YAML reads its { as the start of another collection", ref, collection, ref)
}

// LoadError states a go-yaml error at one position: where the parser gave
// up (a missing comma, a stray brace, a line indented wrong), or, when a
// quote or a flow collection is still open on a later line, where it was
// opened, which is what the user has to close.
func LoadError(path string, e *yaml.LoadError) *filepos.Error {
	pos := filepos.Pos{File: path, Line: e.Mark.Line, Col: e.Mark.Column}
	if e.ContextMsg == "" || e.ContextMark.Line == 0 || e.ContextMark == e.Mark {
		return filepos.Errorf(pos, "invalid YAML: %s", e.Message)
	}
	if unclosed(e) {
		start := filepos.Pos{File: path, Line: e.ContextMark.Line, Col: e.ContextMark.Column}
		return filepos.Errorf(start, "invalid YAML: %s that starts here: %s", e.ContextMsg, e.Message)
	}
	return filepos.Errorf(pos, "invalid YAML: %s: %s", e.ContextMsg, e.Message)
}

// unclosed reports whether e is about a quoted scalar or a flow collection
// that the parser still found open on a later line than its opening.
func unclosed(e *yaml.LoadError) bool {
	delimited := strings.Contains(e.ContextMsg, "flow") || strings.Contains(e.ContextMsg, "quoted scalar")
	return delimited && e.Mark.Line > e.ContextMark.Line
}
