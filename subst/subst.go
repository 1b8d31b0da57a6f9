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
	"strings"

	"github.com/krender/krender/internal/suggest"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/profiles"
	"github.com/krender/krender/subst/shellformat"
	"github.com/krender/krender/workload"
)

// UnresolvedRule is `krender check`'s rule for undefined references.
// Whatever silences it for check (the profile's check.disable, an object's
// krender.io/ignore) also lets render leave those references as written, so
// that one command never passes what the other refuses.
const UnresolvedRule = "unresolved-var"

// Opt-out annotations: an object carrying one with the value "disabled" is
// not substituted at all. Flux's is honoured so that manifests written for
// Flux's postBuild substitution mean the same here; it stays in the output
// (Flux reads it, as label or annotation), krender's is stripped.
const (
	Directive     = "substitute" // krender.io/substitute
	FluxDirective = "kustomize.toolkit.fluxcd.io/substitute"
	Disabled      = "disabled"
)

// Stage substitutes each unit's variables (Set.Vars: the profile's after
// extends, the tenant layer and --set; never the environment) and records
// every reference on its object.
type Stage struct {
	// AllowUnresolved keeps going past undefined variables, leaving them in
	// the objects' Refs for a checker to report as findings.
	AllowUnresolved bool

	places  []workload.Place // the profile's runtime fields
	ruleOff bool             // the profile's check.disable names UnresolvedRule
}

// New builds the stage for a profile; check is set for `krender check`.
func New(p *profiles.Profile, check bool) *Stage {
	st := &Stage{AllowUnresolved: check}
	for _, f := range p.Substitution.RuntimeFields {
		st.places = append(st.places, workload.Place{Kind: f.Kind.Value, Group: f.Group.Value, Keys: f.Keys, Label: workload.ProfileField})
	}
	for _, d := range p.Check.Disable {
		if d.Value == UnresolvedRule {
			st.ruleOff = true
		}
	}
	return st
}

func (st *Stage) Apply(s *manifest.Set) error {
	var errs filepos.List
	names := s.VarNames()
	for _, o := range s.Objects {
		refs, err := st.Substitute(o, s.Vars)
		if err != nil {
			errs = filepos.Append(errs, err)
			continue
		}
		o.Refs = refs
		if !st.AllowUnresolved {
			errs = append(errs, Unresolved(o.Refs, names)...)
		}
	}
	return errs.Err()
}

// Substitute replaces the whitelisted references in every scalar of o, keys
// included. It works on parsed scalars, never on text, so no value can change
// the document's structure. It returns every reference it saw.
func (st *Stage) Substitute(o *manifest.Object, vars map[string]string) ([]manifest.Ref, error) {
	off, err := optOut(o)
	if err != nil {
		return nil, err
	}
	silenced := st.silenced(o)
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
		if shell == nil && off == "" {
			shell = workload.ShellScalars(o, st.places...)
		}
		pos := refPositions(o, n, refs)
		for i, r := range refs {
			_, def := vars[r.Name]
			ref := manifest.Ref{Pos: pos[i], Text: r.Text(n.Value), Name: r.Name, Defined: def, Runtime: string(shell[n]), Node: n}
			switch {
			case off != "":
				ref.Kept = off
			case !def && ref.Runtime == "":
				ref.Kept = silenced
			}
			occ = append(occ, ref)
		}
		if off != "" {
			return
		}
		out, _ := shellformat.Expand(n.Value, lookup)
		if out == n.Value {
			return
		}
		whole := len(refs) == 1 && refs[0].Start == 0 && refs[0].End == len(n.Value)
		setScalar(n, out, whole, key)
	})
	return occ, nil
}

// optOut names the annotation (or Flux label) that turns substitution off
// for o, or "". krender's own annotation takes one value, so that a typo
// such as `disable` fails instead of substituting; Flux's is Flux's to
// judge: any other value means substitution, as in Flux.
func optOut(o *manifest.Object) (string, error) {
	if v, k, ok := o.Directive(Directive); ok {
		if v != Disabled {
			return "", filepos.Errorf(o.Pos(k), "%s%s: %q: the only value is %q (no substitution in this object)", manifest.DirectivePrefix, Directive, v, Disabled)
		}
		return manifest.DirectivePrefix + Directive + ": " + Disabled, nil
	}
	for _, where := range []string{"annotations", "labels"} {
		if manifest.ScalarAt(o.Node, "metadata", where, FluxDirective) == Disabled {
			return FluxDirective + ": " + Disabled, nil
		}
	}
	return "", nil
}

// silenced says what, if anything, silences UnresolvedRule for o.
func (st *Stage) silenced(o *manifest.Object) string {
	switch {
	case st.ruleOff:
		return "the profile's check.disable: [" + UnresolvedRule + "]"
	case o.Ignores(UnresolvedRule):
		return manifest.DirectivePrefix + manifest.IgnoreDirective + ": " + UnresolvedRule
	}
	return ""
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

// Unresolved turns references that are neither defined, nor in a runtime
// place, nor kept on purpose into errors: they are deploy-time variables the
// profile lacks.
func Unresolved(refs []manifest.Ref, defined []string) filepos.List {
	var errs filepos.List
	for _, r := range refs {
		if r.Defined || r.Runtime != "" || r.Kept != "" {
			continue
		}
		errs = append(errs, filepos.Errorf(r.Pos, "%s; %s", UndefinedMessage(r, defined), KeepHint))
	}
	return errs
}

// KeepHint names the ways to keep a `$` that belongs to another program:
// in public manifests most undefined references are such, not typos.
const KeepHint = "if another program reads it at run time, list its field in the profile's substitution.runtimeFields " +
	"or annotate the object " + manifest.DirectivePrefix + Directive + ": " + Disabled + " (runtime places: docs/substitution.md)"

// UndefinedMessage explains an undefined reference, with a did-you-mean.
func UndefinedMessage(r manifest.Ref, defined []string) string {
	msg := fmt.Sprintf("undefined variable %s: not in the profile's vars or --set", r.Text)
	return msg + suggest.Hint(r.Name, defined)
}
