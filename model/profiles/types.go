package profiles

import (
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
)

// Profile is one environment's settings after `extends` has been resolved:
// base files first, later files overriding earlier ones.
type Profile struct {
	Files     []string // the extends chain, base first
	Namespace Str      // the render's default namespace ("" = "default")
	Vars      Vars     // deploy-time variables: the substitution whitelist
	// Defs is every variable as each file of the chain wrote it, in its
	// vars and its tenants' vars, base first: which file defines a name, so
	// that an unused one is reported where it is a mistake.
	Defs      Vars
	Tenants   []Tenant // in profile order
	Inject    []Inject // applied in order; merged by name across extends
	Zones     []Zone   // per-zone host data, in profile order
	ZoneHosts *ZoneHosts
	Hash      Hash
	Check     Check
	// Substitution holds the profile's additions to the runtime places.
	Substitution Substitution
	// IstioGuard adds holdApplicationUntilProxyStarts where a container
	// writes /etc/hosts in an istio pod; when false such a pod is an error.
	IstioGuard bool
	// Limits on templates, fragments and the render, merged key by key
	// across extends; zero fields are the defaults.
	Limits limits.Limits
	// KubeVersion is the Kubernetes release the manifests are for: check
	// judges removed, deprecated and not-yet-served APIs against it.
	KubeVersion KubeVersion
}

// Str is a scalar with the position it was written at.
type Str struct {
	Value string
	Pos   filepos.Pos
}

func (s *Str) UnmarshalYAML(n *yaml.Node) error {
	s.Pos = filepos.Pos{Line: n.Line, Col: n.Column}
	if n.Kind != yaml.ScalarNode {
		return &yaml.LoadError{Message: "expected a string, number or boolean", Mark: yaml.Mark{Line: n.Line, Column: n.Column}}
	}
	if n.Tag != "!!null" {
		s.Value = n.Value
	}
	return nil
}

// KubeVersion is the profile's kubeVersion as written, and the release it names.
type KubeVersion struct {
	Str
	Version kubeapi.Version // zero when no profile file sets one
}

// Var is one deploy-time variable.
type Var struct {
	Name  string
	Value string
	Pos   filepos.Pos // where the value was set (the last file that set it)
	// Declared: written with no value (`DB_PASSWORD: ~`), meaning this run
	// must give it (--set, --set-env, --set-file or a profile that extends
	// this one). Until one does, the name is not defined, and a reference to
	// it is an error wherever it is.
	Declared bool
}

// Vars is an ordered set of variables; later Set calls override.
type Vars []Var

func (vs Vars) Lookup(name string) (string, bool) {
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Name == name {
			return vs[i].Value, true
		}
	}
	return "", false
}

// Set overrides name in place (keeping its first position in the order) or appends it.
func (vs Vars) Set(v Var) Vars {
	for i := range vs {
		if vs[i].Name == v.Name {
			out := append(Vars(nil), vs...)
			out[i] = v
			return out
		}
	}
	return append(append(Vars(nil), vs...), v)
}

// Merge layers over on top of vs.
func (vs Vars) Merge(over Vars) Vars {
	out := vs
	for _, v := range over {
		out = out.Set(v)
	}
	return out
}

// Map is the variables that have a value, for lookups on hot paths.
func (vs Vars) Map() map[string]string {
	m := make(map[string]string, len(vs))
	for _, v := range vs {
		if !v.Declared {
			m[v.Name] = v.Value
		}
	}
	return m
}

// Missing are the variables declared without a value that nothing gave
// one, with where each was declared.
func (vs Vars) Missing() map[string]filepos.Pos {
	var m map[string]filepos.Pos
	for _, v := range vs {
		if v.Declared {
			if m == nil {
				m = map[string]filepos.Pos{}
			}
			m[v.Name] = v.Pos
		}
	}
	return m
}

// Names lists the variable names in order.
func (vs Vars) Names() []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

type Tenant struct {
	Name string
	Pos  filepos.Pos
	Vars Vars
}

// Inject is one fragment injection (see package inject).
type Inject struct {
	Name      Str                    `yaml:"name"`
	Fragment  Str                    `yaml:"fragment"` // relative to the profile file that names it
	Where     Str                    `yaml:"where"`
	Container Str                    `yaml:"container"`
	Into      Str                    `yaml:"into"`
	Mode      Str                    `yaml:"mode"` // merge (default) | append (yq's +=)
	Exclude   []Str                  `yaml:"exclude"`
	Delete    []Str                  `yaml:"delete"`
	Values    map[string]InjectValue `yaml:"values"`

	// File is the profile file the entry was written in; FragmentPath is
	// Fragment resolved against it.
	File         string      `yaml:"-"`
	FragmentPath string      `yaml:"-"`
	Pos          filepos.Pos `yaml:"-"`
}

type InjectValue struct {
	Value      Str  `yaml:"value"`
	Type       Str  `yaml:"type"`
	ShellQuote bool `yaml:"shellQuote"`

	Pos filepos.Pos `yaml:"-"` // of the entry, for errors about what it lacks
}

func (v *InjectValue) UnmarshalYAML(n *yaml.Node) error {
	type plain InjectValue
	return loadEntry(n, (*plain)(v), &v.Pos)
}

// loadEntry reads an entry of the profile with only its known fields, and
// notes where it stands, for errors about what it lacks.
func loadEntry(n *yaml.Node, into any, pos *filepos.Pos) error {
	if err := n.Load(into, yaml.WithKnownFields()); err != nil {
		return err
	}
	*pos = filepos.Pos{Line: n.Line, Col: n.Column}
	return nil
}

