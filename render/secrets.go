package render

import (
	"fmt"
	"strings"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/profiles"
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
