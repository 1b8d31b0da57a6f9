// Package limits is the policy that bounds the work one input can cause:
// the limits, their defaults and maxima, and the checks that hold a file's
// text and its node trees to them. It knows no document model: callers hand
// in a file's name, bytes and how to state a position in it (File), so that
// both the document model and the profile reader can use it.
package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
	"go.yaml.in/yaml/v4/plugin/aliasdata"

	"github.com/krender/krender/model/filepos"
)

// Limits bound the work one input can cause. Templates, fragments and
// profiles come from pull requests; without bounds a few hundred bytes of
// aliases expand into gigabytes (and a Go out-of-memory dump) in whichever
// stage first follows them. A zero field means its default (docs/limits.md).
type Limits struct {
	FileBytes     int // bytes per file
	InputBytes    int // bytes of all templates and fragments of a run
	DocumentBytes int // bytes per document
	Documents     int // documents per file, empty ones included
	Nodes         int // nodes per document, each alias counted as what it names
	InputNodes    int // nodes of all templates and fragments of a run, as written
	Depth         int // nesting of collections
	Objects       int // objects one render produces, every tenant together

	spent *budget // what the run has read so far (Budget)
}

// budget is what a run's files have used of inputBytes and inputNodes,
// safe for files read at once. Each file (each document, for nodes) takes
// its share in one step and states a crossing of the limit inside that
// share: the position is always the file's own, whatever other files took
// before it or beside it.
type budget struct{ bytes, nodes atomic.Int64 }

// take adds n to a count of the run's and returns where, in the taker's
// own share of n, the count passes limit: -1 when it does not, 0 when the
// count was past it already (files read before or beside it took the run
// there).
func take(count *atomic.Int64, n, limit int) int {
	after := int(count.Add(int64(n)))
	if after <= limit {
		return -1
	}
	return max(0, limit-(after-n))
}

// Spent reports whether the run's files have taken it past inputBytes or
// inputNodes: a reader of many files need read no more, as every further
// file is refused.
func (l Limits) Spent() bool {
	if l.spent == nil {
		return false
	}
	l = l.OrDefault()
	return int(l.spent.bytes.Load()) > l.InputBytes || int(l.spent.nodes.Load()) > l.InputNodes
}

// File is one input file as the checks read it. The policy knows no
// document model, so the caller says how a byte offset and a go-yaml error
// are stated in the file (manifest.Source does).
type File struct {
	Path       string
	Text       []byte
	PosAt      func(off int) filepos.Pos // the position of a byte offset
	ParseError func(error) error         // a go-yaml parse error, at its place
}

// NodePos is where n was written in f. go-yaml places an empty node that
// ends the text (`?` alone: its key and value) on the line after the
// last; such a node is at the text's end.
func (f File) NodePos(n *yaml.Node) filepos.Pos {
	if n.Line > bytes.Count(f.Text, []byte("\n"))+1 && f.PosAt != nil {
		return f.PosAt(len(f.Text))
	}
	return filepos.Pos{File: f.Path, Line: n.Line, Col: n.Column}
}

// Defaults returns the limits that admit ordinary manifests up to the byte limits: the node,
// document and object limits are derived from the byte limits below
// (docs/limits.md gives the derivation and the measurements), and
// TestDefaultsAdmitOrdinaryManifests holds them to generated manifests.
func Defaults() Limits { return defaultLimits }

var defaultLimits = Limits{
	FileBytes:     8 << 20,
	InputBytes:    inputBytes,
	DocumentBytes: 2 << 20, // etcd stores objects of at most 1.5 MiB
	Documents:     (8 << 20) / MinDocumentBytes,
	Nodes:         (2 << 20) / OrdinaryBytesPerNode,
	InputNodes:    inputBytes / OrdinaryBytesPerNode,
	Depth:         1_000,
	Objects:       outputBytes / MinDocumentBytes,
}

