package manifest

import (
	"context"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
)

// Set is one unit of a render: every object rendered for one tenant (or for
// the profile itself when it has no tenants). Stages change it in place.
//
// Facts about one object live on the object, never here: stages copy, split
// and rebuild objects, and a table beside them would lose track of the copies.
type Set struct {
	Tenant    string
	Namespace string            // where objects without metadata.namespace live
	Vars      map[string]string // the deploy-time variables this unit is rendered with
	// Missing are variables the profile declares without a value that this
	// run did not give: a reference to one is an error wherever it is.
	Missing map[string]filepos.Pos
	Objects []*Object
	Notes   []filepos.Note
	Limits  limits.Limits // the run's; a stage that multiplies objects checks Objects before it does
	// Redact hides this unit's secret values in a message (nil: none).
	// Notes go through it; so must anything else a stage prints.
	Redact func(string) string
	// Disabled are the rules the profile's check.disable silences.
	Disabled map[string]bool
	// Context is the run's (nil: never done). A stage asks Stopped between
	// objects and in its long loops, and returns what it says at once.
	Context context.Context
	// Quiet says no one reads this unit's notes (krender diff reads only
	// objects): Note keeps none, and a stage skips an analysis whose only
	// outcome is a note (Wants).
	Quiet bool
}

// Wants says whether a note of rule would be kept: a stage asks before an
// analysis that only notes.
func (s *Set) Wants(rule string) bool { return !s.Quiet && !s.Disabled[rule] }

// Stopped is why the unit must stop, the cause of its done Context, or
// nil while it may go on; it costs a few nanoseconds.
func (s *Set) Stopped() error {
	if s.Context == nil {
		return nil
	}
	select {
	case <-s.Context.Done():
		return context.Cause(s.Context)
	default:
		return nil
	}
}

// Ref is one `$NAME`/`${NAME}` in a template and what substitution did with it.
type Ref struct {
	Pos     filepos.Pos
	Text    string // as written: `$NAME` or `${NAME}`
	Name    string
	Defined bool   // a profile variable: substituted at render time
	Runtime string // non-empty: a program reads it at run time (the place, or the evidence), so an undefined name is that program's
	// Reader is who reads the string: "Kubernetes", "program", "unknown"
	// or "nobody" (docs/substitution.md); it decides what an undefined
	// name means.
	Reader string
	// Evidence says why a program owns the name (assigned in the same
	// script, a container's env, a declared parameter, a Go template...);
	// with a defined name, the substitution may shadow the program's own.
	Evidence string
	Field    string // the field path in the object, as a reader sees it: spec.config
	// Op and Word are a default form's (`${NAME:-word}`): Op is ":-",
	// "-", ":=" or "=". Applied means Word replaced the reference.
	Op, Word string
	Applied  bool
	// Escaped marks no reference but `$$` in the flux and clusterctl
	// dialects, written as `$`.
	Escaped bool
	// Written is what an expression of the flux and clusterctl dialects
	// wrote for a defined name when it is not the name's value (`${A,,}`).
	Written string
	// AfterDollar: the reference directly follows a `$` (`$${NAME}`,
	// `$$NAME`); undefined, it is another tool's escape, never an error.
	AfterDollar bool
	// Kept, when non-empty, says why the reference stays as written though
	// it is in no runtime place: the object opts out of substitution (then
	// even a defined name stays), or unresolved-var is silenced for it.
	Kept string
	// Verdict is what substitution concluded: nothing to say, a warning or
	// an error (Problem says why). render refuses exactly the errors that
	// check reports, and check's unresolved-var rule reports both.
	Verdict Verdict
	Problem string
	Node    *yaml.Node // the scalar it was found in (after substitution); copies of the object point at their own
}

// Verdict is what an undefined (or undeclared-valued) reference means.
type Verdict uint8

const (
	Fine        Verdict = iota // substituted, or left for its reader without a word
	Questioned                 // left as written, with a warning
	Wrong                      // an error: render refuses it
	TypoWarning                // left for its program; check warns it looks like a misspelt profile variable
)

// Note records something the user should see, under a check rule id: on
// stderr from render, as a finding from check. o is the object it is about
// (nil for none); the profile's check.disable and o's krender.io/ignore
// silence the rule as they silence check's own.
func (s *Set) Note(o *Object, rule string, sev filepos.Severity, pos filepos.Pos, msg string) {
	if !s.Wants(rule) || o != nil && o.Ignores(rule) {
		return
	}
	n := filepos.Note{Pos: pos, Severity: sev, Msg: msg, Rule: rule}
	if o != nil {
		n.Object, n.Msg = o.AsWritten(msg)
		n.Zones = filepos.AddSorted(nil, o.Zone)
	}
	if s.Redact != nil {
		n.Msg, n.Object = s.Redact(n.Msg), s.Redact(n.Object)
	}
	n.Tenants = filepos.AddSorted(nil, s.Tenant)
	s.Notes = append(s.Notes, n)
}

// NamespaceOf is the namespace o lives in within this render.
func (s *Set) NamespaceOf(o *Object) string {
	if ns := o.Namespace(); ns != "" {
		return ns
	}
	return s.Namespace
}

// DirectivePrefix marks annotations that talk to krender; they are removed
// from the output once every stage has read them.
const DirectivePrefix = "krender.io/"

// Directive returns the value of the krender.io/<name> annotation on o.
func (o *Object) Directive(name string) (string, *yaml.Node, bool) {
	ann := Lookup(o.Node, "metadata", "annotations")
	k, v := KeyValue(ann, DirectivePrefix+name)
	if v == nil {
		return "", nil, false
	}
	return v.Value, k, true
}

// IgnoreDirective is krender.io/ignore: the check rules an object opts out
// of, comma-separated.
const IgnoreDirective = "ignore"

// IgnoredRules are the rule ids o's krender.io/ignore names, with the
// annotation's key for errors; read here only, so that render and check
// agree on what an object ignores.
func (o *Object) IgnoredRules() ([]string, *yaml.Node) {
	v, k, ok := o.Directive(IgnoreDirective)
	if !ok {
		return nil, nil
	}
	var ids []string
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return ids, k
}

// Ignores reports whether o's krender.io/ignore names rule.
func (o *Object) Ignores(rule string) bool {
	ids, _ := o.IgnoredRules()
	return contains(ids, rule)
}

// StripDirectives removes krender.io/ directive annotations (keeping those
// listed in keep, which are krender's own outputs) and an annotations map left empty.
func (o *Object) StripDirectives(keep ...string) {
	md := Value(o.Node, "metadata")
	ann := Value(md, "annotations")
	if ann == nil || ann.Kind != yaml.MappingNode {
		return
	}
	changed := false
	for i := 0; i+1 < len(ann.Content); {
		k := ann.Content[i].Value
		if strings.HasPrefix(k, DirectivePrefix) && !contains(keep, k) {
			ann.Content = append(ann.Content[:i], ann.Content[i+2:]...)
			changed = true
			continue
		}
		i += 2
	}
	if changed && len(ann.Content) == 0 {
		Delete(md, "annotations")
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// StrategicMergeDirective reports whether key is one of a strategic-merge
// patch's directives ($patch, $retainKeys, $setElementOrder/<list>,
// $deleteFromPrimitiveList/<list>): kustomize and kubectl read them when
// they merge the patch, so they are neither fields nor variable references.
func StrategicMergeDirective(key string) bool {
	return key == "$patch" || key == "$retainKeys" ||
		strings.HasPrefix(key, "$setElementOrder/") || strings.HasPrefix(key, "$deleteFromPrimitiveList/")
}