type Zone struct {
	Name        string
	Pos         filepos.Pos
	HostAliases []HostAlias
}

type HostAlias struct {
	IP        Str         `yaml:"ip"`
	Hostnames []Str       `yaml:"hostnames"`
	Pos       filepos.Pos `yaml:"-"` // the list item
}

// ZoneHosts is merged key by key across extends, so a base file can hold
// what every environment shares (exclude, say) and each environment its strategy.
type ZoneHosts struct {
	Strategy Str         `yaml:"strategy"` // split | static | off
	Zone     Str         `yaml:"zone"`
	Exclude  []Str       `yaml:"exclude"`
	Suffix   Str         `yaml:"suffix"`
	Label    Str         `yaml:"label"` // pod label split copies select on
	Pos      filepos.Pos `yaml:"-"`     // the zoneHosts key of the last file that set it
}

type Hash struct {
	Mode       Str             `yaml:"mode"` // suffix (default) | annotation | off
	References []HashReference `yaml:"references"`
	// GC leaves old versions to `krender gc`: renamed objects carry the
	// annotations that stop Argo CD and Flux from pruning them as soon as
	// their successor is applied. Nil: not set in any file (off).
	GC *bool `yaml:"gc"`
}

type HashReference struct {
	Kind  Str `yaml:"kind"`
	Group Str `yaml:"group"`
	Path  Str `yaml:"path"`
	To    Str `yaml:"to"`
}

// Substitution extends the table of runtime places (fields whose `$`
// another program reads at run time) with the user's own kinds.
type Substitution struct {
	RuntimeFields []RuntimeField `yaml:"runtimeFields"`
	// Strict reads every string whose reader krender cannot tell (custom
	// resources' fields, annotation values) as Kubernetes reads a name: an
	// undefined ${NAME} there is an error. Flux's strict mode, for teams
	// whose custom resources carry deploy-time placeholders.
	Strict *bool `yaml:"strict"`
	// Unused lists variables the chain defines that the templates need not
	// reference (a base's names for other apps): no unused-var finding.
	// Lists add up across extends.
	Unused []Str `yaml:"unused"`
	// Dialect is the tool the templates were written for, which decides
	// what `$$` and `${NAME<op>…}` mean: DialectEnvsubst (the default),
	// DialectFlux or DialectClusterctl. A later file overrides.
	Dialect Str `yaml:"dialect"`
}

// The substitution dialects (docs/substitution.md#dialects).
const (
	// DialectEnvsubst is GNU `envsubst 'SHELL-FORMAT'`: `$$` is nothing
	// special, every byte of it stays.
	DialectEnvsubst = "envsubst"
	// DialectFlux is Flux's post-build substitution (fluxcd/pkg/envsubst):
	// only `${…}` is a variable, with its operators, and every `$$` is `$`.
	DialectFlux = "flux"
	// DialectClusterctl is `clusterctl generate` (drone/envsubst), read as
	// Flux reads it.
	DialectClusterctl = "clusterctl"
)

// Dialects are the values substitution.dialect takes, the default first.
func Dialects() []string { return []string{DialectEnvsubst, DialectFlux, DialectClusterctl} }

// DialectOf is the profile's dialect, DialectEnvsubst when none is set.
func (s Substitution) DialectOf() string {
	if s.Dialect.Value == "" {
		return DialectEnvsubst
	}
	return s.Dialect.Value
}

// RuntimeField is one field in kustomize's field-spec syntax, as in
// hash.references: everything below it is left for run time.
type RuntimeField struct {
	Kind  Str `yaml:"kind"`
	Group Str `yaml:"group"` // optional; without it, any group matches
	Path  Str `yaml:"path"`

	Keys []string    `yaml:"-"` // Path split into keys
	Pos  filepos.Pos `yaml:"-"` // of the entry, for errors about what it lacks
}

func (f *RuntimeField) UnmarshalYAML(n *yaml.Node) error {
	type plain RuntimeField
	return loadEntry(n, (*plain)(f), &f.Pos)
}

// Merge adds a later file's runtime fields to an earlier one's; an entry
// for the same kind, group and path replaces the earlier.
func (s Substitution) Merge(over Substitution) Substitution {
	strict := s.Strict
	if over.Strict != nil {
		strict = over.Strict
	}
	dialect := s.Dialect
	if over.Dialect.Value != "" {
		dialect = over.Dialect
	}
	return Substitution{Strict: strict, Dialect: dialect, Unused: append(slices.Clip(s.Unused), over.Unused...), RuntimeFields: mergeFieldSpecs(s.RuntimeFields, over.RuntimeFields,
		func(f RuntimeField) [3]string { return [3]string{f.Kind.Value, f.Group.Value, f.Path.Value} })}
}

type Check struct {
	Disable []Str `yaml:"disable"`
	// CRDs are files or directories of CustomResourceDefinitions that custom
	// resources are checked against, besides those in the render; relative
	// to the profile file that names them, and added along extends.
	CRDs []Str `yaml:"crds"`
	// RequireCRDs makes a custom resource with no CRD an error, not a note.
	RequireCRDs *bool `yaml:"requireCRDs"`
}

// merge lays over on c: a later file's disable list replaces the earlier
// one, its CRDs add to them.
func (c Check) merge(over Check) Check {
	if over.Disable != nil {
		c.Disable = over.Disable
	}
	c.CRDs = append(slices.Clip(c.CRDs), over.CRDs...)
	if over.RequireCRDs != nil {
		c.RequireCRDs = over.RequireCRDs
	}
	return c
}

// ValidVarName reports whether name can be a deploy-time variable: exactly the
// names GNU envsubst recognises.
func ValidVarName(name string) bool { return varName.MatchString(name) }
