package manifest

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// CheckPositions reports every node of s's objects that names no place in
// a file it was written in (a template, a fragment or the profile) and that
// no stage owns up to as its own (Made). Tests run it after each stage: a
// stage that copies nodes behind copy.go's back, or makes nodes without
// saying so, fails it. after names the stage, for the message.
func CheckPositions(s *Set, after string) error {
	var bad []string
	for _, o := range s.Objects {
		Walk(o.Node, func(n *yaml.Node) {
			if why := o.unplaced(n); why != "" && len(bad) < 10 {
				bad = append(bad, fmt.Sprintf("%s %s: %s node %q %s", o.Kind(), o.Name(), kindName(n.Kind), n.Value, why))
			}
		})
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("after %s, nodes without a position:\n  %s", after, strings.Join(bad, "\n  "))
}

// unplaced says what is wrong with n's position, or "" when nothing is.
func (o *Object) unplaced(n *yaml.Node) string {
	if og, ok := o.origin[n]; ok && og.src == nil {
		return "" // a stage made it (setOrigin keeps no empty origin)
	}
	src := o.SourceOf(n)
	switch {
	case src == nil:
		return "belongs to no file"
	case n.Line == 0:
		return "has no line and no stage made it"
	case !src.has(n.Line, n.Column):
		return fmt.Sprintf("is at %d:%d, outside %s", n.Line, n.Column, src.Path)
	}
	return ""
}

// has reports whether line:col (col in characters) is within s's text,
// one past a line's end included; any place is, in a file whose text was
// not kept.
func (s *Source) has(line, col int) bool {
	if line < 1 || col < 1 {
		return false
	}
	if s.Text == nil {
		return true
	}
	if line > len(s.lineStarts) {
		return false
	}
	start := s.lineStarts[line-1]
	end := len(s.Text)
	if line < len(s.lineStarts) {
		end = s.lineStarts[line] - 1
	}
	return col <= utf8.RuneCount(s.Text[start:end])+1
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return "scalar"
}
