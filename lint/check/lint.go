// Package check reports manifests that render fine but misbehave at run time:
// the traps krender exists for, as rules with ids, severities and fixes.
package check

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
)

// Finding is one problem, in the template's coordinates.
type Finding = rule.Finding

// Linter is the last pipeline stage of `krender check`: it looks at each
// set after every other stage and before directives are stripped, so that
// `krender.io/ignore` annotations can still be read. Safe for concurrent use.
type Linter struct {
	profile  *profiles.Profile
	disabled map[string]bool
	v        verdict.Validator
	crds     verdict.CRDs // nil: no CRD files

	mu       sync.Mutex
	findings map[string]*Finding
}

// Scope tells the render the scope of custom kinds from the CRD files
// (--crds, check.crds), for the namespace stage.
func (l *Linter) Scope(gk schema.GroupKind) (namespaced, known bool) {
	if l.crds == nil {
		return false, false
	}
	return l.crds.Scope(gk)
}

// Config is what a check needs beyond the profile. The linter reads no
// file: its caller loads what it needs (action.Check, from the run's
// inputs).
type Config struct {
	// CRDs are the CRD files' objects, loaded (loader.CRDs: the profile's
	// check.crds, then --crds), as the engine gets them.
	CRDs []*manifest.Object
	// Verbose (check -v) adds the findings only a reviewer asks for: the
	// names each object keeps for its program, with the evidence.
	Verbose bool
	// Validator is the API server's validation; nil: check settles what
	// kubeapi's tables can and returns ErrNeedsValidator for the rest.
	Validator verdict.Validator
}

// New prepares a linter; rules disabled in the profile's `check.disable`
// are skipped. The CRD files' definitions are compiled here, once per run.
func New(p *profiles.Profile, cfg Config) (*Linter, error) {
	l := &Linter{profile: p, disabled: map[string]bool{}, findings: map[string]*Finding{}}
	if !cfg.Verbose {
		for _, r := range rule.All() {
			if r.VerboseOnly {
				l.disabled[r.ID] = true
			}
		}
	}
	var err error
	if l.crds, err = crds(cfg.Validator, cfg.CRDs); err != nil {
		return nil, err
	}
	l.v = cfg.Validator
	var errs filepos.List
	for _, d := range p.Check.Disable {
		if !known(d.Value) {
			errs = append(errs, filepos.Errorf(d.Pos, "unknown rule %q%s (rules: %s)", d.Value, suggest.Hint(d.Value, rule.IDs()), strings.Join(rule.IDs(), ", ")))
		}
		l.disabled[d.Value] = true
	}
	return l, errs.Err()
}

// Apply runs every enabled rule on s.
func (l *Linter) Apply(s *manifest.Set) error {
	c := &ctx{set: s, profile: l.profile, crds: l.crds, v: l.v}
	if err := unknownIgnored(s); err != nil {
		return err
	}
	for _, r := range rule.All() {
		if err := s.Stopped(); err != nil {
			return err
		}
		check := checks[r.ID]
		if l.disabled[r.ID] || check == nil {
			continue
		}
		c.rule = r
		check(c)
	}
	if c.needs {
		return ErrNeedsValidator
	}
	// The stages' notes are findings too: check reports everything in one
	// list, and render prints none of them here.
	for _, n := range s.Notes {
		if l.disabled[n.Rule] {
			continue
		}
		c.found = append(c.found, &Finding{Rule: n.Rule, Severity: n.Severity, Pos: n.Pos, Object: n.Object,
			Zones: n.Zones, Tenants: n.Tenants, Msg: n.Msg, Fix: ruleFix(n.Rule)})
	}
	s.Notes = nil
	l.add(c.found)
	return nil
}

// unknownIgnored refuses, before any rule runs, the krender.io/ignore
// annotations of s that name a rule krender does not have.
func unknownIgnored(s *manifest.Set) error {
	var errs filepos.List
	for _, o := range s.Objects {
		ids, k := o.IgnoredRules()
		for _, id := range ids {
			if !known(id) {
				errs = append(errs, filepos.Errorf(o.Pos(k), "krender.io/ignore names unknown rule %q (rules: %s)", id, strings.Join(rule.IDs(), ", ")))
			}
		}
	}
	return errs.Err()
}

// add records found, merging the zones and tenants of a finding already
// recorded with the same rule, place, object and message.
func (l *Linter) add(found []*Finding) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range found {
		key := f.Rule + "\x00" + f.Pos.String() + "\x00" + f.Object + "\x00" + f.Msg
		if prev, ok := l.findings[key]; ok {
			// one place found in several objects (zone copies, an injected
			// fragment) or tenants
			for _, z := range f.Zones {
				prev.Zones = filepos.AddSorted(prev.Zones, z)
			}
			for _, t := range f.Tenants {
				prev.Tenants = filepos.AddSorted(prev.Tenants, t)
			}
			continue
		}
		f.Zones, f.Tenants = slices.Clone(f.Zones), slices.Clone(f.Tenants)
		l.findings[key] = f
	}
}

// Findings returns everything found, ordered by position then rule, with
// the tenants each finding applies to sorted.
func (l *Linter) Findings() []Finding {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Finding, 0, len(l.findings))
	for _, f := range l.findings {
		g := *f
		g.Zones, g.Tenants = slices.Clone(g.Zones), slices.Clone(g.Tenants)
		g.Msg += filepos.Scope(g.Zones, nil, 0)
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(a.Pos.Compare(b.Pos), strings.Compare(a.Rule, b.Rule), strings.Compare(a.Object, b.Object), strings.Compare(a.Msg, b.Msg))
	})
	return out
}

// HasErrors reports whether any finding is error-level.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == filepos.Err {
			return true
		}
	}
	return false
}

type ctx struct {
	set     *manifest.Set
	profile *profiles.Profile
	rule    rule.Rule
	found   []*Finding
	owner   map[*yaml.Node]*manifest.Object     // built on first use by eachRef
	crds    verdict.CRDs                        // nil: no CRD files
	v       verdict.Validator                   // nil: krender's, without the API server's code
	needs   bool                                // a Validator is needed (needValidator)
	custom  map[*manifest.Object]verdict.Custom // built on first use by customResources
}

// report records a finding on o at node n (the object itself when n has no
// position) unless o opts out of the rule.
func (c *ctx) report(o *manifest.Object, n *yaml.Node, sev filepos.Severity, msg, fix string) {
	if n == nil || n.Line == 0 {
		n = o.Node
	}
	c.reportAt(o, o.Pos(n), sev, msg, fix)
}

// reportAt records a finding on o at pos, such as a reference inside a scalar.
func (c *ctx) reportAt(o *manifest.Object, pos filepos.Pos, sev filepos.Severity, msg, fix string) {
	if o.Ignores(c.rule.ID) {
		return
	}
	object, msg := o.AsWritten(msg)
	if r := c.set.Redact; r != nil { // findings are printed: no secret values
		msg, fix, object = r(msg), r(fix), r(object)
	}
	c.found = append(c.found, &Finding{Rule: c.rule.ID, Severity: sev, Pos: pos, Object: object,
		Zones: filepos.AddSorted(nil, o.Zone), Tenants: filepos.AddSorted(nil, c.set.Tenant), Msg: msg, Fix: fix})
}

func ruleFix(id string) string {
	r, _ := rule.Lookup(id)
	return r.Fix
}

func known(id string) bool {
	_, ok := rule.Lookup(id)
	return ok
}
