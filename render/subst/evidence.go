package subst

import (
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render/subst/shellformat"
)

// Evidence that a program, not the deploy, owns a name. krender decides
// from what the object itself says, never from a guess about its operator.
const (
	EvidenceAssigned   = "assigned in the same string"
	EvidenceEnv        = "a container's env in this object"
	EvidenceParameter  = "a parameter this object declares"
	EvidenceGoTemplate = "inside a Go template action {{ }}"
	EvidenceStandard   = "a standard shell and process variable"
)

// standardVars are names every shell or process has: a deploy-time variable
// of the same name in a script shadows the program's own.
var standardVars = map[string]bool{
	"HOSTNAME": true, "HOME": true, "PATH": true, "PWD": true, "OLDPWD": true, "USER": true, "LOGNAME": true,
	"RANDOM": true, "SHELL": true, "LANG": true, "TERM": true, "UID": true, "EUID": true, "PPID": true,
	"IFS": true, "SECONDS": true, "LINENO": true, "TMPDIR": true, "HOSTTYPE": true,
	"OSTYPE": true, "BASH": true, "PS1": true, "PS2": true, "TZ": true, "LC_ALL": true, "SHLVL": true,
}

// StandardVar reports whether every shell or process has name.
func StandardVar(name string) bool { return standardVars[name] }

// objectEvidence holds what one object declares for its programs: the env
// names of its containers and the parameters it declares, each with the
// list entry that declares it (an entry is no evidence for its own value).
type objectEvidence struct {
	declared map[string][]*yaml.Node
	env      map[*yaml.Node]bool // the entries of env lists
}

// paramKeys mark a list entry that declares a parameter: a Template's
// parameters[], Tekton params[], a container's env[].
var paramKeys = []string{"value", "default", "description", "required"}

func collectEvidence(root *yaml.Node) *objectEvidence {
	ev := &objectEvidence{declared: map[string][]*yaml.Node{}, env: map[*yaml.Node]bool{}}
	manifest.Walk(root, func(n *yaml.Node) {
		if n.Kind != yaml.MappingNode {
			return
		}
		if env := manifest.Value(n, "env"); env != nil && env.Kind == yaml.SequenceNode {
			for _, e := range env.Content {
				if name := manifest.ScalarAt(e, "name"); name != "" {
					ev.env[e] = true
					ev.declared[name] = append(ev.declared[name], e)
				}
			}
		}
		for i := 1; i < len(n.Content); i += 2 {
			l := n.Content[i]
			if l.Kind != yaml.SequenceNode || n.Content[i-1].Value == "env" {
				continue
			}
			for _, e := range l.Content {
				name := manifest.ScalarAt(e, "name")
				if name == "" || !hasAny(e, paramKeys) {
					continue
				}
				ev.declared[name] = append(ev.declared[name], e)
			}
		}
	})
	return ev
}

func hasAny(m *yaml.Node, keys []string) bool {
	for _, k := range keys {
		if manifest.Value(m, k) != nil {
			return true
		}
	}
	return false
}

// of says why the program reading scalar c owns r's name, or "".
func (ev *objectEvidence) of(c *scalarContext, r shellformat.Ref, assigned map[string]bool) string {
	switch {
	case c.inGoAction(r.Start):
		return EvidenceGoTemplate
	case assigned[r.Name]:
		return EvidenceAssigned
	}
	if ev == nil {
		return ""
	}
	for _, e := range ev.declared[r.Name] {
		switch {
		case c.within(e):
		case ev.env[e]:
			return EvidenceEnv
		default:
			return EvidenceParameter
		}
	}
	return ""
}

// scalarContext is what evidence asks of one scalar for each of its
// references: whether an offset is inside a Go template action, and
// whether the scalar lies within a list entry. A scalar's references come
// in order, so one forward pass over its value answers them all: the
// analysis is linear in the value, however many references it holds (it
// was once a scan from the value's start for every reference).
type scalarContext struct {
	s string
	n *yaml.Node
	// asked is the last offset asked; below scanned, the last `{{` and
	// `}}` that start there are lastOpen and lastClose (-1: none).
	asked, scanned      int
	lastOpen, lastClose int
	// nextClose is the first `}}` at or after a former offset asked: -1
	// none, -2 not looked for yet.
	nextClose int
	entries   map[*yaml.Node]bool // within, by entry
}

func newScalarContext(n *yaml.Node) *scalarContext {
	return &scalarContext{s: n.Value, n: n, lastOpen: -1, lastClose: -1, nextClose: -2}
}

