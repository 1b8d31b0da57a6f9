package krm

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
)

// Annotations orchestrators put on items to say where they came from: kpt
// and the functions spec write a path and a document index; kustomize
// writes an origin (with `buildMetadata: [originAnnotations]`), and an
// index that is the item's place in the list, not in a file.
var (
	pathAnnotations  = []string{"internal.config.kubernetes.io/path", "config.kubernetes.io/path"}
	indexAnnotations = []string{"internal.config.kubernetes.io/index", "config.kubernetes.io/index"}
)

const originAnnotation = "config.kubernetes.io/origin"

// originHint is said once when an error's file is unknown.
const originHint = " (to name the file, kustomize: buildMetadata: [originAnnotations])"

// A step of a field path: a mapping key, or a sequence index when key is "".
type step struct {
	key   string
	index int
}

type fieldPath struct {
	steps []step
	onKey bool // the position is the last key itself, not its value
}

// String writes the path as kubectl explain and kyaml's results do
// (spec.containers[0].image); a key holding a dot is bracketed.
func (p fieldPath) String() string {
	var b strings.Builder
	for _, s := range p.steps {
		switch {
		case s.key == "":
			fmt.Fprintf(&b, "[%d]", s.index)
		case strings.ContainsAny(s.key, ".[]"):
			b.WriteString("[" + s.key + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// origin is where an orchestrator says an item was read from.
type origin struct {
	file  string // "" when no annotation names one
	index int    // the document within file; -1: not said
	local bool   // file can be read from the directory the function runs in
}

func originOf(n *yaml.Node) origin {
	ann := manifest.Lookup(n, "metadata", "annotations")
	for _, k := range pathAnnotations {
		if p := manifest.ScalarAt(ann, k); p != "" {
			o := origin{file: p, index: -1, local: !filepath.IsAbs(p)}
			for _, ik := range indexAnnotations {
				if i, err := strconv.Atoi(manifest.ScalarAt(ann, ik)); err == nil {
					o.index = i
					break
				}
			}
			return o
		}
	}
	if text := manifest.ScalarAt(ann, originAnnotation); text != "" {
		var or struct{ Path, Repo, Ref string }
		if yaml.Unmarshal([]byte(text), &or) == nil && or.Path != "" {
			if or.Repo != "" { // a remote base: name it as kustomize's resources: would
				f := or.Repo + "//" + or.Path
				if or.Ref != "" {
					f += "?ref=" + or.Ref
				}
				return origin{file: f, index: -1}
			}
			return origin{file: or.Path, index: -1, local: !filepath.IsAbs(or.Path)}
		}
	}
	return origin{index: -1}
}

// entry is an item, or functionConfig, of the ResourceList.
type entry struct {
	node   *yaml.Node
	label  string // Kind/name, or functionConfig
	where  string // items[2]; "" for functionConfig
	kind   string
	name   string
	origin origin
}

// locator turns positions in the ResourceList, a stream the user never
// sees, into the file, object and field the orchestrator read it from.
type locator struct {
	src     *manifest.Source
	fsys    fs.FS
	entries []*entry
	// bounds are the starts of every top-level value and item, in order: an
	// entry owns the text from its start to the next bound.
	bounds []*yaml.Node
	owner  map[*yaml.Node]*entry
	files  map[string]*manifest.Source
	docs   map[string][]*yaml.Node
	hinted bool
}

func newLocator(src *manifest.Source, fsys fs.FS, list *yaml.Node) *locator {
	l := &locator{src: src, fsys: fsys, owner: map[*yaml.Node]*entry{}, files: map[string]*manifest.Source{}, docs: map[string][]*yaml.Node{}}
	for i := 0; i+1 < len(list.Content); i += 2 {
		k, v := list.Content[i], list.Content[i+1]
		switch {
		case k.Value == "items" && v.Kind == yaml.SequenceNode:
			for j, it := range v.Content {
				e := &entry{node: it, where: fmt.Sprintf("items[%d]", j), kind: manifest.ScalarAt(it, "kind"), name: manifest.ScalarAt(it, "metadata", "name"), origin: originOf(it)}
				e.label = e.kind + "/" + e.name
				if e.kind == "" || e.name == "" {
					e.label = e.where
				}
				l.add(it, e)
			}
		case k.Value == "functionConfig" && v.Kind == yaml.MappingNode:
			l.add(v, &entry{node: v, label: "functionConfig", kind: manifest.ScalarAt(v, "kind"), name: manifest.ScalarAt(v, "metadata", "name"), origin: originOf(v)})
		default:
			l.bounds = append(l.bounds, k)
		}
	}
	return l
}

func (l *locator) add(n *yaml.Node, e *entry) {
	l.entries = append(l.entries, e)
	l.bounds = append(l.bounds, n)
	l.owner[n] = e
}

func before(n *yaml.Node, p filepos.Pos) bool {
	return n.Line < p.Line || n.Line == p.Line && n.Column <= p.Col
}

// entryAt is the entry whose text holds p, or nil: the last bound that
// starts at or before p (bounds are in the order written, so a binary
// search: a fleet's notes are many).
func (l *locator) entryAt(p filepos.Pos) *entry {
	i := sort.Search(len(l.bounds), func(i int) bool { return !before(l.bounds[i], p) })
	if i == 0 {
		return nil
	}
	return l.owner[l.bounds[i-1]]
}

// pathAt finds the field written at line:col below root: a mapping or
// sequence that starts there (the shallowest), else the last key or scalar
// that starts at or before it (a `${VAR}` inside a value).
func pathAt(root *yaml.Node, p filepos.Pos) (fieldPath, *yaml.Node) {
	var last, exact *yaml.Node
	var lastPath, exactPath fieldPath
	var walk func(n *yaml.Node, path []step)
	walk = func(n *yaml.Node, path []step) {
		if exact != nil || n.Kind == yaml.AliasNode || !before(n, p) {
			return
		}
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			if n.Line == p.Line && n.Column == p.Col {
				exact, exactPath = n, fieldPath{steps: append([]step(nil), path...)}
				return
			}
		} else {
			last, lastPath = n, fieldPath{steps: append([]step(nil), path...)}
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				kp := append(append([]step(nil), path...), step{key: k.Value})
				if before(k, p) {
					last, lastPath = k, fieldPath{steps: kp, onKey: true}
				}
				walk(v, kp)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, append(append([]step(nil), path...), step{index: i}))
			}
		}
	}
	walk(root, nil)
	if exact != nil {
		return exactPath, exact
	}
	return lastPath, last
}

// follow walks path below root; nil when the file has no such field (an
// earlier function or transformer added it).
func follow(root *yaml.Node, path fieldPath) *yaml.Node {
	n := root
	for i, s := range path.steps {
		if n == nil {
			return nil
		}
		if s.key == "" {
			if n.Kind != yaml.SequenceNode || s.index >= len(n.Content) {
				return nil
			}
			n = n.Content[s.index]
			continue
		}
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == s.key {
				next = n.Content[j+1]
				if path.onKey && i == len(path.steps)-1 {
					next = n.Content[j]
				}
			}
		}
		n = next
	}
	return n
}

