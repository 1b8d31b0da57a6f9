package filepos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

func TestPosString(t *testing.T) {
	for _, c := range []struct {
		name string
		pos  Pos
		want string
	}{
		{"unknown", Pos{}, "<input>"},
		{"file only", Pos{File: "a.yaml"}, "a.yaml"},
		{"line only", Pos{File: "a.yaml", Line: 3}, "a.yaml:3"},
		{"full", Pos{File: "a.yaml", Line: 3, Col: 7}, "a.yaml:3:7"},
		{"column without line is dropped", Pos{File: "a.yaml", Col: 7}, "a.yaml"},
		// Positions get their file filled in later (profiles.setFile);
		// until then they print as <input>, line or not.
		{"no file hides the line", Pos{Line: 3, Col: 7}, "<input>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.pos.String(); got != c.want {
				t.Errorf("%#v.String() = %q, want %q", c.pos, got, c.want)
			}
		})
	}
}

func TestPosIsKnown(t *testing.T) {
	for _, c := range []struct {
		pos  Pos
		want bool
	}{
		{Pos{}, false},
		{Pos{File: "a.yaml"}, false},
		{Pos{File: "a.yaml", Col: 4}, false},
		{Pos{File: "a.yaml", Line: 1}, true},
		{Pos{Line: 2, Col: 3}, true},
	} {
		if got := c.pos.IsKnown(); got != c.want {
			t.Errorf("%#v.IsKnown() = %v, want %v", c.pos, got, c.want)
		}
	}
}

func TestPosCompare(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b Pos
		want int
	}{
		{"equal", Pos{"a.yaml", 3, 4}, Pos{"a.yaml", 3, 4}, 0},
		{"line 9 before line 10", Pos{"a.yaml", 9, 1}, Pos{"a.yaml", 10, 1}, -1},
		{"line before column", Pos{"a.yaml", 2, 50}, Pos{"a.yaml", 10, 1}, -1},
		{"column 2 before column 10", Pos{"a.yaml", 5, 2}, Pos{"a.yaml", 5, 10}, -1},
		{"file before line", Pos{"a.yaml", 100, 1}, Pos{"b.yaml", 1, 1}, -1},
		{"unknown line first", Pos{"a.yaml", 0, 0}, Pos{"a.yaml", 1, 1}, -1},
		{"no file first", Pos{"", 9, 9}, Pos{"a.yaml", 1, 1}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.a.Compare(c.b); got != c.want {
				t.Errorf("%v.Compare(%v) = %d, want %d", c.a, c.b, got, c.want)
			}
			if got := c.b.Compare(c.a); got != -c.want {
				t.Errorf("%v.Compare(%v) = %d, want %d", c.b, c.a, got, -c.want)
			}
		})
	}
}

func TestErrorf(t *testing.T) {
	p := Pos{File: "a.yaml", Line: 3, Col: 5}
	for _, c := range []struct {
		name string
		err  *Error
		want string
	}{
		{"formats args", Errorf(p, "unknown %s %q", "field", "x"), `a.yaml:3:5: unknown field "x"`},
		{"no args", Errorf(p, "100%% sure"), "a.yaml:3:5: 100% sure"},
		{"unknown position", Errorf(Pos{}, "oops"), "<input>: oops"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.err.Error(); got != c.want {
				t.Errorf("Error() = %q, want %q", got, c.want)
			}
		})
	}
	if e := Errorf(p, "m"); e.Pos != p || e.Msg != "m" {
		t.Errorf("Errorf(p, \"m\") = %#v", e)
	}
}

// at is an error with a message naming its position, for readable failures.
func at(file string, line, col int) *Error {
	p := Pos{File: file, Line: line, Col: col}
	return &Error{Pos: p, Msg: p.String()}
}

func msgs(l List) []string {
	var out []string
	for _, e := range l {
		out = append(out, e.Msg)
	}
	return out
}

func TestListErr(t *testing.T) {
	manyNotes, manyWant := many(50)
	var manyErrs List
	for _, n := range manyNotes {
		manyErrs = append(manyErrs, &Error{Pos: n.Pos, Msg: n.Msg})
	}
	first, second := &Error{Pos: Pos{"a.yaml", 4, 2}, Msg: "first"}, &Error{Pos: Pos{"a.yaml", 4, 2}, Msg: "second"}
	for _, c := range []struct {
		name string
		in   List
		want []string
	}{
		{"line 9 before line 10", List{at("a.yaml", 10, 1), at("a.yaml", 9, 1)}, []string{"a.yaml:9:1", "a.yaml:10:1"}},
		{"by column", List{at("a.yaml", 5, 10), at("a.yaml", 5, 2)}, []string{"a.yaml:5:2", "a.yaml:5:10"}},
		{"by file first", List{at("b.yaml", 1, 1), at("a.yaml", 20, 1), at("a.yaml", 3, 1)}, []string{"a.yaml:3:1", "a.yaml:20:1", "b.yaml:1:1"}},
		{"equal positions keep their order", List{second, at("a.yaml", 1, 1), first}, []string{"a.yaml:1:1", "second", "first"}},
		{"one", List{at("a.yaml", 1, 1)}, []string{"a.yaml:1:1"}},
		{"stable for many errors", manyErrs, manyWant},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := slices.Clone(c.in)
			err := c.in.Err()
			got, ok := err.(List)
			if !ok {
				t.Fatalf("Err() = %T, want List", err)
			}
			if !slices.Equal(msgs(got), c.want) {
				t.Errorf("Err() order = %q, want %q", msgs(got), c.want)
			}
			if !slices.Equal(c.in, before) {
				t.Errorf("Err() reordered its receiver: %q, was %q", msgs(c.in), msgs(before))
			}
		})
	}
}

