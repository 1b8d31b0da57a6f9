package subst

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
)

// unusedVar is one definition the unused-var rule looks at.
type unusedVar struct {
	name   string
	pos    filepos.Pos
	tenant string // "": the profile's vars, for every unit
}

// unusedVars are the definitions of p the rule looks at: each name's last
// definition, in the profile's vars and in each tenant's, less the names
// the chain lists under substitution.unused.
func unusedVars(p *profiles.Profile) []unusedVar {
	if len(p.Files) == 0 {
		return nil
	}
	skip := map[string]bool{}
	for _, u := range p.Substitution.Unused {
		skip[u.Value] = true
	}
	var out []unusedVar
	add := func(vs profiles.Vars, tenant string) {
		for _, v := range vs {
			if !skip[v.Name] {
				out = append(out, unusedVar{name: v.Name, pos: v.Pos, tenant: tenant})
			}
		}
	}
	add(p.Vars, "")
	for _, t := range p.Tenants {
		add(t.Vars, t.Name)
	}
	return out
}

// Unused is one profile variable no template of a unit references.
type Unused struct {
	Name   string
	Pos    filepos.Pos
	Tenant string // "": the profile's vars
	// Like is the name the templates reference or leave undefined that Name
	// looks like a misspelling of, "" if none: then the variable is likely
	// meant for other templates (a render of part of them), an info note.
	Like string
	// Hint is the did-you-mean against every name the templates use and the
	// chain defines.
	Hint string
}

// Mistake reports whether u is likely a mistake: a warning, not an info note.
func (u Unused) Mistake() bool { return u.Like != "" }

// Note is u as render prints it and check reports it.
func (u Unused) Note() filepos.Note {
	n := filepos.Note{Pos: u.Pos, Severity: filepos.Info, Rule: ruleid.UnusedVar,
		Msg: fmt.Sprintf("variable %s is defined but no template of this render references it%s", u.Name, u.Hint)}
	if u.Mistake() {
		n.Severity = filepos.Warning
		n.Msg = fmt.Sprintf("variable %s is defined but no template references it%s: its value reaches no manifest", u.Name, u.Hint)
	}
	n.Tenants = filepos.AddSorted(nil, u.Tenant)
	return n
}

// unused notes, for one unit, the profile's variables none of its objects
// references: a warning where the name looks like a misspelling of one the
// templates use, an info note (render -v, krender vars) otherwise. Apply
// asks it only of a unit that Wants the rule.
func (st *Stage) unused(s *manifest.Set) {
	var refs [][]manifest.Ref
	for _, o := range s.Objects {
		refs = append(refs, o.Refs)
	}
	for _, u := range st.Unused(s.Tenant, refs...) {
		s.Notes = append(s.Notes, u.Note())
	}
}

// Unused lists the profile's variables that a unit of tenant, whose
// objects hold refs, never references.
func (st *Stage) Unused(tenant string, refs ...[]manifest.Ref) []Unused {
	if st.defs.empty() {
		return nil
	}
	used := map[string]bool{}
	for _, rs := range refs {
		for _, r := range rs {
			if !r.Escaped {
				used[r.Name] = true
			}
		}
	}
	var out []Unused
	var usedList, names []string // names: what the templates use and the chain defines
	for _, d := range st.defs.of(tenant) {
		if used[d.name] {
			continue
		}
		if names == nil {
			usedList, names = sortedKeys(used), didYouMeanNames(used, st.defs)
		}
		out = append(out, Unused{Name: d.name, Pos: d.pos, Tenant: d.tenant,
			Like: suggest.Closest(d.name, usedList), Hint: suggest.Hint(d.name, names)})
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func didYouMeanNames(used map[string]bool, defs definitions) []string {
	all := maps.Clone(used)
	for n := range defs.names {
		all[n] = true
	}
	return sortedKeys(all)
}

// definitions are the profile's definitions, the tenants' by tenant, so
// that a fleet's unit looks at its own only.
type definitions struct {
	all      []unusedVar
	names    map[string]bool // each name once
	profile  []unusedVar
	byTenant map[string][]unusedVar
}

func newDefinitions(defs []unusedVar) definitions {
	d := definitions{all: defs, names: map[string]bool{}, byTenant: map[string][]unusedVar{}}
	for _, v := range defs {
		d.names[v.name] = true
		if v.tenant == "" {
			d.profile = append(d.profile, v)
		} else {
			d.byTenant[v.tenant] = append(d.byTenant[v.tenant], v)
		}
	}
	return d
}

func (d definitions) empty() bool { return len(d.all) == 0 }

// of is what a unit of tenant looks at: the profile's, then the tenant's.
func (d definitions) of(tenant string) []unusedVar {
	if tenant == "" || len(d.byTenant[tenant]) == 0 {
		return d.profile
	}
	return append(slices.Clip(d.profile), d.byTenant[tenant]...)
}