// file reads and parses an origin's file once; nil when it cannot.
func (l *locator) file(name string) (*manifest.Source, []*yaml.Node) {
	if src, ok := l.files[name]; ok {
		return src, l.docs[name]
	}
	l.files[name] = nil
	// Only a regular file within the byte limit: the name comes from the
	// input, and ../../dev/zero must not hang an error message.
	if fi, err := userfs.Stat(l.fsys, name); err != nil || !fi.Mode().IsRegular() || fi.Size() > int64(limits.Defaults().FileBytes) {
		return nil, nil
	}
	b, err := userfs.ReadFile(l.fsys, name)
	if err != nil || len(b) > limits.Defaults().FileBytes {
		return nil, nil
	}
	src := manifest.NewSource(name, b)
	var docs []*yaml.Node
	if manifest.Decode(src, yqlib.NewDefaultYamlPreferences(), func(_ int, n *yaml.Node, _ string) error {
		docs = append(docs, n)
		return nil
	}) != nil {
		return nil, nil
	}
	l.files[name], l.docs[name] = src, docs
	return src, docs
}

// objectIn is e's document in its file: the one at its index if that is the
// object, else the first of its kind and name.
func objectIn(e *entry, docs []*yaml.Node) *yaml.Node {
	is := func(n *yaml.Node) bool {
		return manifest.ScalarAt(n, "kind") == e.kind && manifest.ScalarAt(n, "metadata", "name") == e.name
	}
	if e.origin.index >= 0 && e.origin.index < len(docs) && is(docs[e.origin.index]) {
		return docs[e.origin.index]
	}
	for _, d := range docs {
		if is(d) {
			return d
		}
	}
	return nil
}

