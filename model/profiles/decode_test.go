package profiles

import (
	"strings"
	"testing"

	"github.com/krender/krender/model/filepos"
)

// decodeOne reads text as the one file of a profile, as the loader reads a
// profile that extends nothing, with every path it names allowed.
func decodeOne(path, text string) (*Profile, error) {
	doc, err := Decode(path, []byte(text))
	if err != nil {
		return nil, err
	}
	p := New()
	if err := p.Apply(path, doc, func(string, string, filepos.Pos) error { return nil }); err != nil {
		return nil, err
	}
	return p, p.CheckUnused()
}

func TestProfileErrors(t *testing.T) {
	cases := map[string]string{
		"vars: {1A: x}\n":                                  `p.yaml:1:8: variable name "1A" must match [A-Za-z_][A-Za-z0-9_]*`,
		"tenants:\n  Bad_Name: {}\n":                       `p.yaml:2:3: tenant name "Bad_Name" must be a DNS label`,
		"tenants:\n  t: {vars: [1]}\n":                     `p.yaml:2:13: vars must be a mapping`,
		"istioGuard: maybe\n":                              `p.yaml:1:13: expected true or false, found str "maybe"`,
		"istioGuard: maybe-not-today\n":                    `p.yaml:1:13: expected true or false, found str "maybe-n..."`,
		"istioGuard: [a]\n":                                `p.yaml:1:13: expected true or false, found seq`,
		"zones:\n  z: {hostAliases: {ip: 1}}\n":            `p.yaml:2:20: expected a list, found map`,
		"zones:\n  a: {}\n  z: {hostAlias: []}\n":          `p.yaml:3:7: unknown key "hostAlias" (did you mean hostAliases?)`,
		"inject:\n  - fragment: x.yaml\n":                  `p.yaml:2:5: inject entry needs a name`,
		"zones:\n  z: {hostAliases: [{ip: 1, host: x}]}\n": `p.yaml:2:29: unknown key "host"`,
		"namespce: x\n":                                    `p.yaml:1:1: unknown key "namespce" (did you mean namespace?)`,
		"zones:\n  z: {hostAlias: []}\n":                   `p.yaml:2:7: unknown key "hostAlias" (did you mean hostAliases?)`,
		"hash: {mode: off, refrences: []}\n":               `p.yaml:1:19: unknown key "refrences" (did you mean references?)`,
		"limits: {inputNode: 5}\n":                         `p.yaml:1:10: unknown limit "inputNode" (did you mean inputNodes?) (limits: fileBytes`,
		"substitution:\n  runtimeFields:\n    - {group: example.com, path: spec/x}\n": `p.yaml:3:7: runtime field needs a kind`,
		"substitution:\n  runtimeFields:\n    - kind: Foo\n":                          `p.yaml:3:7: runtime field needs a path (like spec/scripts/body)`,
		"substitution:\n  runtimeFields:\n    - {kind: Foo, path: spec//x}\n":         `p.yaml:3:25: path "spec//x" has an empty key`,
		"substitution:\n  runtimeFields:\n    - {kind: Foo, path: a, to: Secret}\n":   `p.yaml:3:28: unknown key "to"`,
		"substitution:\n  runtime: []\n":                                              `p.yaml:2:3: unknown key "runtime"`,
		"substitution:\n  runtimeFields: [spec/x]\n":                                  `p.yaml:2:19: expected a mapping, found str "spec/x"`,
		"- a\n":                             `p.yaml:1:1: a profile must be a mapping`,
		"substitution: {dialect: fluxcd}\n": `p.yaml:1:25: substitution.dialect "fluxcd" is none of envsubst, flux, clusterctl (did you mean flux?)`,
	}
	for body, want := range cases {
		_, err := decodeOne("p.yaml", body)
		if err == nil {
			t.Errorf("%q: no error, want %s", body, want)
			continue
		}
		got := err.Error()
		if i := strings.Index(got, "p.yaml:"); i >= 0 {
			got = got[i:]
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("%q:\n got  %s\n want %s", body, got, want)
		}
	}
}

func TestDialect(t *testing.T) {
	base := New()
	if got := base.Substitution.DialectOf(); got != DialectEnvsubst {
		t.Fatalf("default dialect %q, want %s", got, DialectEnvsubst)
	}
	p, err := decodeOne("p.yaml", "substitution: {dialect: clusterctl}\n")
	if err != nil {
		t.Fatal(err)
	}
	over := Substitution{}.Merge(p.Substitution).Merge(Substitution{Strict: p.Substitution.Strict})
	if got := over.DialectOf(); got != DialectClusterctl {
		t.Fatalf("a later file that sets no dialect keeps the earlier one: got %q", got)
	}
	if got := over.Merge(Substitution{Dialect: Str{Value: DialectFlux}}).DialectOf(); got != DialectFlux {
		t.Fatalf("a later file's dialect overrides: got %q", got)
	}
}