// inputBytes is what a run holds parsed, once per unit in flight and once
// for the templates: the most whose densest accepted input (inputNodes in
// hashed ConfigMaps, with tenants) renders under a 2 GiB address-space
// limit, which a Go program's own reservations leave well under 1 GiB of
// heap. 8 MiB did not (docs/limits.md, Peak memory).
const inputBytes = 6 << 20

// outputBytes sets limits.objects: output streams, so a render's objects
// cost time rather than memory (a fleet of 5,000 tenants × 42 objects
// renders in 150 MB), and the limit stays where 16 MiB of templates put it.
const outputBytes = 16 << 20

// OrdinaryBytesPerNode is the fewest bytes a node takes in ordinary YAML:
// block style as kubectl, Helm and kustomize write it. The densest manifests
// measured take 7.5 bytes a node (small Deployments of 300 bytes); public
// manifests take 10 to 75. Flow style packs a node into 2 bytes, which is why
// nodes are counted at all.
const OrdinaryBytesPerNode = 6

// MinDocumentBytes is about the smallest object the API server accepts, with
// its separator: `apiVersion: v1`, `kind: Pod`, `metadata:`, `  name: a`,
// `---` take 49 bytes. A file of such objects at fileBytes passes
// limits.documents, and a render of templates at inputBytes passes
// limits.objects.
const MinDocumentBytes = 48

// Max returns how far a profile may raise the limits, so that even a
// hostile profile leaves the work finite.
func Max() Limits { return maxLimits }

var maxLimits = Limits{
	FileBytes:     256 << 20,
	InputBytes:    1 << 30,
	DocumentBytes: 64 << 20,
	Documents:     1_000_000,
	Nodes:         10_000_000,
	InputNodes:    50_000_000,
	Depth:         10_000, // go-yaml's own
	Objects:       10_000_000,
}

// Keys returns the profile keys, in the order of the fields.
func Keys() []string { return slices.Clone(limitKeys) }

var limitKeys = []string{"fileBytes", "inputBytes", "documentBytes", "documents", "nodes", "inputNodes", "depth", "objects"}

// Field returns a pointer to the limit named by a profile key, or nil.
func (l *Limits) Field(key string) *int {
	switch key {
	case "fileBytes":
		return &l.FileBytes
	case "inputBytes":
		return &l.InputBytes
	case "documentBytes":
		return &l.DocumentBytes
	case "documents":
		return &l.Documents
	case "nodes":
		return &l.Nodes
	case "inputNodes":
		return &l.InputNodes
	case "depth":
		return &l.Depth
	case "objects":
		return &l.Objects
	}
	return nil
}

// OrDefault fills unset limits with their defaults.
func (l Limits) OrDefault() Limits {
	for _, k := range limitKeys {
		if f := l.Field(k); *f <= 0 {
			*f = *defaultLimits.Field(k)
		}
	}
	return l
}

// Merge layers the limits over sets on top of l.
func (l Limits) Merge(over Limits) Limits {
	for _, k := range limitKeys {
		if v := *over.Field(k); v > 0 {
			*l.Field(k) = v
		}
	}
	return l
}

// Budget starts a run's count of input nodes: every file decoded with the
// returned limits (and copies of them) adds to the one count.
func (l Limits) Budget() Limits {
	l.spent = &budget{}
	return l
}

// exceeded is the one error for a limit: where it was crossed, and the
// profile key that raises it.
func exceeded(pos filepos.Pos, key, format string, args ...any) *filepos.Error {
	return filepos.Errorf(pos, "%s (limits.%s; see docs/limits.md)", fmt.Sprintf(format, args...), key)
}

// amount writes byte limits in MiB where they are whole.
func amount(key string, n int) string {
	if strings.HasSuffix(key, "Bytes") && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprint(n)
}

