// Package render is krender's pipeline: templates are parsed once, then for
// each tenant copied, substituted with the profile's whitelisted variables and
// handed through the stages (injection, zones, hashing) to the output.
package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/profiles"
)

// Stage is one step after substitution. Stages change the set in place and
// report problems in template coordinates.
//
// A stage is built once per run and then applied to many tenants at once:
// Apply runs concurrently on different Sets, so it must not change the
// stage's own state (compiled expressions, parsed fragments, tables) nor
// anything the Set shares with the parsed templates; it may only change the
// Set and objects it owns. Copy a shared node (a fragment) before adopting it.
type Stage interface {
	Apply(s *manifest.Set) error
}

// Options are what a user chooses on the command line.
type Options struct {
	Profile   string   // path of the profile file
	Tenants   []string // restrict to these tenants; empty: all
	Set       []string // NAME=VALUE overrides, highest precedence
	Namespace string   // default namespace; overrides the profile's
	Paths     []string // templates: files or directories
	Shard     Shard    // render only this slice of the tenants
}

// Engine holds everything parsed once per run.
type Engine struct {
	Profile   *profiles.Profile
	Templates []*manifest.Object
	Units     []Unit
	Stages    []Stage
	// AllowUnresolved keeps going past undefined variables, leaving them in
	// Set.Refs for a checker to report as findings.
	AllowUnresolved bool
	Workers         int // units rendered at once; 0: GOMAXPROCS
	namespace       string
}

// Unit is one render of every template: a tenant, or the profile itself.
type Unit struct {
	Tenant string
	Vars   profiles.Vars
}

// New loads the profile and templates and prepares the stages.
func New(fsys FS, opts Options) (*Engine, error) {
	if opts.Profile == "" {
		return nil, fmt.Errorf("a profile is required (-p PROFILE)")
	}
	if len(opts.Paths) == 0 {
		return nil, fmt.Errorf("no templates given: krender render -p PROFILE PATH...")
	}
	p, err := profiles.LoadWith(opts.Profile, fsys.ReadFile)
	if err != nil {
		return nil, err
	}
	set, err := parseSet(opts.Set)
	if err != nil {
		return nil, err
	}
	units, err := selectUnits(p, opts.Tenants, set)
	if err != nil {
		return nil, err
	}
	units = opts.Shard.Of(units)
	var fragments []string
	for _, in := range p.Inject {
		fragments = append(fragments, in.FragmentPath)
	}
	tpls, err := LoadTemplates(fsys, opts.Paths, fragments...)
	if err != nil {
		return nil, err
	}
	e := &Engine{Profile: p, Templates: tpls, Units: units, namespace: opts.Namespace}
	if e.namespace == "" {
		e.namespace = p.Namespace.Value
	}
	if e.namespace == "" {
		e.namespace = "default"
	}
	if e.Stages, err = buildStages(fsys, p); err != nil {
		return nil, err
	}
	return e, nil
}

func parseSet(sets []string) (profiles.Vars, error) {
	var vars profiles.Vars
	for _, s := range sets {
		name, value, ok := strings.Cut(s, "=")
		if !ok || !profiles.ValidVarName(name) {
			return nil, fmt.Errorf("--set %q: want NAME=VALUE with NAME matching [A-Za-z_][A-Za-z0-9_]*", s)
		}
		vars = vars.Set(profiles.Var{Name: name, Value: value, Pos: filepos.Pos{File: "--set"}})
	}
	return vars, nil
}

func selectUnits(p *profiles.Profile, want []string, set profiles.Vars) ([]Unit, error) {
	if len(p.Tenants) == 0 {
		if len(want) > 0 {
			return nil, fmt.Errorf("-t %s: profile %s defines no tenants", want[0], p.Files[len(p.Files)-1])
		}
		return []Unit{{Vars: p.Vars.Merge(set)}}, nil
	}
	chosen := map[string]bool{}
	for _, w := range want {
		found := false
		for _, t := range p.Tenants {
			found = found || t.Name == w
		}
		if !found {
			var names []string
			for _, t := range p.Tenants {
				names = append(names, t.Name)
			}
			msg := fmt.Sprintf("-t %s: no such tenant in the profile", w)
			if s := suggest(w, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			return nil, fmt.Errorf("%s", msg)
		}
		chosen[w] = true
	}
	var units []Unit
	for _, t := range p.Tenants {
		if len(want) == 0 || chosen[t.Name] {
			units = append(units, Unit{Tenant: t.Name, Vars: p.Vars.Merge(t.Vars).Merge(set)})
		}
	}
	return units, nil
}

// Render produces one unit's objects. It never touches the parsed templates.
func (e *Engine) Render(u Unit) (*manifest.Set, error) {
	vars := Vars(u.Vars.Map())
	s := &manifest.Set{Tenant: u.Tenant, Namespace: e.namespace, VarNames: u.Vars.Names()}
	var occ []Occurrence
	for _, t := range e.Templates {
		o := t.Clone()
		o.Tenant = u.Tenant
		occ = append(occ, Substitute(o, vars)...)
		s.Objects = append(s.Objects, o)
	}
	s.Refs = occ
	if !e.AllowUnresolved {
		if err := Unresolved(occ, s.VarNames); err != nil {
			return nil, err
		}
	}
	var errs filepos.List
	for _, o := range s.Objects {
		errs = appendErrIf(errs, manifest.CheckDuplicateKeys(o.Src, o.Node))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	for _, st := range e.Stages {
		if err := st.Apply(s); err != nil {
			return nil, err
		}
	}
	for _, o := range s.Objects {
		o.StripDirectives(KeptAnnotations...)
	}
	sort.SliceStable(s.Notes, func(i, j int) bool { return s.Notes[i].Pos.String() < s.Notes[j].Pos.String() })
	return s, nil
}

// KeptAnnotations are krender.io/ annotations that krender writes as output.
var KeptAnnotations = []string{"krender.io/config-hash"}

func appendErrIf(l filepos.List, err error) filepos.List {
	if err == nil {
		return l
	}
	return appendErr(l, err)
}
