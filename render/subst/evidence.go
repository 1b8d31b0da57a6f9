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

// of says why the program reading s owns r's name, or "".
func (ev *objectEvidence) of(s string, r shellformat.Ref, n *yaml.Node, assigned map[string]bool) string {
	switch {
	case inGoAction(s, r.Start):
		return EvidenceGoTemplate
	case assigned[r.Name]:
		return EvidenceAssigned
	}
	if ev == nil {
		return ""
	}
	for _, e := range ev.declared[r.Name] {
		switch {
		case within(e, n):
		case ev.env[e]:
			return EvidenceEnv
		default:
			return EvidenceParameter
		}
	}
	return ""
}

// within reports whether n is e or below it.
func within(e, n *yaml.Node) bool {
	found := false
	manifest.Walk(e, func(c *yaml.Node) { found = found || c == n })
	return found
}

// inGoAction reports whether offset i of s is inside a `{{ … }}` action.
func inGoAction(s string, i int) bool {
	open := strings.LastIndex(s[:i], "{{")
	if open < 0 || strings.LastIndex(s[:i], "}}") > open {
		return false
	}
	return strings.Contains(s[i:], "}}")
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
	if !strings.Contains(s, "=") && !strings.Contains(s, "export") && !strings.Contains(s, "local") &&
		!strings.Contains(s, "read") && !strings.Contains(s, "for") && !strings.Contains(s, "declare") {
		return nil
	}
	re := shellNames()
	out := map[string]bool{}
	for _, m := range re.assignment.FindAllStringSubmatch(s, -1) {
		out[m[1]] = true
	}
	for _, m := range re.forLoop.FindAllStringSubmatch(s, -1) {
		out[m[1]] = true
	}
	for _, m := range re.declaration.FindAllStringSubmatch(s, -1) {
		for _, w := range strings.Fields(m[1]) {
			name, _, _ := strings.Cut(w, "=")
			if !strings.HasPrefix(w, "-") && isName(name) {
				out[name] = true
			}
		}
	}
	return out
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