// CheckText checks what can be known of src before it is parsed: its size,
// its characters (refused where go-yaml would refuse them, but with a
// line and column), the number and size of its documents. It reports
// whether a document might hold more nodes than allowed, which only a parse
// can tell (CheckTextNodes).
func (l Limits) CheckText(src File) (mayExceedNodes bool, err error) {
	l = l.OrDefault()
	text := src.Text
	if len(text) > l.FileBytes {
		return false, exceeded(src.PosAt(l.FileBytes), "fileBytes", "the file is larger than %s", amount("fileBytes", l.FileBytes))
	}
	if l.spent != nil {
		if at := take(&l.spent.bytes, len(text), l.InputBytes); at >= 0 {
			return false, exceeded(src.PosAt(at), "inputBytes",
				"the templates and fragments are larger than %s in all", amount("inputBytes", l.InputBytes))
		}
	}
	if err := checkChars(src); err != nil {
		return false, err
	}
	docs, start, marks := 1, 0, 0
	end := func(at int) error {
		if at-start > l.DocumentBytes {
			return exceeded(src.PosAt(start), "documentBytes", "document %d is larger than %s", docs, amount("documentBytes", l.DocumentBytes))
		}
		// Every node but a document's first follows one of these bytes,
		// and each of them starts at most three nodes (`{a}` is a mapping,
		// a key and a null): an upper bound on the nodes a parse can make.
		if 3*marks+1 > l.Nodes {
			mayExceedNodes = true
		}
		return nil
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case ':', ',', '-', '?', '[', '{':
			marks++
		case '\n', '\r', 0x85, 0xa8, 0xa9: // go-yaml also breaks lines at CR, NEL, LS and PS
			if !lineBreak(text, i) || !documentMarker(text[i+1:]) {
				continue
			}
			if err := end(i + 1); err != nil {
				return false, err
			}
			docs++
			start, marks = i+1, 0
			if docs > l.Documents {
				return false, exceeded(src.PosAt(start), "documents", "more than %d documents in one file", l.Documents)
			}
		}
	}
	return mayExceedNodes, end(len(text))
}

// lineBreak reports whether text[i] ends a line break, as go-yaml reads
// them: LF, CR not followed by LF, NEL (C2 85), LS and PS (E2 80 A8/A9).
func lineBreak(text []byte, i int) bool {
	switch text[i] {
	case '\n':
		return true
	case '\r':
		return i+1 == len(text) || text[i+1] != '\n'
	case 0x85:
		return i >= 1 && text[i-1] == 0xc2
	}
	return i >= 2 && text[i-2] == 0xe2 && text[i-1] == 0x80
}

// documentMarker reports whether a line starts with `---` or `...` alone
// or followed by a space: the only places a document can end. A document
// may start with a byte order mark.
func documentMarker(line []byte) bool {
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	if len(line) < 3 || !(bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("..."))) {
		return false
	}
	rest := line[3:]
	return len(rest) == 0 || strings.IndexByte(" \t\r\n", rest[0]) >= 0 ||
		bytes.HasPrefix(rest, []byte("\xc2\x85")) || bytes.HasPrefix(rest, []byte("\xe2\x80\xa8")) || bytes.HasPrefix(rest, []byte("\xe2\x80\xa9"))
}

// checkChars refuses what go-yaml's reader refuses, at the character's
// own position: go-yaml names neither line nor column for these.
func checkChars(src File) error {
	text := src.Text
	switch {
	case bytes.HasPrefix(text, []byte{0xff, 0xfe}), bytes.HasPrefix(text, []byte{0xfe, 0xff}):
		return filepos.Errorf(filepos.Pos{File: src.Path, Line: 1, Col: 1}, "the file is UTF-16; krender reads UTF-8 (save it as UTF-8)")
	}
	i := 0
	if bytes.HasPrefix(text, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	for i < len(text) {
		c := text[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r' {
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return filepos.Errorf(src.PosAt(i), "invalid YAML: invalid UTF-8 (byte 0x%02x); YAML files are UTF-8", c)
		case r < 0x20, r >= 0xd800 && r < 0xe000, r == 0xfffe, r == 0xffff:
			return filepos.Errorf(src.PosAt(i), "invalid YAML: control character U+%04X is not allowed", r)
		}
		i += size
	}
	return nil
}

// CheckTextNodes parses src the way Decode will, keeping nothing, to count
// the nodes of each document exactly. Decode calls it only when CheckText
// could not rule out too many nodes: a parse costs about 200 bytes a node,
// which the documentBytes limit bounds, where yqlib's decoding would cost
// four times as much. A parse error here is the file's parse error.
func (l Limits) CheckTextNodes(src File, yqLeading bool) error {
	text := src.Text
	if yqLeading {
		text = yqlibLeading(text)
	}
	aliases, err := aliasdata.New(aliasdata.WithStream(true))
	if err != nil {
		return err
	}
	ld, err := yaml.NewLoader(bytes.NewReader(text), yaml.WithPlugin(aliases))
	if err != nil {
		return err
	}
	c := l.NodeChecker(src.NodePos)
	for doc := 0; ; doc++ {
		var n yaml.Node
		err := ld.Load(&n)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return src.ParseError(err)
		}
		for _, root := range n.Content {
			if err := c.Document(root, doc); err != nil {
				return err
			}
		}
	}
}

