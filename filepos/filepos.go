// Package filepos carries the position a user wrote a thing at, so that every
// stage can report errors in template coordinates rather than in rendered
// output (the approach of ytt's pkg/filepos).
package filepos

import (
	"errors"
	"fmt"
	"sort"
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
	sort.SliceStable(sorted, func(i, j int) bool { return less(sorted[i].Pos, sorted[j].Pos) })
	return sorted
}

func less(a, b Pos) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

// Append adds err to l: the errors of a List, an *Error, or any other error
// as a message without position.
func Append(l List, err error) List {
	switch e := err.(type) {
	case List:
		return append(l, e...)
	case *Error:
		return append(l, e)
	}
	return append(l, &Error{Msg: err.Error()})
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
