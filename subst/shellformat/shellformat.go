// Package shellformat finds and replaces variable references with the rules
// of GNU gettext's `envsubst 'SHELL-FORMAT'`: `$NAME` and `${NAME}` only.
//
// github.com/a8m/envsubst was measured and rejected: it has no way to leave a
// reference it does not know intact (it blanks unknown names, evaluates
// `${X:-d}` and collapses `$$`), so it would wipe the runtime variables of the
// shell scripts templates carry. This scanner copies everything it does not
// substitute byte for byte, and reports where each reference is.
package shellformat

import "strings"

// Ref is one reference: s[Start:End] is `$NAME` or `${NAME}`.
type Ref struct {
	Name       string
	Start, End int
}

// Text is the reference as written.
func (r Ref) Text(s string) string { return s[r.Start:r.End] }

func isNameStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isNameChar(c byte) bool  { return isNameStart(c) || (c >= '0' && c <= '9') }

// Scan returns every reference in s, in order. A `$` that does not start a
// reference is ordinary text, and scanning goes on after it (so `$$A` holds
// the reference `$A`, and `${A:-$B}` holds `$B`), exactly as GNU envsubst reads.
func Scan(s string) []Ref {
	var refs []Ref
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		if r, ok := refAt(s, i); ok {
			refs = append(refs, r)
			i = r.End - 1
		}
	}
	return refs
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

// Expand replaces each reference whose name lookup knows and copies the rest
// unchanged. It returns the result and the references it left in place.
func Expand(s string, lookup func(name string) (string, bool)) (string, []Ref) {
	refs := Scan(s)
	if len(refs) == 0 {
		return s, nil
	}
	var b strings.Builder
	var kept []Ref
	last := 0
	for _, r := range refs {
		v, ok := lookup(r.Name)
		if !ok {
			kept = append(kept, r)
			continue
		}
		b.WriteString(s[last:r.Start])
		b.WriteString(v)
		last = r.End
	}
	if last == 0 {
		return s, kept
	}
	b.WriteString(s[last:])
	return b.String(), kept
}
