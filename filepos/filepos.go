// Package filepos carries the position a user wrote a thing at, so that every
// stage can report errors in template coordinates rather than in rendered
// output (the approach of ytt's pkg/filepos).
package filepos

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Pos is a 1-based line and column in a named file. The zero Pos is "unknown".
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) IsKnown() bool { return p.Line > 0 }

func (p Pos) String() string {
	switch {
	case p.File == "":
		return "<input>"
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a problem in user input, reported as "file:line:col: message".
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errorf builds an *Error at p.
func Errorf(p Pos, format string, args ...any) *Error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// List collects several input errors so a user can fix them in one pass.
type List []*Error

func (l List) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns nil for an empty list, the list sorted by position otherwise.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	sorted := append(List(nil), l...)
	slices.SortStableFunc(sorted, func(a, b *Error) int { return a.Pos.Compare(b.Pos) })
	return sorted
}

// Compare orders positions by file name, then numerically by line and
// column (so line 9 comes before line 10).
func (p Pos) Compare(q Pos) int {
	return cmp.Or(strings.Compare(p.File, q.File), cmp.Compare(p.Line, q.Line), cmp.Compare(p.Col, q.Col))
}

// Append adds err to l: the errors of a List, an *Error, or any other error
// as a message without position. A nil err adds nothing.
func Append(l List, err error) List {
	switch e := err.(type) {
	case nil:
		return l
	case List:
		return append(l, e...)
	case *Error:
		if e == nil {
			return l
		}
		return append(l, e)
	}
	return append(l, &Error{Msg: err.Error()})
}

// FileError is err without the *fs.PathError wrapping that repeats a path
// the message already names ("cannot read profile a.yaml: no such file").
func FileError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// IsInput reports whether err is (or wraps) a user-input error, which the CLI
// maps to exit status 2.
func IsInput(err error) bool {
	var e *Error
	var l List
	return errors.As(err, &e) || errors.As(err, &l)
}

// Severity orders notes and findings.
type Severity int

const (
	Info Severity = iota
	Warning
	Err
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	}
	return "error"
}

// Note is something a user should see that does not stop the render.
type Note struct {
	Pos      Pos
	Severity Severity
	Msg      string
}

func (n Note) String() string { return n.Pos.String() + ": " + n.Severity.String() + ": " + n.Msg }

// SortNotes orders notes by position, keeping the order of notes at one place.
func SortNotes(notes []Note) {
	slices.SortStableFunc(notes, func(a, b Note) int { return a.Pos.Compare(b.Pos) })
}