// One template mistake repeats in every copy made of it: said once.
func TestListErrDropsRepeats(t *testing.T) {
	a := Pos{"a.yaml", 3, 1}
	l := List{{a, "x"}, {a, "y"}, {Pos{"a.yaml", 1, 1}, "z"}, {a, "x"}, {a, "y"}}
	if got, want := l.Err().Error(), "a.yaml:1:1: z\na.yaml:3:1: x\na.yaml:3:1: y"; got != want {
		t.Fatalf("Err() = %q, want %q", got, want)
	}
}

func TestListErrEmptyIsNil(t *testing.T) {
	for name, l := range map[string]List{"nil": nil, "empty": {}} {
		if err := l.Err(); err != nil {
			t.Errorf("%s List: Err() = %#v, want nil", name, err)
		}
	}
}

func TestListError(t *testing.T) {
	for _, c := range []struct {
		name string
		l    List
		want string
	}{
		{"empty", nil, ""},
		{"one", List{Errorf(Pos{"a.yaml", 1, 2}, "x")}, "a.yaml:1:2: x"},
		{"one per line, in list order", List{Errorf(Pos{"b.yaml", 1, 2}, "x"), Errorf(Pos{}, "y")}, "b.yaml:1:2: x\n<input>: y"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.l.Error(); got != c.want {
				t.Errorf("Error() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestAppend(t *testing.T) {
	existing := Errorf(Pos{"a.yaml", 9, 1}, "existing")
	e1, e2 := Errorf(Pos{"a.yaml", 2, 1}, "e1"), Errorf(Pos{"a.yaml", 1, 1}, "e2")
	for _, c := range []struct {
		name string
		err  error
		want List
	}{
		{"nil adds nothing", nil, List{existing}},
		{"typed nil *Error adds nothing", (*Error)(nil), List{existing}},
		{"nil List adds nothing", List(nil), List{existing}},
		{"*Error is appended", e1, List{existing, e1}},
		{"List is flattened, unsorted", List{e1, e2}, List{existing, e1, e2}},
		{"plain error has no position", errors.New("boom"), List{existing, {Msg: "boom"}}},
		// Append does not unwrap: a wrapped *Error keeps only its text.
		{"wrapped *Error is a plain message", fmt.Errorf("ctx: %w", e1), List{existing, {Msg: "ctx: a.yaml:2:1: e1"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Append(List{existing}, c.err)
			if len(got) != len(c.want) {
				t.Fatalf("Append = %q, want %q", got.Error(), c.want.Error())
			}
			for i := range got {
				if got[i] == nil || *got[i] != *c.want[i] {
					t.Errorf("Append[%d] = %#v, want %#v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestAppendToNil(t *testing.T) {
	var l List
	l = Append(l, nil)
	if l != nil {
		t.Errorf("Append(nil, nil) = %#v, want nil", l)
	}
	l = Append(l, errors.New("x"))
	if err := l.Err(); err == nil || err.Error() != "<input>: x" {
		t.Errorf("Append(nil, x).Err() = %v, want <input>: x", err)
	}
}

func TestFileError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	_, readErr := os.ReadFile(missing)
	_, openErr := os.Open(missing)
	_, fsErr := fs.ReadFile(fstest.MapFS{}, "missing.yaml")
	plain := errors.New("plain")
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"os.ReadFile of a missing file", readErr, "no such file or directory"},
		{"os.Open of a missing file", openErr, "no such file or directory"},
		{"fs.ReadFile", fsErr, "file does not exist"},
		{"not a path error", plain, "plain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := FileError(c.err)
			if got == nil || got.Error() != c.want {
				t.Fatalf("FileError(%v) = %v, want %q", c.err, got, c.want)
			}
			if c.err != plain && !errors.Is(got, fs.ErrNotExist) {
				t.Errorf("FileError(%v) = %#v, no longer fs.ErrNotExist", c.err, got)
			}
		})
	}
	if got := FileError(plain); got != plain {
		t.Errorf("FileError(plain) = %#v, want the same error", got)
	}
	if got := FileError(nil); got != nil {
		t.Errorf("FileError(nil) = %#v, want nil", got)
	}
}

func TestIsInput(t *testing.T) {
	e := Errorf(Pos{"a.yaml", 1, 1}, "bad")
	l := List{e}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("x"), false},
		{"file error", &fs.PathError{Op: "open", Path: "a", Err: fs.ErrNotExist}, false},
		{"*Error", e, true},
		{"List", l, true},
		{"List.Err", l.Err(), true},
		{"wrapped *Error", fmt.Errorf("render: %w", e), true},
		{"wrapped List", fmt.Errorf("render: %w", l), true},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", e)), true},
		{"joined", errors.Join(errors.New("x"), e), true},
		{"formatted with %v is not wrapped", fmt.Errorf("render: %v", e), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := IsInput(c.err); got != c.want {
				t.Errorf("IsInput(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}

func TestSeverityString(t *testing.T) {
	for _, c := range []struct {
		s    Severity
		want string
	}{
		{Info, "info"},
		{Warning, "warning"},
		{Err, "error"},
		{Severity(7), "error"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("Severity(%d).String() = %q, want %q", int(c.s), got, c.want)
		}
	}
	if !(Info < Warning && Warning < Err) {
		t.Errorf("severities out of order: info %d, warning %d, error %d", Info, Warning, Err)
	}
}

func TestNoteString(t *testing.T) {
	for _, c := range []struct {
		n    Note
		want string
	}{
		{Note{Pos: Pos{"a.yaml", 3, 1}, Severity: Warning, Msg: "w"}, "a.yaml:3:1: warning: w"},
		{Note{Pos: Pos{}, Severity: Info, Msg: "i"}, "<input>: info: i"},
		{Note{Pos: Pos{"a.yaml", 0, 0}, Severity: Err, Msg: "e"}, "a.yaml: error: e"},
		{Note{Pos: Pos{"a.yaml", 3, 1}, Severity: Warning, Msg: "w", Rule: "r", Zones: []string{"a", "b"}, Tenants: []string{"t"}},
			"a.yaml:3:1: warning: w (zones a, b; tenant t) [r]"},
		{Note{Pos: Pos{"a.yaml", 3, 1}, Severity: Info, Msg: "i", Tenants: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
			"a.yaml:3:1: info: i (tenants 1, 2, 3, 4, 5, 6, 7, 8 and 2 more)"},
	} {
		if got := c.n.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

// many is n notes (or errors) on three lines, in an order an unstable sort
// would scramble; want is them sorted by line, then by index.
func many(n int) (notes []Note, want []string) {
	for line := 1; line <= 3; line++ {
		for i := range n {
			if (n-i)%3+1 == line {
				want = append(want, fmt.Sprint(i))
			}
		}
	}
	for i := range n {
		notes = append(notes, Note{Pos: Pos{File: "a", Line: (n-i)%3 + 1, Col: 1}, Msg: fmt.Sprint(i)})
	}
	return notes, want
}

func TestSortNotes(t *testing.T) {
	manyNotes, manyWant := many(50)
	note := func(file string, line, col int, msg string) Note {
		return Note{Pos: Pos{File: file, Line: line, Col: col}, Msg: msg}
	}
	for _, c := range []struct {
		name string
		in   []Note
		want []string
	}{
		{"empty", nil, nil},
		{"line 9 before line 10", []Note{note("a", 10, 1, "ten"), note("a", 9, 1, "nine")}, []string{"nine", "ten"}},
		{"by column", []Note{note("a", 1, 10, "c10"), note("a", 1, 2, "c2")}, []string{"c2", "c10"}},
		{"by file", []Note{note("b", 1, 1, "b"), note("a", 7, 1, "a")}, []string{"a", "b"}},
		{"stable for equal positions", []Note{
			note("a", 2, 1, "x1"), note("a", 1, 1, "first"), note("a", 2, 1, "x2"), note("a", 2, 1, "x3"),
		}, []string{"first", "x1", "x2", "x3"}},
		{"stable for many notes", manyNotes, manyWant},
	} {
		t.Run(c.name, func(t *testing.T) {
			SortNotes(c.in)
			var got []string
			for _, n := range c.in {
				got = append(got, n.Msg)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("SortNotes order = %q, want %q", got, c.want)
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	suffix := func(e Error) Error { e.Msg += "!"; e.Pos.Line++; return e }
	one := Errorf(Pos{File: "a", Line: 1}, "x")
	if got, ok := Rewrite(one, suffix).(*Error); !ok || got.Error() != "a:2: x!" || one.Msg != "x" {
		t.Errorf("one error: got %v, original %v", got, one)
	}
	list := List{one, Errorf(Pos{File: "b", Line: 3}, "y")}
	if got, ok := Rewrite(list, suffix).(List); !ok || got.Error() != "a:2: x!\nb:4: y!" || list[1].Msg != "y" {
		t.Errorf("list: got %v, original %v", got, list)
	}
	if got := Rewrite(errors.New("plain"), suffix); got != nil {
		t.Errorf("plain error: got %v, want nil", got)
	}
	if got := Rewrite(fmt.Errorf("wrapped: %w", one), suffix); got != nil {
		t.Errorf("wrapped error: got %v, want nil", got)
	}
}
