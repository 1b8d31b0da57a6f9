package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/render/shellformat"
	"github.com/krender/krender/workload"
)

// Vars is what substitution may use: the profile's variables (after extends,
// the tenant layer and --set). Nothing else, in particular not the environment.
type Vars map[string]string

func (v Vars) lookup(name string) (string, bool) { s, ok := v[name]; return s, ok }

// Occurrence is one reference in a template and what substitution does with it.
type Occurrence = manifest.Ref

// Substitute replaces the whitelisted references in every scalar of o, keys
// included. It works on parsed scalars, never on text, so no value can change
// the document's structure. It returns every reference it saw.
func Substitute(o *manifest.Object, vars Vars) []Occurrence {
	var shell map[*yaml.Node]workload.ShellKind
	var occ []Occurrence
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
			occ = append(occ, Occurrence{Pos: pos[i], Text: r.Text(n.Value), Name: r.Name, Defined: def, Runtime: string(shell[n]), Node: n})
		}
		out, _ := shellformat.Expand(n.Value, vars.lookup)
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
func Unresolved(occ []Occurrence, defined []string) error {
	var errs filepos.List
	for _, o := range occ {
		if o.Defined || o.Runtime != "" {
			continue
		}
		errs = append(errs, filepos.Errorf(o.Pos, "%s", UndefinedMessage(o, defined)))
	}
	return errs.Err()
}

// UndefinedMessage explains an undefined reference, with a did-you-mean.
func UndefinedMessage(r Occurrence, defined []string) string {
	msg := fmt.Sprintf("undefined variable %s: not in the profile's vars or --set", r.Text)
	if s := suggest(r.Name, defined); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return msg
}

// suggest returns the defined name closest to name, if it is close enough to
// be a misspelling.
func suggest(name string, defined []string) string {
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
