// Package subst is the first stage of every render: it puts a unit's
// deploy-time variables into the parsed templates, with the semantics of
// GNU `envsubst 'SHELL-FORMAT'` restricted to the profile's names.
//
// Why not github.com/a8m/envsubst: it cannot leave an unlisted reference
// intact (it blanks unknown names, evaluates `${X:-d}` and collapses `$$`),
// and its errors carry no position. shellformat is a small scanner with
// GNU's rules that reports where each reference is.
package subst

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/subst/shellformat"
	"github.com/krender/krender/workload"
)

// Stage substitutes each unit's variables (Set.Vars: the profile's after
// extends, the tenant layer and --set; never the environment) and records
// every reference on its object.
type Stage struct {
	// AllowUnresolved keeps going past undefined variables, leaving them in
	// the objects' Refs for a checker to report as findings.
	AllowUnresolved bool
}

func (st Stage) Apply(s *manifest.Set) error {
	var errs filepos.List
	names := s.VarNames()
	for _, o := range s.Objects {
		o.Refs = Substitute(o, s.Vars)
		if !st.AllowUnresolved {
			errs = append(errs, Unresolved(o.Refs, names)...)
		}
	}
	return errs.Err()
}

// Substitute replaces the whitelisted references in every scalar of o, keys
// included. It works on parsed scalars, never on text, so no value can change
// the document's structure. It returns every reference it saw.
func Substitute(o *manifest.Object, vars map[string]string) []manifest.Ref {
	lookup := func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
	var shell map[*yaml.Node]workload.ShellKind
	var occ []manifest.Ref
	manifest.WalkScalars(o.Node, func(n *yaml.Node, key bool) {
		if strings.IndexByte(n.Value, '$') < 0 {
			return
		}
		refs := shellformat.Scan(n.Value)
		if len(refs) == 0 {
			return
		}
		if shell == nil {
			shell = workload.ShellScalars(o)
		}
		pos := refPositions(o, n, refs)
		for i, r := range refs {
			_, def := vars[r.Name]
			occ = append(occ, manifest.Ref{Pos: pos[i], Text: r.Text(n.Value), Name: r.Name, Defined: def, Runtime: string(shell[n]), Node: n})
		}
		out, _ := shellformat.Expand(n.Value, lookup)
		if out == n.Value {
			return
		}
		whole := len(refs) == 1 && refs[0].Start == 0 && refs[0].End == len(n.Value)
		setScalar(n, out, whole, key)
	})
	return occ
}

// setScalar stores a substituted value. A plain scalar that was exactly one
// reference takes the type its value has (`replicas: ${N}` is a number);
// anything else is a string, quoted where Kubernetes' YAML 1.1 reader would
// otherwise see another type (`yes`, `on`, `1e3`, `0x10`...).
func setScalar(n *yaml.Node, v string, whole, key bool) {
	n.Value = v
	if whole && !key && n.Style == 0 {
		n.Tag = plainTag.get(v)
		return
	}
	n.Tag = "!!str"
	if n.Style == 0 && !plainString.get(v) {
		n.Style = yaml.DoubleQuotedStyle
	}
}

// readAsString reports whether Kubernetes (sigs.k8s.io/yaml, go-yaml v2
// resolution) reads v, written plain, as the string v.
func readAsString(v string) bool { return manifest.ReadsAsString(v) }

// refPositions finds where each reference of n was written.
func refPositions(o *manifest.Object, n *yaml.Node, refs []shellformat.Ref) []filepos.Pos {
	texts := make([]string, len(refs))
	for i, r := range refs {
		texts[i] = r.Text(n.Value)
	}
	return o.SourceOf(n).TextPositions(n, texts)
}

// Unresolved turns references that are neither defined nor inside a script
// into errors: they are deploy-time variables the profile lacks.
func Unresolved(refs []manifest.Ref, defined []string) filepos.List {
	var errs filepos.List
	for _, r := range refs {
		if r.Defined || r.Runtime != "" {
			continue
		}
		errs = append(errs, filepos.Errorf(r.Pos, "%s", UndefinedMessage(r, defined)))
	}
	return errs
}

// UndefinedMessage explains an undefined reference, with a did-you-mean.
func UndefinedMessage(r manifest.Ref, defined []string) string {
	msg := fmt.Sprintf("undefined variable %s: not in the profile's vars or --set", r.Text)
	if s := Suggest(r.Name, defined); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return msg
}

// Suggest returns the defined name closest to name, if it is close enough to
// be a misspelling.
func Suggest(name string, defined []string) string {
	best, bestD := "", 0
	sorted := append([]string(nil), defined...)
	sort.Strings(sorted)
	for _, d := range sorted {
		dist := levenshtein.ComputeDistance(strings.ToUpper(name), strings.ToUpper(d))
		if strings.EqualFold(name, d) {
			dist = 0
		}
		if best == "" || dist < bestD {
			best, bestD = d, dist
		}
	}
	limit := 2
	if len(name) >= 9 {
		limit = 3
	}
	if best == "" || bestD > limit {
		return ""
	}
	return best
}