// inGoAction reports whether offset i of the value is inside a `{{ … }}`
// action: after a `{{` with no `}}` since, and before a `}}`. Offsets asked
// in increasing order cost one pass over the value in all; an earlier one
// starts the pass again.
func (c *scalarContext) inGoAction(i int) bool {
	if i < c.asked {
		*c = scalarContext{s: c.s, n: c.n, lastOpen: -1, lastClose: -1, nextClose: -2, entries: c.entries}
	}
	c.asked = i
	for ; c.scanned+2 <= i; c.scanned++ {
		switch c.s[c.scanned : c.scanned+2] {
		case "{{":
			c.lastOpen = c.scanned
		case "}}":
			c.lastClose = c.scanned
		}
	}
	if c.lastOpen < 0 || c.lastClose > c.lastOpen {
		return false
	}
	if c.nextClose == -2 || c.nextClose >= 0 && c.nextClose < i {
		if k := strings.Index(c.s[i:], "}}"); k >= 0 {
			c.nextClose = i + k
		} else {
			c.nextClose = -1
		}
	}
	return c.nextClose >= 0
}

// within reports whether the scalar is e or below it, walking each entry
// once for all the scalar's references.
func (c *scalarContext) within(e *yaml.Node) bool {
	if in, ok := c.entries[e]; ok {
		return in
	}
	if c.entries == nil {
		c.entries = map[*yaml.Node]bool{}
	}
	found := false
	manifest.Walk(e, func(x *yaml.Node) { found = found || x == c.n })
	c.entries[e] = found
	return found
}

// shellNames are compiled on first use: start-up pays for every expression
// compiled at init, and most renders never look.
var shellNames = sync.OnceValue(func() (r struct{ assignment, declaration, forLoop *regexp.Regexp }) {
	// NAME=, export NAME=..., local NAME=..., NAME+=, arr[i]=
	r.assignment = regexp.MustCompile(`(?:^|[\s;&|({` + "`" + `])([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]\n]*\])?\+?=`)
	// export/local/readonly/declare/typeset/unset NAME..., read [-opts] NAME...
	r.declaration = regexp.MustCompile(`(?:^|[\s;&|({])(?:export|local|readonly|declare|typeset|read)((?:[ \t]+[^\s;&|)]+)+)`)
	r.forLoop = regexp.MustCompile(`(?:^|[\s;&|({])for[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in\b`)
	return r
})

// assignedNames are the names a script in s gives values to itself.
func assignedNames(s string) map[string]bool {
	if !mayAssign(s) {
		return nil
	}
	re := shellNames()
	out := map[string]bool{}
	// Line by line: no match spans a line break (one may start at one,
	// as at the start of the text), and a short line costs the expressions
	// far less than a long value does.
	for line := range strings.Lines(s) {
		if strings.IndexByte(line, '=') >= 0 {
			for _, m := range re.assignment.FindAllStringSubmatch(line, -1) {
				out[m[1]] = true
			}
		}
		if strings.Contains(line, "for") {
			for _, m := range re.forLoop.FindAllStringSubmatch(line, -1) {
				out[m[1]] = true
			}
		}
		if declares(line) {
			addDeclared(out, re.declaration, line)
		}
	}
	return out
}

// mayAssign reports whether s holds a word any of the assignment
// expressions needs, so that most values skip them all.
func mayAssign(s string) bool {
	for _, w := range []string{"=", "export", "local", "read", "for", "declare"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// addDeclared adds to out the names that export, local, read and their
// kin declare on line, leaving out their options.
func addDeclared(out map[string]bool, declaration *regexp.Regexp, line string) {
	for _, m := range declaration.FindAllStringSubmatch(line, -1) {
		for _, w := range strings.Fields(m[1]) {
			name, _, _ := strings.Cut(w, "=")
			if !strings.HasPrefix(w, "-") && isName(name) {
				out[name] = true
			}
		}
	}
}

// declares reports whether line holds a word the declaration expression
// starts with.
func declares(line string) bool {
	for _, w := range []string{"export", "local", "read", "declare", "typeset"} {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	refs := shellformat.Scan("$" + s)
	return len(refs) == 1 && refs[0].End == len(s)+1
}

// hasUpper: deploy-time placeholders are conventionally upper case; the
// runtime's own names almost never are (nginx's $host, a Go template's $i,
// crypt's $apr1$).
func hasUpper(name string) bool {
	return strings.IndexFunc(name, func(r rune) bool { return r >= 'A' && r <= 'Z' }) >= 0
}
