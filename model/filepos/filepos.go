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
	// One mistake in a template repeats in every copy made of it (zone
	// copies, injected fragments): say it once.
	seen := make(map[Error]bool, len(sorted))
	out := sorted[:0]
	for _, e := range sorted {
		if !seen[*e] {
			seen[*e] = true
			out = append(out, e)
		}
	}
	return out
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

// Rewrite returns err with f applied to each of its errors, in order, when
// err is an *Error or a List, and of the same kind; for any other error
// (wrapped ones included) it returns nil, so the caller decides.
func Rewrite(err error, f func(Error) Error) error {
	switch e := err.(type) {
	case *Error:
		out := f(*e)
		return &out
	case List:
		out := make(List, len(e))
		for i, x := range e {
			y := f(*x)
			out[i] = &y
		}
		return out
	}
	return nil
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

// String is the one name of a severity that the text, JSON and KRM formats
// print, so that they cannot drift apart; SARIF maps to its own levels.
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
	// Rule is the check rule id that reports it (and silences it).
	Rule string
	// Object is the Kind/name it is about as written in the template (a zone
	// copy's name before the split); "" for none.
	Object string
	// Zones and Tenants are the zone copies and tenants it was found in.
	Zones, Tenants []string
}

func (n Note) String() string {
	s := n.Pos.String() + ": " + n.Severity.String() + ": " + n.Msg + Scope(n.Zones, n.Tenants, maxListed)
	if n.Rule != "" {
		s += " [" + n.Rule + "]"
	}
	return s
}

// maxListed bounds the tenants a note names on stderr: a fleet has thousands.
const maxListed = 8

// Scope says which zone copies and tenants a finding applies to, as
// " (zones a, b; tenants t1, t2)", naming at most max of each (0: all).
func Scope(zones, tenants []string, max int) string {
	parts := ScopeParts(zones, tenants, max)
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// ScopeParts are Scope's parts, "zone a" or "zones a, b", then "tenant t"
// or "tenants t1, t2": the one wording of render's messages and check's
// findings, in every format.
func ScopeParts(zones, tenants []string, max int) []string {
	var parts []string
	list := func(one, many string, names []string) {
		switch {
		case len(names) == 0:
		case len(names) == 1:
			parts = append(parts, one+" "+names[0])
		case max > 0 && len(names) > max:
			parts = append(parts, fmt.Sprintf("%s %s and %d more", many, strings.Join(names[:max], ", "), len(names)-max))
		default:
			parts = append(parts, many+" "+strings.Join(names, ", "))
		}
	}
	list("zone", "zones", zones)
	list("tenant", "tenants", tenants)
	return parts
}

// Key identifies a note at one template position, whatever copy or tenant
// it was found in.
func (n Note) Key() string {
	return n.Pos.String() + "\x00" + n.Rule + "\x00" + n.Object + "\x00" + n.Severity.String() + "\x00" + n.Msg
}

// AddSorted inserts name into the sorted list names unless it is there.
func AddSorted(names []string, name string) []string {
	if name == "" {
		return names
	}
	i, found := slices.BinarySearch(names, name)
	if found {
		return names
	}
	return slices.Insert(names, i, name)
}

// SortNotes orders notes by position, keeping the order of notes at one place.
func SortNotes(notes []Note) {
	slices.SortStableFunc(notes, func(a, b Note) int { return a.Pos.Compare(b.Pos) })
}
