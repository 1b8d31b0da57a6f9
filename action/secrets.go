package action

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/subst/shellformat"
)

// Secret is a deploy-time variable from one of CI's secrets.
type Secret struct {
	Name  string
	Value string
	From  string // the flag as given, without the value: "--set-env DB_PASSWORD"
}

// SecretPrefix starts the position file of a secret variable, which is how
// listings tell its value must not be shown.
const SecretPrefix = "secret "

// IsSecret reports whether v came from a secret.
func IsSecret(v profiles.Var) bool {
	return strings.HasPrefix(v.Pos.File, SecretPrefix)
}

// SecretValues are the values to keep out of text people read.
func SecretValues(secrets []Secret) []string {
	out := make([]string, 0, len(secrets))
	for _, s := range secrets {
		out = append(out, s.Value)
	}
	return out
}

// addSecrets layers the secrets over the --set variables. A name given
// twice is an error rather than a silent override: which of two flags
// wins is not something a CI file should leave to argument order.
func addSecrets(set profiles.Vars, secrets []Secret) (profiles.Vars, error) {
	from := map[string]string{}
	for _, v := range set {
		from[v.Name] = "--set " + v.Name
	}
	for _, s := range secrets {
		if !profiles.ValidVarName(s.Name) {
			return nil, fmt.Errorf("%s: %q is not a variable name: want [A-Za-z_][A-Za-z0-9_]*", s.From, s.Name)
		}
		if prev, dup := from[s.Name]; dup {
			return nil, fmt.Errorf("%s: %s is already set by %s", s.From, s.Name, prev)
		}
		from[s.Name] = s.From
		set = set.Set(profiles.Var{Name: s.Name, Value: s.Value, Pos: filepos.Pos{File: SecretPrefix + s.From}})
	}
	return set, nil
}

// checkOverrides refuses a --set, --set-env or --set-file that names
// nothing: a variable the profile chain neither defines nor declares and no
// template references is a misspelling (`--set IMAGE_TAGG=3`), and
// accepting it would deploy the old value without a word.
func checkOverrides(p *profiles.Profile, set profiles.Vars, tpls []*manifest.Object) error {
	known := map[string]bool{}
	for _, v := range p.Vars {
		known[v.Name] = true
	}
	for _, t := range p.Tenants {
		for _, v := range t.Vars {
			known[v.Name] = true
		}
	}
	var referenced map[string]bool
	for _, v := range set {
		if known[v.Name] {
			continue
		}
		if referenced == nil {
			referenced = templateNames(tpls)
		}
		if referenced[v.Name] {
			continue
		}
		flag := "--set " + v.Name
		if IsSecret(v) {
			flag = strings.TrimPrefix(v.Pos.File, SecretPrefix)
		}
		names := slices.Sorted(maps.Keys(known))
		for n := range referenced {
			if !known[n] {
				names = append(names, n)
			}
		}
		return fmt.Errorf("%s: %s is not a variable of the profile and no template references it%s", flag, v.Name, suggest.Hint(v.Name, names))
	}
	return nil
}

// templateNames are the names every template references, defaults included.
func templateNames(tpls []*manifest.Object) map[string]bool {
	names := map[string]bool{}
	for _, t := range tpls {
		manifest.WalkScalars(t.Node, func(n *yaml.Node, _ bool) {
			if strings.IndexByte(n.Value, '$') < 0 {
				return
			}
			for _, name := range shellformat.Names(n.Value) {
				names[name] = true
			}
		})
	}
	return names
}
