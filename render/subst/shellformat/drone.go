package shellformat

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The flux and clusterctl dialects: drone/envsubst's grammar, as Flux's
// post-build substitution (github.com/fluxcd/pkg/envsubst) and `clusterctl
// generate` (github.com/drone/envsubst/v2) read it. Only `${…}` is an
// expression, with bash-like operators; every `$$` outside one writes one
// `$`; `$NAME` is text. The grammar below follows those libraries token by
// token, down to their quirks (a replace pattern runs past `}` to the next
// `/`), and the differential tests hold it to them: the libraries
// themselves are linked only into the tests.

// expr is one parsed `${…}`: the operator applied to param's value with
// args, each text or a nested expression.
type expr struct {
	op    string // "" for `${NAME}`; ":-", "#", "^^", "/", ":" ...
	param string
	args  []arg
}

type arg struct {
	text   string
	nested *expr
}

// ScanDrone returns every expression and every `$$` of s, in order, as the
// flux and clusterctl dialects read it. A `${` that starts no expression
// those tools can parse is a Ref with Bad set (they fail the whole input
// there), running to the next `}`; scanning goes on after it.
func ScanDrone(s string) []Ref {
	if k := strings.IndexByte(s, 0); k >= 0 {
		// drone reads a NUL as the end of its input and drops the rest:
		// krender refuses rather than lose it.
		return []Ref{{Start: k, End: k + 1, Bad: badNUL}}
	}
	var refs []Ref
	for i := 0; i+1 < len(s); {
		switch {
		case s[i] == '$' && s[i+1] == '{':
			e, end, bad := parseExpr(s, i+2)
			if bad != "" {
				end = i + 2
				if k := strings.IndexByte(s[i:], '}'); k >= 0 {
					end = i + k + 1
				}
				refs = append(refs, Ref{Start: i, End: end, Bad: bad})
			} else {
				refs = append(refs, e.ref(s, i, end))
			}
			i = end
		case s[i] == '$' && s[i+1] == '$':
			refs = append(refs, Ref{Start: i, End: i + 2, Escape: true})
			i += 2
		default:
			i++
		}
	}
	return refs
}

// Names are the names any dialect may read in s: GNU's references and
// default forms, and the flux and clusterctl dialects' expressions with
// their nested ones. What must know every variable a string may hold
// whatever the profile's dialect (which values are secrets) reads these.
func Names(s string) []string {
	var names []string
	for _, r := range ScanDefaults(s) {
		names = append(names, r.Name)
	}
	for _, r := range Scan(s) {
		names = append(names, r.Name)
	}
	for _, r := range ScanDrone(s) {
		if r.Name != "" {
			names = append(names, r.Name)
		}
		names = append(names, r.Inner...)
	}
	return names
}

// ref is e, written at s[start:end], as a Ref.
func (e *expr) ref(s string, start, end int) Ref {
	r := Ref{Name: e.param, Start: start, End: end, expr: e}
	if isDefaultOp(e.op) {
		r.Op = e.op
		r.Word = s[start+2+len(e.param)+len(e.op) : end-1]
	}
	e.inner(&r.Inner)
	return r
}

// inner adds the names of e's nested expressions to names.
func (e *expr) inner(names *[]string) {
	for _, a := range e.args {
		if a.nested != nil {
			*names = append(*names, a.nested.param)
			a.nested.inner(names)
		}
	}
}

// isDefaultOp: the operators that give a value when the name has none.
func isDefaultOp(op string) bool {
	switch op {
	case "-", "+", "=", "?", ":-", ":+", ":=", ":?":
		return true
	}
	return false
}

const (
	badName    = "no variable name after ${"
	badClose   = "no closing } after the variable name"
	badSubst   = "bad substitution"
	badParam   = "bad word in the expression"
	badDefault = "bad default"
	badNUL     = "a NUL byte, where Flux and clusterctl stop reading"
)