// token is what an error inside a scalar points at: a variable reference,
// else the word there.
var token = regexp.MustCompile(`^(\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*|__[A-Za-z0-9_]+__|[^\s'"]{1,64})`)

// inFile is p, a position in the ResourceList, in e's file: the same field
// of the same object, and inside a scalar the same occurrence of the text
// p points at. Without the file, the file's name alone.
func (l *locator) inFile(e *entry, path fieldPath, at *yaml.Node, p filepos.Pos) filepos.Pos {
	pos := filepos.Pos{File: e.origin.file}
	if !e.origin.local {
		return pos
	}
	src, docs := l.file(e.origin.file)
	obj := objectIn(e, docs)
	if obj == nil {
		return pos
	}
	n := follow(obj, path)
	if n == nil {
		return filepos.Pos{File: src.Path, Line: obj.Line, Col: obj.Column}
	}
	pos = filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column}
	if at == nil || at.Kind != yaml.ScalarNode || n.Kind != yaml.ScalarNode || at.Line == p.Line && at.Column == p.Col {
		return pos
	}
	return l.sameOccurrence(src, n, at, p, pos)
}

// sameOccurrence is the position in the file's scalar n of the token p
// points at inside the ResourceList's scalar at, counting earlier
// occurrences of it; pos when it cannot be found.
func (l *locator) sameOccurrence(src *manifest.Source, n, at *yaml.Node, p, pos filepos.Pos) filepos.Pos {
	from, off := l.src.Offset(at.Line, at.Column), l.src.Offset(p.Line, p.Col)
	if from < 0 || off < from {
		return pos
	}
	tok := token.Find(l.src.Text[off:])
	if tok == nil {
		return pos
	}
	k := bytes.Count(l.src.Text[from:off], tok) // occurrences before p
	i := src.Offset(n.Line, n.Column)
	for ; i >= 0 && k >= 0; k-- {
		j := bytes.Index(src.Text[i:], tok)
		if j < 0 {
			return pos
		}
		if k == 0 {
			return src.PosAt(i + j)
		}
		i += j + len(tok)
	}
	return pos
}

// locate rewrites a message at p, a position in the ResourceList, to name
// the file, the object and the field: "app/pod.yaml:14:14: Pod/web
// spec.containers[0].image: msg". Without a file, the position stays and
// the message says which item it is. Other positions are kept.
func (l *locator) locate(p filepos.Pos, msg string) (filepos.Pos, string) {
	if l == nil || p.File != l.src.Path || !p.IsKnown() {
		return p, msg
	}
	e := l.entryAt(p)
	if e == nil {
		return p, msg
	}
	path, at := pathAt(e.node, p)
	what := e.label
	if s := path.String(); s != "" {
		what += " " + s
	}
	if e.origin.file != "" {
		return l.inFile(e, path, at, p), what + ": " + msg
	}
	if e.where != "" && e.where != e.label {
		what += " (" + e.where + ")"
	}
	return p, what + ": " + msg
}

// errors rewrites the positions of err's input errors in the ResourceList.
func (l *locator) errors(err error) error {
	out := filepos.Rewrite(err, func(e filepos.Error) filepos.Error {
		pos, msg := l.locate(e.Pos, e.Msg)
		if pos.File == l.src.Path && msg != e.Msg && !l.hinted {
			msg += originHint
			l.hinted = true
		}
		return filepos.Error{Pos: pos, Msg: msg}
	})
	if out == nil {
		return err
	}
	return out
}

func (l *locator) notes(ns []filepos.Note) []filepos.Note {
	out := make([]filepos.Note, len(ns))
	for i, n := range ns {
		n.Pos, n.Msg = l.locate(n.Pos, n.Msg)
		out[i] = n
	}
	return out
}
