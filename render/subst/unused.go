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
)

// UnusedRule is the warning on a profile variable no template references:
// `LOG_LEVLE: debug` beside a base's `LOG_LEVEL: info` ships `info`.
const UnusedRule = "unused-var"

// unusedVar is one definition the unused-var rule looks at.
type unusedVar struct {
	name   string
	pos    filepos.Pos
	tenant string // "": the profile's vars, for every unit
	// typoOnly: a base of the chain defines the name too. A base serves
	// several apps, so its names are reported only where they look like a
	// misspelling of a name the templates use.
	typoOnly bool
}

// unusedVars are the definitions of p the rule looks at: each name's last
// definition, in the profile's vars and in each tenant's, less the names
// the chain lists under substitution.unused.
func unusedVars(p *profiles.Profile) []unusedVar {
	if len(p.Files) == 0 {
		return nil
	}
	leaf := p.Files[len(p.Files)-1]
	inBase := map[string]bool{}
	for _, d := range p.Defs {
		if d.Pos.File != leaf {
			inBase[d.Name] = true
		}
	}
	skip := map[string]bool{}
	for _, u := range p.Substitution.Unused {
		skip[u.Value] = true
	}
	var out []unusedVar
	add := func(vs profiles.Vars, tenant string) {
		for _, v := range vs {
			if !skip[v.Name] {
				out = append(out, unusedVar{name: v.Name, pos: v.Pos, tenant: tenant, typoOnly: inBase[v.Name] || v.Pos.File != leaf})
			}
		}
	}
	add(p.Vars, "")
	for _, t := range p.Tenants {
		add(t.Vars, t.Name)
	}
	return out
}

// unused notes, for one unit, the profile's variables none of its objects
// references.
func (st *Stage) unused(s *manifest.Set) {
	if st.defs.empty() || s.Disabled[UnusedRule] {
		return
	}
	used := map[string]bool{}
	for _, o := range s.Objects {
		for _, r := range o.Refs {
			if !r.Escaped {
				used[r.Name] = true
			}
		}
	}
	var usedList, names []string // names: what the templates use and the chain defines
	for _, d := range st.defs.of(s.Tenant) {
		if used[d.name] {
			continue
		}
		if names == nil {
			usedList, names = sortedKeys(used), didYouMeanNames(used, st.defs)
		}
		if d.typoOnly && suggest.Closest(d.name, usedList) == "" {
			continue
		}
		n := filepos.Note{Pos: d.pos, Severity: filepos.Warning, Rule: UnusedRule,
			Msg: fmt.Sprintf("variable %s is defined but no template references it%s: its value reaches no manifest", d.name, suggest.Hint(d.name, names))}
		n.Tenants = filepos.AddSorted(nil, d.tenant)
		s.Notes = append(s.Notes, n)
	}
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
