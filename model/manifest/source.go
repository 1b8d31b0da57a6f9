// Package manifest is the document model every krender stage shares: a
// Kubernetes object as a YAML node tree that still knows which file, line and
// column each node was written at.
package manifest

import (
	"bytes"
	"sort"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
)

// Source is one input file: its name as the user wrote it and its bytes, kept
// so positions inside a scalar (a `${VAR}` in a block script) can be found.
type Source struct {
	Path string
	Text []byte
	// Limits are those of the run that reads the file; zero: the defaults.
	Limits     limits.Limits
	lineStarts []int
}

func NewSource(path string, text []byte) *Source {
	s := &Source{Path: path, Text: text, lineStarts: []int{0}}
	for i, c := range text {
		if c == '\n' {
			s.lineStarts = append(s.lineStarts, i+1)
		}
	}
	return s
}

// Offset converts a 1-based line and column (in characters, as the YAML
// parser counts them) to a byte offset; -1 when out of range.
func (s *Source) Offset(line, col int) int {
	if line < 1 || line > len(s.lineStarts) {
		return -1
	}
	off := s.lineStarts[line-1]
	for c := 1; c < col && off < len(s.Text) && s.Text[off] != '\n'; c++ {
		_, size := utf8.DecodeRune(s.Text[off:])
		off += size
	}
	return off
}

// PosAt converts a byte offset back to a position.
func (s *Source) PosAt(off int) filepos.Pos {
	line := sort.Search(len(s.lineStarts), func(i int) bool { return s.lineStarts[i] > off })
	start := s.lineStarts[line-1]
	return filepos.Pos{File: s.Path, Line: line, Col: utf8.RuneCount(s.Text[start:off]) + 1}
}

// TextPositions finds where each of texts, parts of scalar n's value in
// order, was written. The scalar's own position is where it starts (for a
// block scalar, its `|`); each text is looked up in order from there, which
// holds for every scalar style as long as the texts hold nothing YAML
// escapes (`$NAME`, `__NAME__`, `>> /etc/hosts`). A text not found gets the
// scalar's position.
func (s *Source) TextPositions(n *yaml.Node, texts []string) []filepos.Pos {
	out := make([]filepos.Pos, len(texts))
	from := s.Offset(n.Line, n.Column)
	last, lastOff := filepos.Pos{}, -1
	for i, text := range texts {
		out[i] = filepos.Pos{File: s.Path, Line: n.Line, Col: n.Column}
		if from < 0 {
			continue
		}
		k := bytes.Index(s.Text[from:], []byte(text))
		if k < 0 {
			from = -1
			continue
		}
		out[i] = s.posAfter(last, lastOff, from+k)
		last, lastOff = out[i], from+k
		from += k + len(text)
	}
	return out
}

// posAfter is PosAt(off), counted on from prev, the position of offset
// prevOff, when off is further on prev's line: the texts of a long line
// then cost one count of its characters in all, not one each from the
// line's start.
func (s *Source) posAfter(prev filepos.Pos, prevOff, off int) filepos.Pos {
	if prevOff < 0 || off < prevOff || prev.Line < len(s.lineStarts) && s.lineStarts[prev.Line] <= off {
		return s.PosAt(off)
	}
	return filepos.Pos{File: s.Path, Line: prev.Line, Col: prev.Col + utf8.RuneCount(s.Text[prevOff:off])}
}

// PlainTag is the tag a plain scalar written as v resolves to: what a value
// pasted into `key: ...` becomes.
func PlainTag(v string) string {
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