var (
	yqSeparatorLine   = regexp.MustCompile(`^\s*---\s*$`)
	yqSeparatorPrefix = regexp.MustCompile(`^\s*---\s+`)
	yqLeadingLine     = regexp.MustCompile(`^\s*(#|%YAML|$)`)
)

// yqlibLeading is text as yqlib's decoder hands it to go-yaml: leading
// comments, directives and separators become empty lines, and a leading
// `--- value` line loses its `---`.
func yqlibLeading(text []byte) []byte {
	var out []byte
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		body := bytes.TrimRight(line, "\r\n")
		switch {
		case yqSeparatorLine.Match(body) || yqLeadingLine.Match(body):
			out = append(out, '\n')
			text = text[len(line):]
			if len(line) == len(body) { // the last line
				return out
			}
		case yqSeparatorPrefix.Match(body):
			text = text[len(yqSeparatorPrefix.Find(body)):]
		default:
			return append(out, text...)
		}
	}
	return out
}

// NodeChecker counts the nodes and depth of documents, in order, each
// alias counted as what it names: the size of the tree any stage that
// follows aliases would build.
type NodeChecker struct {
	lim    Limits
	at     func(*yaml.Node) filepos.Pos
	byName map[string]int // anchors by name, as yqlib resolves them: the latest complete one
	byNode map[*yaml.Node]int
	total  int
	what   string // "document 3", or the object checked
	// Decoding counts written nodes against InputNodes; a stage's check
	// of one object does not. base is what the run had taken when the
	// document began.
	spent         *budget
	base, written int
}

// NodeChecker checks the documents of a file, each node at the position at
// gives it; anchors carry over from one document to the next, as in yqlib's
// decoder.
func (l Limits) NodeChecker(at func(*yaml.Node) filepos.Pos) *NodeChecker {
	return &NodeChecker{lim: l.OrDefault(), at: at, byName: map[string]int{}, byNode: map[*yaml.Node]int{}}
}

// Document checks one document's root (below the document node).
func (c *NodeChecker) Document(root *yaml.Node, doc int) *filepos.Error {
	c.total, c.written, c.what = 0, 0, fmt.Sprintf("document %d", doc+1)
	if c.spent != nil {
		c.base = int(c.spent.nodes.Load())
	}
	_, err := c.walk(root, 1)
	if c.spent == nil {
		return err
	}
	// The document's share is taken once it is counted: documents read
	// beside it may have taken the run past the limit meanwhile, and then
	// the node of its own share that crosses it is named.
	if at := take(&c.spent.nodes, c.written, c.lim.InputNodes); err == nil && at >= 0 {
		return c.inputNodes(nthNode(root, at))
	}
	return err
}

// inputNodes is the error for the node n of a document that takes the run
// past limits.inputNodes.
func (c *NodeChecker) inputNodes(n *yaml.Node) *filepos.Error {
	return exceeded(c.at(n), "inputNodes", "the templates and fragments hold more than %d nodes in all", c.lim.InputNodes)
}

