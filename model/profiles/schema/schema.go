// Package schema writes the profile file format as a JSON Schema
// (krender schema), reflected from the types profiles.Decode reads into.
package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/invopop/jsonschema"
	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/profiles"
	"go.yaml.in/yaml/v4"
)

// Draft is the JSON Schema version Generate writes: yaml-language-server
// validates draft-07 reliably (its 2020-12 support was reverted).
const Draft = "http://json-schema.org/draft-07/schema#"

// Generate is the profile file format as a JSON Schema, reflected from the
// types the loader decodes into (profiles.File and what it holds), so the schema
// cannot drift from the loader. The loader's checks that a schema cannot
// express (extends cycles, zone references, hash paths, yq expressions) stay
// the loader's. checkRules are the rule ids check.disable accepts: package
// lint owns them, and importing it here would be a cycle.
func Generate(checkRules []string) ([]byte, error) {
	r := &jsonschema.Reflector{
		FieldNameTag:               "yaml",
		RequiredFromJSONSchemaTags: true, // the loader requires keys itself; the few it must have are set below
		DoNotReference:             true, // draft-07 has no $defs; the types are small enough to inline
		Anonymous:                  true,
		Mapper:                     schemaMapper,
		LookupComment: func(t reflect.Type, field string) string {
			if field == "" {
				return schemaDocs[t.Name()]
			}
			return schemaDocs[t.Name()+"."+field]
		},
	}
	reflectType := func(v any) *jsonschema.Schema {
		s := r.Reflect(v)
		s.Version = ""
		return s
	}
	root := reflectType(&profiles.File{})
	root.Version = Draft
	root.Title = "krender profile"
	root.Description = "One environment's deploy-time variables, tenants and stage settings (printed by krender schema)."

	tenant := reflectType(&profiles.TenantDoc{})
	tenant.Properties.Set("vars", varsSchema(schemaDocs["TenantDoc.Vars"]))
	zone := reflectType(&profiles.ZoneDoc{})
	props := root.Properties
	props.Set("vars", varsSchema(schemaDocs["File.Vars"]))
	props.Set("tenants", mapOf(schemaDocs["File.Tenants"], profiles.TenantNamePattern, nullable(tenant)))
	props.Set("inject", &jsonschema.Schema{Description: schemaDocs["File.Inject"], Type: "array", Items: reflectType(&profiles.Inject{})})
	props.Set("zones", mapOf(schemaDocs["File.Zones"], labelValue, nullable(zone)))
	props.Set("limits", limitsSchema())

	enums(root)
	rules := make([]any, len(checkRules))
	for i, id := range checkRules {
		rules[i] = id
	}
	schemaAt(root, "check", "disable", "[]").Enum = rules
	schemaAt(root, "inject", "[]").Required = []string{"name"}
	schemaAt(root, "hash", "references", "[]").Required = []string{"kind", "path", "to"}
	schemaAt(root, "zones", "*", "hostAliases", "[]").Required = []string{"ip", "hostnames"}
	one := uint64(1)
	schemaAt(root, "zones", "*", "hostAliases", "[]", "hostnames").MinItems = &one
	schemaAt(root, "zones", "*", "hostAliases", "[]", "hostnames", "[]").Pattern = dnsSubdomain
	// Patterns, not format: ipv4/ipv6: every validator checks a pattern,
	// while formats are optional (ajv's strict mode refuses them unknown).
	schemaAt(root, "zones", "*", "hostAliases", "[]", "ip").AnyOf = []*jsonschema.Schema{{Pattern: IPv4Pattern}, {Pattern: IPv6Pattern}}
	schemaAt(root, "zoneHosts", "label").Pattern = labelKey
	kv := schemaAt(root, "kubeVersion") // an unquoted 1.33 is a number to YAML; the loader reads its text
	// anyOf, not a union type: ajv's strict mode takes only [T, "null"].
	kv.Type, kv.AnyOf = "", []*jsonschema.Schema{{Type: "string", Pattern: kubeapi.VersionPattern}, {Type: "number"}}

	b, err := json.Marshal(root)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// Patterns the loader checks, as JSON Schema (ECMA-262) patterns.
const (
	labelValue   = `^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`
	dnsSubdomain = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	labelKey     = `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`
)

// IPv4Pattern and IPv6Pattern are RFC 3986's IPv4address and IPv6address
// (no zone index: Kubernetes takes none in hostAliases), as netip.ParseAddr
// reads them (TestIPPatterns).
var (
	dec8        = `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`
	ipv4        = dec8 + `(\.` + dec8 + `){3}`
	IPv4Pattern = "^" + ipv4 + "$"
	IPv6Pattern = func() string {
		h16 := `[0-9A-Fa-f]{1,4}`
		ls32 := "(" + h16 + ":" + h16 + "|" + ipv4 + ")"
		rep := func(n int) string { // n times h16 ":"
			if n == 0 {
				return ""
			}
			return "(" + h16 + ":){" + strconv.Itoa(n) + "}"
		}
		head := func(n int) string { // [ *n( h16 ":" ) h16 ]
			if n == 0 {
				return "(" + h16 + ")?"
			}
			return "((" + h16 + ":){0," + strconv.Itoa(n) + "}" + h16 + ")?"
		}
		alts := []string{rep(6) + ls32, "::" + rep(5) + ls32}
		for i := 0; i <= 4; i++ {
			alts = append(alts, head(i)+"::"+rep(4-i)+ls32)
		}
		alts = append(alts, head(5)+"::"+h16, head(6)+"::")
		out := "^("
		for i, a := range alts {
			if i > 0 {
				out += "|"
			}
			out += a
		}
		return out + ")$"
	}()
)

var (
	strType  = reflect.TypeOf(profiles.Str{})
	nodeType = reflect.TypeOf(yaml.Node{})
)

// schemaMapper describes Str, a scalar that remembers where it was written,
// as the plain string it is in the file. Sections the loader reads as raw
// nodes are filled in by Generate.
func schemaMapper(t reflect.Type) *jsonschema.Schema {
	switch t {
	case strType:
		return &jsonschema.Schema{Type: "string"}
	case nodeType:
		return &jsonschema.Schema{}
	}
	return nil
}

// limitsSchema: the loader's own keys, each a whole number from 1 to its
// maximum (docs/limits.md).
func limitsSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Description: schemaDocs["File.Limits"], Properties: jsonschema.NewProperties()}
	s.AdditionalProperties = jsonschema.FalseSchema
	mx, def := limits.Max(), limits.Defaults()
	for _, k := range limits.Keys() {
		maxV := json.Number(strconv.Itoa(*mx.Field(k)))
		s.Properties.Set(k, &jsonschema.Schema{Type: "integer", Minimum: json.Number("1"), Maximum: maxV,
			Description: "Raises or lowers limits." + k + " (default " + strconv.Itoa(*def.Field(k)) + "); see docs/limits.md."})
	}
	return s
}

