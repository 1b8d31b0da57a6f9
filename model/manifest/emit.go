package manifest

import (
	"bufio"
	"io"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/yamlemit"
)

const yqDocSeparator = "$yqDocSeparator$"

// Encoder writes objects as one multi-document stream, laid out exactly as
// `yq` prints them (indent 2, no line wrapping, leading comments kept).
// Consecutive items of one List go back into it, as one document.
type Encoder struct {
	w     *bufio.Writer
	count int
	list  *List     // the List whose items are being gathered
	items []*Object // its items so far
	// The last document's trailer waits for the next document: copies of
	// one document (zone splits) print it once, after the last copy.
	last      *Object
	trailer   string
	noTrailer bool
	library   bool   // print every object with go-yaml's Dumper (see UseLibrary)
	buf       []byte // yamlemit's output, reused
}

func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: bufio.NewWriter(w)} }

// UseLibrary makes e print every object with go-yaml's Dumper, as krender
// did before yamlemit: the yardstick its tests and benchmarks compare with.
func (e *Encoder) UseLibrary() { e.library = true }

// Encode writes one object, preceded by `---` unless it is the first. An
// item of a List is written with the List's other items, once they are
// all there (at the next object of another document, or at Flush).
func (e *Encoder) Encode(o *Object) error {
	if o.List != nil && o.List == e.list {
		e.items = append(e.items, o)
		return nil
	}
	if err := e.endList(); err != nil {
		return err
	}
	if o.List != nil {
		e.list, e.items = o.List, append(e.items[:0], o)
		return nil
	}
	return e.encode(o)
}

// endList writes the List being gathered, if any.
func (e *Encoder) endList() error {
	if e.list == nil {
		return nil
	}
	doc := e.list.wrap(e.items)
	e.list, e.items = nil, e.items[:0]
	return e.encode(doc)
}

func (e *Encoder) encode(o *Object) error {
	if e.last != nil && (e.last.Src != o.Src || e.last.Doc != o.Doc) {
		if err := e.writeTrailer(); err != nil {
			return err
		}
	}
	e.last = o
	if !e.noTrailer {
		e.trailer = o.Trailer
	}
	if e.count > 0 {
		if _, err := e.w.WriteString(Separator(o)); err != nil {
			return err
		}
	}
	e.count++
	if o.Leading != "" { // it prints nothing for "", after allocating a reader
		if err := yqlib.PrintYAMLLeadingContent(e.w, o.Leading, true, false); err != nil {
			return err
		}
	}
	// yq prints the root's foot comment after the document, as raw content.
	foot := o.Node.FootComment
	o.Node.FootComment = ""
	defer func() { o.Node.FootComment = foot }()
	if err := e.dump(o.Node); err != nil {
		return err
	}
	if foot != "" {
		if err := yqlib.PrintYAMLLeadingContent(e.w, foot, true, false); err != nil {
			return err
		}
	}
	return nil
}

// dump writes n as go-yaml's Dumper does: through yamlemit, which writes the
// same bytes several times faster, unless it declines the tree.
func (e *Encoder) dump(n *yaml.Node) error {
	if !e.library {
		var ok bool
		if e.buf, ok = yamlemit.Append(e.buf[:0], n); ok {
			_, err := e.w.Write(e.buf)
			return err
		}
	}
	return dumpLibrary(e.w, n)
}

// dumpLibrary writes n with go-yaml's Dumper, in yq's layout.
func dumpLibrary(w io.Writer, n *yaml.Node) error {
	opts := [...]yaml.Option{v3Defaults, indent2, seqIndented, yaml.WithLineWidth(-1)}
	d, err := yaml.NewDumper(w, opts[:]...)
	if err != nil {
		return err
	}
	if err := d.Dump(n); err != nil {
		return err
	}
	return d.Close()
}

// yq's layout is WithV3Defaults with indent 2, sequences indented under
// their key and no line wrapping. The options that can be are built once:
// WithV3Defaults makes new plugin values on every call, a few percent of
// encoding a small object. WithLineWidth(-1) cannot be shared between
// goroutines (applying it writes to the value it captured), so each
// dumper gets its own.
var (
	v3Defaults  = yaml.WithV3Defaults()
	indent2     = yaml.WithIndent(2)
	seqIndented = yaml.WithCompactSeqIndent(false)
)

// Separator is what Encode writes before o when documents precede it: `---`,
// unless o's leading content opens with its own. Streams encoded in parts
// (one tenant per goroutine) are joined with it.
func Separator(o *Object) string {
	leading := o.Leading
	if o.List != nil {
		leading = o.List.Leading
	}
	if strings.HasPrefix(leading, yqDocSeparator) {
		return ""
	}
	return "---\n"
}

func (e *Encoder) writeTrailer() error {
	_, err := e.w.WriteString(e.trailer)
	e.trailer = ""
	return err
}

// Flush ends the stream: it writes a List being gathered, the last
// document's trailer and whatever is buffered.
func (e *Encoder) Flush() error {
	if err := e.endList(); err != nil {
		return err
	}
	if err := e.writeTrailer(); err != nil {
		return err
	}
	return e.w.Flush()
}

// Marshal renders objects as one stream.
func Marshal(objs []*Object) ([]byte, error) {
	return marshal(objs, false)
}

// MarshalObject renders one object as a file of its own. The empty documents
// after it in its template are left out: they belong to that file, not to
// the object, and would show as a change in `render --check` when added.
func MarshalObject(o *Object) ([]byte, error) {
	return marshal([]*Object{o}, true)
}

func marshal(objs []*Object, noTrailer bool) ([]byte, error) {
	var b strings.Builder
	enc := NewEncoder(&b)
	enc.noTrailer = noTrailer
	for _, o := range objs {
		if err := enc.Encode(o); err != nil {
			return nil, err
		}
	}
	if err := enc.Flush(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}