// nthNode is the node written k-th (from 0) below root, in the order walk
// counts them; the last when there are fewer.
func nthNode(root *yaml.Node, k int) *yaml.Node {
	found := root
	var visit func(n *yaml.Node) bool
	visit = func(n *yaml.Node) bool {
		if found = n; k == 0 {
			return true
		}
		k--
		if n.Kind == yaml.AliasNode {
			return false
		}
		for _, ch := range n.Content {
			if visit(ch) {
				return true
			}
		}
		return false
	}
	visit(root)
	return found
}

// walk returns the nodes n stands for, capped just past the limit so that
// nothing overflows.
func (c *NodeChecker) walk(n *yaml.Node, depth int) (int, *filepos.Error) {
	if c.written++; c.spent != nil && c.base+c.written > c.lim.InputNodes {
		return 0, c.inputNodes(n)
	}
	if n.Kind == yaml.AliasNode {
		size, ok := c.byNode[n.Alias]
		if !ok {
			size, ok = c.byName[n.Value]
		}
		if !ok {
			size = 1 // a dangling or self-referring alias: the parser's to report
		}
		c.total += size
		if c.total > c.lim.Nodes {
			return 0, exceeded(c.at(n), "nodes", "excessive aliasing: *%s stands for %d nodes, which takes %s past %d nodes",
				n.Value, size, c.what, c.lim.Nodes)
		}
		return size, nil
	}
	if depth > c.lim.Depth {
		return 0, exceeded(c.at(n), "depth", "nesting deeper than %d levels", c.lim.Depth)
	}
	c.total++
	if c.total > c.lim.Nodes {
		return 0, exceeded(c.at(n), "nodes", "%s has more than %d nodes", c.what, c.lim.Nodes)
	}
	size := 1
	for _, ch := range n.Content {
		s, err := c.walk(ch, depth+1)
		if err != nil {
			return 0, err
		}
		size = min(size+s, c.lim.Nodes+1)
	}
	if n.Anchor != "" {
		c.byName[n.Anchor] = size
		c.byNode[n] = size
	}
	return size, nil
}

// Object checks one object's tree, named what in the errors, on its own:
// a stage's check of an object it changed counts against no run's input.
func (c *NodeChecker) Object(root *yaml.Node, what string) *filepos.Error {
	c.what = what
	_, err := c.walk(root, 1)
	return err
}

// TooManyObjects is the error for the object at pos, the first past
// limits.objects.
func TooManyObjects(pos filepos.Pos, limit int) *filepos.Error {
	return exceeded(pos, "objects", "the render produces more than %d objects; this one is past the limit", limit)
}

// TooManyObjectsBefore is the error for a render that limits.objects would
// stop, known before it starts: units of templates objects each. pos is the
// first unit past the limit.
func TooManyObjectsBefore(pos filepos.Pos, limit, units, templates int) *filepos.Error {
	what := "units"
	if pos.Line > 0 {
		what = "tenants"
	}
	msg := fmt.Sprintf("%d %s of %d templates make at least %d objects, more than %d; rendering would stop here", units, what, templates, units*templates, limit)
	fix := "render fewer tenants at once (-t, --shard)"
	if need := units * templates; need <= maxLimits.Objects && units <= maxLimits.Objects/templates {
		fix = fmt.Sprintf("raise it in the profile (limits: {objects: %d}) or %s", need, fix)
	}
	return exceeded(pos, "objects", "%s: %s", msg, fix)
}

// Decoding is what a decoder checks before it parses src; the returned
// checker is for each document it decodes, and counts them against the
// run's Budget. yqLeading: the decoder hands go-yaml the text as yqlib's
// leading-content preprocessing leaves it.
func (l Limits) Decoding(src File, yqLeading bool) (*NodeChecker, error) {
	exact, err := l.CheckText(src)
	if err != nil {
		return nil, err
	}
	if exact {
		if err := l.CheckTextNodes(src, yqLeading); err != nil {
			return nil, err
		}
	}
	c := l.NodeChecker(src.NodePos)
	c.spent = l.spent
	return c, nil
}
