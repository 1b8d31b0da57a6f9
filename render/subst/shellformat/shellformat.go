// Package shellformat finds and replaces variable references with the rules
// of GNU gettext's `envsubst 'SHELL-FORMAT'`: `$NAME` and `${NAME}` only.
//
// github.com/a8m/envsubst was measured and rejected: it has no way to leave a
// reference it does not know intact (it blanks unknown names, evaluates
// `${X:-d}` and collapses `$$`), so it would wipe the runtime variables of the
// shell scripts templates carry. This scanner copies everything it does not
// substitute byte for byte, and reports where each reference is.
//
// ScanDrone reads the flux and clusterctl dialects instead (drone.go).
package shellformat

import "strings"

// Ref is one reference: s[Start:End] is `$NAME` or `${NAME}`, or, from
// ScanDefaults, `${NAME<Op>Word}`.
type Ref struct {
	Name       string
	Start, End int
	// Op is one of ":-", "-", ":=", "=" for a reference with a default
	// (`${NAME:-word}`, the forms Cluster API and Flux templates use); Word
	// is the default. Scan never sets them: GNU envsubst copies such text.
	Op, Word string
	// AfterDollar: the reference directly follows a `$` (`$${NAME}`,
	// `$$NAME`). GNU envsubst substitutes it like any other, but another
	// tool's escape is evidence that it is no placeholder: an undefined one
	// is never an error or a warning.
	AfterDollar bool
	// Escape marks no reference but `$$` in the flux and clusterctl
	// dialects (ScanDrone), which writes one `$`.
	Escape bool
	// Bad, from ScanDrone, is why a `${` starts no expression the flux and
	// clusterctl dialects can read: those tools fail the whole input.
	Bad string
	// Inner are the names of expressions nested in a ScanDrone expression's
	// arguments (`${A:-${B}}`).
	Inner []string
	expr  *expr // ScanDrone's expression; nil for Scan's references
}

// HasDefault reports whether r is `${NAME<op>word}`, a form that gives a
// value when NAME has none.
func (r Ref) HasDefault() bool { return r.Op != "" }

// Resolve is what a shell makes of r with value v (ok: NAME is set): the
// value, or the word where the operator says so.
func (r Ref) Resolve(v string, ok bool) string {
	if r.Op != "" && (!ok || strings.HasPrefix(r.Op, ":") && v == "") {
		return r.Word
	}
	return v
}

// Text is the reference as written.
func (r Ref) Text(s string) string { return s[r.Start:r.End] }

func isNameStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isNameChar(c byte) bool  { return isNameStart(c) || (c >= '0' && c <= '9') }

// Scan returns every reference in s, in order. A `$` that does not start a
// reference is ordinary text, and scanning goes on after it (so `$$A` holds
// the reference `$A`, and `${A:-$B}` holds `$B`), exactly as GNU envsubst
// reads.
func Scan(s string) []Ref { return scan(s, false) }

// ScanDefaults is Scan that also reads `${NAME:-word}`, `${NAME-word}`,
// `${NAME:=word}` and `${NAME=word}` as one reference each, where word holds
// no `$`, `{` or `}` (a nested expression stays shell text, read as Scan reads
// it). Only fields no shell reads take defaults: in a script the shell does.
func ScanDefaults(s string) []Ref { return scan(s, true) }

func scan(s string, defaults bool) []Ref {
	var refs []Ref
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		r, ok := Ref{}, false
		if defaults {
			r, ok = defaultAt(s, i)
		}
		if !ok {
			r, ok = refAt(s, i)
		}
		if ok {
			r.AfterDollar = i > 0 && s[i-1] == '$'
			refs = append(refs, r)
			i = r.End - 1
		}
	}
	return refs
}

func defaultAt(s string, i int) (Ref, bool) {
	if i+2 >= len(s) || s[i+1] != '{' || !isNameStart(s[i+2]) {
		return Ref{}, false
	}
	k := i + 3
	for k < len(s) && isNameChar(s[k]) {
		k++
	}
	name := s[i+2 : k]
	var op string
	for _, o := range []string{":-", ":=", "-", "="} {
		if strings.HasPrefix(s[k:], o) {
			op = o
			break
		}
	}
	if op == "" {
		return Ref{}, false
	}
	w := k + len(op)
	end := strings.IndexAny(s[w:], "${}")
	if end < 0 || s[w+end] != '}' {
		return Ref{}, false
	}
	return Ref{Name: name, Start: i, End: w + end + 1, Op: op, Word: s[w : w+end]}, true
}

// Replace writes s with each of refs (from Scan or ScanDefaults, in order)
// for which f says ok replaced by f's text; everything else is copied.
func Replace(s string, refs []Ref, f func(Ref) (string, bool)) string {
	var b strings.Builder
	last := 0
	for _, r := range refs {
		v, ok := f(r)
		if !ok {
			continue
		}
		b.WriteString(s[last:r.Start])
		b.WriteString(v)
		last = r.End
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func refAt(s string, i int) (Ref, bool) {
	j := i + 1
	braced := j < len(s) && s[j] == '{'
	if braced {
		j++
	}
	if j >= len(s) || !isNameStart(s[j]) {
		return Ref{}, false
	}
	k := j + 1
	for k < len(s) && isNameChar(s[k]) {
		k++
	}
	if !braced {
		return Ref{Name: s[j:k], Start: i, End: k}, true
	}
	if k < len(s) && s[k] == '}' {
		return Ref{Name: s[j:k], Start: i, End: k + 1}, true
	}
	return Ref{}, false
}

// Expand replaces each reference whose name lookup knows and copies the
// rest unchanged: GNU `envsubst 'SHELL-FORMAT'` with the names lookup
// knows listed. It returns the result and the references it left in place.
func Expand(s string, lookup func(name string) (string, bool)) (string, []Ref) {
	refs := Scan(s)
	var kept []Ref
	out := Replace(s, refs, func(r Ref) (string, bool) {
		v, ok := lookup(r.Name)
		if !ok {
			kept = append(kept, r)
		}
		return v, ok
	})
	return out, kept
}