func isIdent(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// ident reads a name at s[j:]: letters, digits and `_`, as drone reads them.
func ident(s string, j int) (string, int) {
	k := j
	for k < len(s) {
		r, n := utf8.DecodeRuneInString(s[k:])
		if !isIdent(r) {
			break
		}
		k += n
	}
	return s[j:k], k
}

func lbrack(s string, k int) bool { return k+1 < len(s) && s[k] == '$' && s[k+1] == '{' }

// parseExpr reads the expression after `${` at s[j:]; end is past its `}`.
func parseExpr(s string, j int) (e *expr, end int, bad string) {
	if j < len(s) && s[j] == '#' {
		name, k := ident(s, j+1)
		if name == "" || k >= len(s) || s[k] != '}' {
			return nil, 0, badSubst
		}
		return &expr{op: "#", param: name}, k + 1, ""
	}
	name, k := ident(s, j)
	if name == "" {
		return nil, 0, badName
	}
	e = &expr{param: name}
	if k >= len(s) {
		return nil, 0, badClose
	}
	if end, bad = e.operator(s, k); bad != "" {
		return nil, 0, bad
	}
	return e, end, ""
}

// operator reads what follows the name at s[k:]: an operator and its
// arguments, or the closing `}`.
func (e *expr) operator(s string, k int) (end int, bad string) {
	switch c := s[k]; {
	case c == ':':
		return e.colon(s, k)
	case c == '=':
		e.op = "="
		return e.defaultArgs(s, k+1)
	case c == ',' || c == '^':
		e.op = run(s, k, func(b byte) bool { return b == ',' || b == '^' })
		return closing(s, k+len(e.op))
	case c == '/':
		e.op = "/"
		if k+1 < len(s) && strings.IndexByte("/#%", s[k+1]) >= 0 {
			e.op = s[k : k+2]
		}
		return e.replaceArgs(s, k+len(e.op))
	case c == '#' || c == '%':
		e.op = run(s, k, func(b byte) bool { return b == c })
		return e.oneArg(s, k+len(e.op), func(b byte) bool { return b != '}' }, false)
	case c == '}':
		return k + 1, ""
	}
	return 0, badClose
}

// colon reads a default (`:-`, `:=`, `:?`, `:+`) or a substring (`:`).
func (e *expr) colon(s string, k int) (int, string) {
	switch {
	case k+1 < len(s) && s[k+1] >= utf8.RuneSelf && !invalidAt(s, k+1):
		// drone steps back over a multi-byte character after the colon
		// by the character's width and fails.
		return 0, badSubst
	case k+1 < len(s) && strings.IndexByte("=-?+", s[k+1]) >= 0:
		e.op = s[k : k+2]
		return e.defaultArgs(s, k+2)
	}
	e.op = ":"
	return e.substrArgs(s, k+1)
}

// invalidAt: s[k] starts no valid UTF-8 character (drone reads it as one byte).
func invalidAt(s string, k int) bool {
	r, n := utf8.DecodeRuneInString(s[k:])
	return r == utf8.RuneError && n == 1
}

// run is the operator at s[k:]: up to two bytes that ok accepts.
func run(s string, k int, ok func(byte) bool) string {
	n := 0
	for n < 2 && k+n < len(s) && ok(s[k+n]) {
		n++
	}
	return s[k : k+n]
}

func closing(s string, k int) (int, string) {
	if k < len(s) && s[k] == '}' {
		return k + 1, ""
	}
	return 0, badSubst
}

// param reads one argument at s[k:]: a nested expression, or text of
// bytes accept takes (and, with escapes, `$$`, `\/` and `\\` for their
// second byte), stopping before `${`. The first byte must be taken.
func param(s string, k int, accept func(byte) bool, escapes bool) (arg, int, string) {
	if lbrack(s, k) {
		e, end, bad := parseExpr(s, k+2)
		return arg{nested: e}, end, bad
	}
	var b strings.Builder
	start := k
	for k < len(s) && !lbrack(s, k) {
		if escapes && k+1 < len(s) && (s[k] == '$' && s[k+1] == '$' || s[k] == '\\' && (s[k+1] == '/' || s[k+1] == '\\')) {
			b.WriteByte(s[k+1])
			k += 2
			continue
		}
		if !accept(s[k]) {
			break
		}
		b.WriteByte(s[k])
		k++
	}
	if k == start {
		return arg{}, 0, badParam
	}
	return arg{text: b.String()}, k, ""
}

// oneArg reads one argument and the closing `}`.
func (e *expr) oneArg(s string, k int, accept func(byte) bool, escapes bool) (int, string) {
	a, k, bad := param(s, k, accept, escapes)
	if bad != "" {
		return 0, bad
	}
	e.args = append(e.args, a)
	return closing(s, k)
}

// defaultArgs reads a default's words up to the closing `}`.
func (e *expr) defaultArgs(s string, k int) (int, string) {
	for {
		if k >= len(s) {
			return 0, badDefault
		}
		if s[k] == '}' {
			return k + 1, ""
		}
		a, next, bad := param(s, k, func(b byte) bool { return b != '}' }, false)
		if bad != "" {
			return 0, bad
		}
		e.args = append(e.args, a)
		k = next
	}
}

// substrArgs reads `offset}` or `offset:length}`.
func (e *expr) substrArgs(s string, k int) (int, string) {
	a, k, bad := param(s, k, func(b byte) bool { return b != ':' && b != '}' }, false)
	if bad != "" {
		return 0, bad
	}
	e.args = append(e.args, a)
	switch {
	case k < len(s) && s[k] == '}':
		return k + 1, ""
	case k < len(s) && s[k] == ':':
		for k < len(s) && s[k] == ':' {
			k++
		}
		return e.oneArg(s, k, func(b byte) bool { return b != '}' }, false)
	}
	return 0, badSubst
}

// replaceArgs reads `pattern/replacement}` or `pattern/}`; the pattern
// runs to the next `/`, past any `}`, as drone reads it.
func (e *expr) replaceArgs(s string, k int) (int, string) {
	a, k, bad := param(s, k, func(b byte) bool { return b != '/' }, true)
	if bad != "" {
		return 0, bad
	}
	e.args = append(e.args, a)
	if k >= len(s) || s[k] != '/' {
		return 0, badSubst
	}
	for k < len(s) && s[k] == '/' {
		k++
	}
	if k < len(s) && s[k] == '}' {
		return k + 1, ""
	}
	return e.oneArg(s, k, func(b byte) bool { return b != '}' }, true)
}

// Eval is what the flux and clusterctl dialects write for r, each name's
// value from lookup (a name it does not know is empty, as in those tools
// without strict mode). For a Ref of Scan or ScanDefaults it is Resolve.
func (r Ref) Eval(lookup func(string) (string, bool)) string {
	if r.expr == nil {
		v, ok := lookup(r.Name)
		return r.Resolve(v, ok)
	}
	return r.expr.eval(lookup)
}

// Drone reports whether r is a flux or clusterctl expression (ScanDrone).
func (r Ref) Drone() bool { return r.expr != nil }

func (e *expr) eval(lookup func(string) (string, bool)) string {
	args := make([]string, len(e.args))
	for i, a := range e.args {
		args[i] = a.text
		if a.nested != nil {
			args[i] = a.nested.eval(lookup)
		}
	}
	v, _ := lookup(e.param)
	return apply(e.op, v, args)
}

// apply is drone's operator op on v.
func apply(op, v string, args []string) string {
	switch op {
	case ",":
		return firstRune(v, unicode.ToLower)
	case ",,":
		return strings.ToLower(v)
	case "^":
		return firstRune(v, unicode.ToUpper)
	case "^^":
		return strings.ToUpper(v)
	case "#":
		if len(args) == 0 {
			return strconv.Itoa(len(v))
		}
		return trimPrefix(v, args[0], false)
	case "##":
		return trimPrefix(v, args[0], true)
	case "%":
		return reverse(trimPrefix(reverse(v), reverse(args[0]), false))
	case "%%":
		return reverse(trimPrefix(reverse(v), reverse(args[0]), true))
	case ":":
		return substr(v, args)
	case "/", "//", "/#", "/%":
		return replace(op, v, args)
	}
	if v == "" && len(args) > 0 { // a default, or an operator drone reads as one
		return strings.Join(args, "")
	}
	return v
}

func firstRune(s string, f func(rune) rune) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(f(r)) + s[n:]
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// substr is `${NAME:offset}` and `${NAME:offset:length}` on bytes; an
// offset or length that is no number leaves the value, a negative length
// counts from the end (Flux's reading: drone/envsubst/v2 panics there).
func substr(s string, args []string) string {
	pos, err := strconv.Atoi(args[0])
	if err != nil {
		return s
	}
	if pos < 0 {
		pos = max(len(s)+pos, 0)
	}
	if len(args) == 1 {
		if pos < len(s) {
			return s[pos:]
		}
		return ""
	}
	length, err := strconv.Atoi(args[1])
	switch {
	case err != nil:
		return s
	case length < 0:
		if end := len(s) + length; end >= pos {
			return s[pos:end]
		}
		return ""
	case pos+length >= len(s):
		if pos < len(s) {
			return s[pos:]
		}
		return ""
	}
	return s[pos : pos+length]
}

func replace(op, s string, args []string) string {
	switch {
	case op == "/#" || op == "/%":
		if len(args) != 2 {
			return s
		}
		if op == "/#" && strings.HasPrefix(s, args[0]) {
			return strings.Replace(s, args[0], args[1], 1)
		}
		if op == "/%" && strings.HasSuffix(s, args[0]) {
			return strings.TrimSuffix(s, args[0]) + args[1]
		}
		return s
	}
	n := 1
	if op == "//" {
		n = -1
	}
	with := ""
	if len(args) > 1 {
		with = args[1]
	}
	return strings.Replace(s, args[0], with, n)
}

// trimPrefix removes the shortest (or longest) prefix of s that pattern
// matches; a malformed pattern leaves s.
func trimPrefix(s, pattern string, longest bool) string {
	match := ""
	for i := 0; i < len(s); i++ {
		ok, err := glob(pattern, s[:len(s)-i])
		if err {
			return s
		}
		if ok {
			match = s[:len(s)-i]
			if longest {
				break
			}
		}
	}
	if match != "" {
		return strings.TrimPrefix(s, match)
	}
	return s
}