// varsSchema: names as envsubst knows them, values any scalar (the loader
// takes numbers and booleans as their text; an empty value is "").
func varsSchema(doc string) *jsonschema.Schema {
	return mapOf(doc, profiles.VarNamePattern, &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "number"}, {Type: "boolean"}, {Type: "null"}}})
}

// mapOf is a mapping section: keys matching pattern, values of one schema;
// YAML's empty section (`tenants:`) is null, which the loader takes as empty.
func mapOf(doc, pattern string, values *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{
		Description:          doc,
		Extras:               map[string]any{"type": []string{"object", "null"}},
		PropertyNames:        &jsonschema.Schema{Pattern: pattern},
		AdditionalProperties: values,
	}
}

// nullable lets a mapping entry be empty (`tenant-a:`), as the loader does.
func nullable(s *jsonschema.Schema) *jsonschema.Schema {
	s.Type = ""
	s.Extras = map[string]any{"type": []string{"object", "null"}}
	return s
}

// schemaAt follows property names from s: "[]" is a list's items, "*" a map's values.
func schemaAt(s *jsonschema.Schema, path ...string) *jsonschema.Schema {
	for _, p := range path {
		switch p {
		case "[]":
			s = s.Items
		case "*":
			s = s.AdditionalProperties
		default:
			v, ok := s.Properties.Get(p)
			if !ok {
				panic("profiles schema: no property " + p)
			}
			s = v
		}
	}
	return s
}

