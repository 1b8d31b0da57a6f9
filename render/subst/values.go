package subst

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
)

// A value Kubernetes validates, made by substitution, is held to the API
// server's rule as names are (invalid-name): `tier: ${X}` with `X:
// Bad_Secret!` renders, and the apply fails. The checks are
// k8s.io/apimachinery's, the API server's own.

// valueRule is how the API server validates one field's value or key.
type valueRule struct {
	what  string
	check func(string) []string
}

var (
	labelKey   = valueRule{"label key (a qualified name)", validation.IsQualifiedName}
	labelValue = valueRule{"label value", validation.IsValidLabelValue}
	// ValidateAnnotations checks the key lower-cased.
	annotationKey = valueRule{"annotation key (a qualified name)", func(k string) []string { return validation.IsQualifiedName(strings.ToLower(k)) }}
	dnsLabel      = valueRule{"DNS-1123 label", validation.IsDNS1123Label}
	portName      = valueRule{"port name (an IANA service name)", validation.IsValidPortName}
	// The API server has taken every printable name but `=` since
	// Kubernetes 1.34 (RelaxedEnvironmentVariableValidation).
	envName = valueRule{"environment variable name", validation.IsRelaxedEnvVarName}
)

// valueRuleAt is the rule for the scalar at p (a key when key is set) in
// an object of kind; builtin: the object is of a built-in kind, whose
// every field the API server validates (a custom resource's only in its
// own metadata).
func valueRuleAt(p path, key bool, kind string, builtin bool) (valueRule, bool) {
	if r, ok := metadataRule(p, key, builtin); ok || !builtin {
		return r, ok
	}
	if r, ok := selectorRule(p, key, kind); ok || key {
		return r, ok
	}
	if r, ok := dnsField(p, kind); ok {
		return r, ok
	}
	return itemName(p, kind)
}

// from is p's element i places from its end ("" before its start).
func (p path) from(i int) string {
	if i > len(p) {
		return ""
	}
	return p[len(p)-i]
}

// metadataRule: label keys and values and annotation keys of an object's
// metadata, or of metadata embedded in a built-in kind (pod templates).
func metadataRule(p path, key, builtin bool) (valueRule, bool) {
	if p.from(3) != "metadata" || len(p) != 3 && !builtin {
		return valueRule{}, false
	}
	switch {
	case p.from(2) == "labels" && key:
		return labelKey, true
	case p.from(2) == "labels":
		return labelValue, true
	case p.from(2) == "annotations" && key:
		return annotationKey, true
	}
	return valueRule{}, false
}

// selectorRule: label selectors' keys and values.
func selectorRule(p path, key bool, kind string) (valueRule, bool) {
	serviceSelector := (kind == "Service" || kind == "ReplicationController") && len(p) == 3 && p[0] == "spec" && p[1] == "selector"
	switch {
	case (p.from(2) == "matchLabels" || serviceSelector) && key:
		return labelKey, true
	case p.from(2) == "matchLabels" || serviceSelector:
		return labelValue, true
	case key:
	case p.from(3) == "matchExpressions" && p.from(1) == "key":
		return labelKey, true
	case p.from(4) == "matchExpressions" && p.from(2) == "values":
		return labelValue, true
	}
	return valueRule{}, false
}

// dnsField: a StatefulSet's serviceName, a pod's hostname and subdomain.
func dnsField(p path, kind string) (valueRule, bool) {
	switch p.from(1) {
	case "serviceName":
		return dnsLabel, kind == "StatefulSet" && len(p) == 2
	case "hostname", "subdomain":
		return dnsLabel, p.from(2) == "spec"
	}
	return valueRule{}, false
}

// itemName: the name of a container, a volume, an env entry or a port.
func itemName(p path, kind string) (valueRule, bool) {
	if p.from(1) != "name" {
		return valueRule{}, false
	}
	switch list := p.from(3); {
	case list == "containers" || list == "initContainers" || list == "ephemeralContainers" || list == "volumes":
		return dnsLabel, true
	case list == "env":
		return envName, true
	case list == "ports" && kind == "Service":
		return dnsLabel, true
	case list == "ports" && strings.HasSuffix(p.from(5), "ontainers"):
		return portName, true
	}
	return valueRule{}, false
}

// invalidValues checks the values and keys substitution made in o that
// the API server validates; one written as it stands is the API server's
// to judge.
func invalidValues(o *manifest.Object) []filepos.Note {
	held := map[*yaml.Node]bool{}
	for _, r := range o.Refs {
		held[r.Node] = true
	}
	kind, builtin := o.Kind(), o.APIVersion() == "v1" || kubeapi.BuiltinGroup(o.Group())
	var out []filepos.Note
	walkPaths(o.Node, make(path, 0, 16), func(n *yaml.Node, key bool, p path) {
		if !held[n] {
			return
		}
		if len(p) == 0 || isMetadataName(p) {
			return
		}
		rule, ok := valueRuleAt(p, key, kind, builtin)
		if !ok {
			return
		}
		from := substitutedIn(o.Refs, n)
		msgs := rule.check(n.Value)
		if from == "" || len(msgs) == 0 {
			return
		}
		what := "value"
		if key {
			what = "key"
		}
		out = append(out, filepos.Note{Pos: o.Pos(n), Severity: filepos.Err, Rule: ruleid.InvalidName,
			Msg: fmt.Sprintf("%s %s %q, made from %s, is not a valid %s: %s", p, what, n.Value, from, rule.what, strings.Join(msgs, "; "))})
	})
	return out
}

// isMetadataName: metadata.name and metadata.namespace, which invalidNames checks.
func isMetadataName(p path) bool {
	return len(p) == 2 && p[0] == "metadata" && (p[1] == "name" || p[1] == "namespace")
}
