package subst

import (
	"fmt"
	"maps"
	"sort"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/profiles"
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
	if len(st.defs) == 0 || s.Disabled[UnusedRule] {
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
	for _, d := range st.defs {
		if d.tenant != "" && d.tenant != s.Tenant || used[d.name] {
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

func didYouMeanNames(used map[string]bool, defs []unusedVar) []string {
	all := maps.Clone(used)
	for _, d := range defs {
		all[d.name] = true
	}
	return sortedKeys(all)
}