// enums are the keys that take one of a few words.
func enums(root *jsonschema.Schema) {
	enum(root, []string{"inject", "[]", "mode"}, "merge", "append")
	enum(root, []string{"inject", "[]", "values", "*", "type"}, "string", "ip", "cidr", "int", "hostname", "dns-label", "path")
	enum(root, []string{"zoneHosts", "strategy"}, "split", "static", "off")
	enum(root, []string{"zoneHosts", "suffix"}, "last-token", "zone-letter", "zone")
	enum(root, []string{"hash", "mode"}, "suffix", "annotation", "off")
	enum(root, []string{"hash", "references", "[]", "to"}, "ConfigMap", "Secret")
	var dialects []any
	for _, d := range profiles.Dialects() {
		dialects = append(dialects, d)
	}
	enum(root, []string{"substitution", "dialect"}, dialects...)
}

func enum(root *jsonschema.Schema, path []string, values ...any) {
	schemaAt(root, path...).Enum = values
}

// schemaDocs are the descriptions editors show, keyed by Go type and field.
// TestSchemaDescribesEveryKey (cmd/internal/cli) requires one for every key.
var schemaDocs = map[string]string{
	"File.Limits":                "Limits on input size and work, so a hostile template cannot exhaust memory (docs/limits.md). Merged key by key across extends.",
	"File.Substitution":          "Substitution settings: fields of your own custom resources whose undefined $NAME is left for run time.",
	"Substitution.Strict":        "Read the strings of custom resources and annotation values as Kubernetes reads a name: an undefined ${NAME} there is an error, not a warning (Flux's strict mode).",
	"Substitution.Unused":        "Variables the extends chain defines that these templates need not reference, such as a base's names for other apps: krender does not report them as unused (unused-var).",
	"Substitution.Dialect":       "The tool the templates were written for, which decides what $$ and ${NAME<op>word} mean: envsubst (default; GNU envsubst exactly, every $$ stays), flux or clusterctl (drone/envsubst's rules: every $$ becomes $, only ${NAME} is a variable, with its default and string operators). docs/substitution.md#dialects.",
	"Substitution.RuntimeFields": "Fields (kind, optional group, path in kustomize's field-spec syntax) everything below which is a runtime place, like a container's args.",
	"RuntimeField.Kind":          "Kind of the object holding the field.",
	"RuntimeField.Group":         "API group of that kind; without it, any group matches.",
	"RuntimeField.Path":          "Path to the field, keys separated by /, lists crossed without saying so (spec/steps/run).",
	"File.Extends":               "A profile this one builds on, relative to this file. Its settings come first and this file's override them; chains are allowed, a cycle is an error.",
	"File.Namespace":             "Namespace of objects that name none (default \"default\"; --namespace overrides).",
	"File.KubeVersion":           "The Kubernetes release the manifests are for, like \"1.33\" (v1.33 and 1.33.4 work too; quote it): krender check reports APIs removed or not yet served in it as errors, deprecated ones as warnings. A later file overrides (docs/kubeversion.md).",
	"File.Vars":                  "Deploy-time variables: the only names krender substitutes (every other $NAME is left for run time). Later files and tenants override; --set, --set-env and --set-file override all.",
	"File.Tenants":               "Tenants, in render order: each renders every template once, with its vars layered over the profile's. Merged by name across extends.",
	"File.Inject":                "Shell fragments merged into selected workloads after substitution, in order. An entry replaces the entry of the same name from an extended profile.",
	"File.Zones":                 "Per-zone host entries, in zone order, written into pods' spec.hostAliases. A later file replaces a zone of the same name.",
	"File.ZoneHosts":             "How the zones' host entries reach pods. Merged key by key across extends.",
	"File.Hash":                  "Content-hash names for ConfigMaps and Secrets, so that a change rolls the pods that use them.",
	"File.Check":                 "Settings of krender check.",
	"File.IstioGuard":            "Where a container writes /etc/hosts in a pod with an istio sidecar: true (default) sets holdApplicationUntilProxyStarts; false makes such a pod an error.",
	"TenantDoc.Vars":             "This tenant's variables, layered over the profile's.",
	"ZoneDoc.HostAliases":        "Host entries of pods in this zone.",
	"Inject.Name":                "Names the entry in messages and across extends (required).",
	"Inject.Fragment":            "The fragment file, relative to this profile file. Its $ signs reach the container untouched.",
	"Inject.Where":               "A yq condition selecting objects, as in select(...); optional.",
	"Inject.Container":           "The container, by name, in any workload kind, that the fragment merges into.",
	"Inject.Into":                "A yq path the fragment merges into, instead of container; objects without it are left alone.",
	"Inject.Mode":                "merge (default): mappings key by key, named lists by name; append: yq's += exactly.",
	"Inject.Exclude":             "metadata.name values left alone.",
	"Inject.Delete":              "yq paths removed from each object injected into, before the merge.",
	"Inject.Values":              "Values of the fragment's __NAME__ placeholders, by NAME.",
	"InjectValue.Value":          "The value, checked against its type and, unless shellQuote, limited to characters a shell takes literally.",
	"InjectValue.Type":           "The value's type, checked before use (default string).",
	"InjectValue.ShellQuote":     "Insert the value single-quoted for the shell, for text with quotes, spaces or $.",
	"HostAlias.IP":               "An IPv4 or IPv6 address.",
	"HostAlias.Hostnames":        "Lower-case DNS names that resolve to ip in this zone.",
	"ZoneHosts.Strategy":         "split: one copy of each workload per zone; static: every pod gets zone's entries; off: pods are left alone.",
	"ZoneHosts.Zone":             "static: the zone whose entries every pod gets; split: the zone of workloads that cannot be split.",
	"ZoneHosts.Exclude":          "Workloads (metadata.name) left exactly as written.",
	"ZoneHosts.Suffix":           "How split copies are named: last-token (default, after the zone's last '-'), zone-letter or zone.",
	"ZoneHosts.Label":            "The pod label split copies select on (default topology.kubernetes.io/zone).",
	"Hash.Mode":                  "suffix (default): name-<hash>, references rewritten; annotation: names kept, pod templates get krender.io/config-hash; off.",
	"Hash.References":            "Fields of your own kinds that name a ConfigMap or Secret, so hashing rewrites them too.",
	"Hash.GC":                    "Leave old versions to krender gc: renamed objects get argocd.argoproj.io/sync-options: Prune=false and kustomize.toolkit.fluxcd.io/prune: disabled, so Argo CD and Flux do not delete them when their successor is applied (docs/integrations.md).",
	"HashReference.Kind":         "Kind of the object holding the field.",
	"HashReference.Group":        "API group of that kind; without it, any group matches.",
	"HashReference.Path":         "The field, in kustomize's field-spec syntax: keys separated by /, lists crossed unmarked.",
	"HashReference.To":           "What the field names: ConfigMap or Secret.",
	"Check.Disable":              "krender check rules not run for this profile.",
	"Check.CRDs":                 "Files or directories of CustomResourceDefinitions custom resources are checked against, besides those in the render (relative to this file; added along extends).",
	"Check.RequireCRDs":          "Make a custom resource with no CRD an error instead of a note.",
}
