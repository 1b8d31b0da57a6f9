package subst

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/manifest"
)

// Readers: who reads a string of the rendered manifest decides what an
// undefined `$NAME` in it means. krender cannot know every operator in the
// world, so it is strict only where it knows the reader reads the text as
// written, and elsewhere decides from evidence (docs/substitution.md).
const (
	// Nobody reads a CustomResourceDefinition's schema: descriptions,
	// patterns and examples are documentation.
	Nobody = "nobody"
	// Kubernetes reads names, labels and built-in kinds' fields literally:
	// an undefined reference there is a bug.
	Kubernetes = "Kubernetes"
	// Program: a program expands the string at run time (a runtime place,
	// or evidence that the program owns the name).
	Program = "program"
	// Unknown: a custom resource's string or an annotation value, read by
	// an operator krender does not know.
	Unknown = "unknown"
)

// path is where a scalar sits in its object: mapping keys, and "[i]" for
// list items.
type path []string

func (p path) String() string {
	var b strings.Builder
	for i, k := range p {
		switch {
		case strings.HasPrefix(k, "["):
			b.WriteString(k)
		case i > 0 && strings.ContainsAny(k, ".[]/"):
			b.WriteString("[" + k + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		}
	}
	return b.String()
}

// walkPaths visits every scalar below n with its path; a key has the path
// of its value. Aliases are not followed: an aliased scalar is visited
// where its anchor is. p's backing array is reused from one scalar to the
// next, so that a walk allocates no path per node: f must not keep p.
func walkPaths(n *yaml.Node, p path, f func(s *yaml.Node, key bool, p path)) {
	switch n.Kind {
	case yaml.ScalarNode:
		f(n, false, p)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			kp := append(p, k.Value)
			if k.Kind == yaml.ScalarNode {
				f(k, true, kp)
			}
			walkPaths(v, kp, f)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walkPaths(c, append(p, indexKey(i)), f)
		}
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkPaths(c, p, f)
		}
	}
}

// indexKeys are the path elements of the first list items, made once.
var indexKeys = func() (keys [64]string) {
	for i := range keys {
		keys[i] = "[" + strconv.Itoa(i) + "]"
	}
	return keys
}()

func indexKey(i int) string {
	if i < len(indexKeys) {
		return indexKeys[i]
	}
	return "[" + strconv.Itoa(i) + "]"
}

// objectReader is who reads the strings of one object that no runtime place
// covers.
type objectReader struct {
	builtin bool
	crd     bool       // the object is a CustomResourceDefinition
	schema  *yaml.Node // a custom resource's openAPIV3Schema, when its CRD is known
	strict  bool
}

func newObjectReader(o *manifest.Object, crds crdIndex, strict bool) objectReader {
	group, av := o.Group(), o.APIVersion()
	// The core group's only apiVersion is v1; `fluentbit.fluent.io` alone
	// is a custom group that forgot its version, not the core group.
	core := av == "v1"
	builtin := core || strings.Contains(av, "/") && kubeapi.BuiltinGroup(group)
	r := objectReader{builtin: builtin, strict: strict}
	r.crd = r.builtin && group == "apiextensions.k8s.io" && o.Kind() == "CustomResourceDefinition"
	if !r.builtin {
		r.schema = crds.schema(o.APIVersion(), o.Kind())
	}
	return r
}

// of names the reader of the string at p (runtime places are decided
// before, by shape and table).
func (r objectReader) of(p path, key bool) string {
	switch {
	case r.crd && isSchemaPath(p):
		return Nobody
	case !key && annotationValue(p):
		return r.loose()
	case len(p) == 1 && (p[0] == "apiVersion" || p[0] == "kind"):
		return Kubernetes
	case len(p) > 0 && p[0] == "metadata":
		return Kubernetes
	case r.builtin:
		return Kubernetes
	case r.schema != nil && typedLiteral(r.schema, p):
		return Kubernetes
	}
	return r.loose()
}

// loose is the reader of a string whose reader krender cannot tell.
func (r objectReader) loose() string {
	if r.strict {
		return Kubernetes
	}
	return Unknown
}

// annotationValue: the value of metadata.annotations[k], the object's own
// or a pod template's.
func annotationValue(p path) bool {
	n := len(p)
	return n >= 3 && p[n-2] == "annotations" && p[n-3] == "metadata"
}

// isSchemaPath: spec.versions[i].schema (v1) or spec.validation (v1beta1).
func isSchemaPath(p path) bool {
	if len(p) < 2 || p[0] != "spec" {
		return false
	}
	return p[1] == "validation" || (p[1] == "versions" && len(p) >= 4 && p[3] == "schema")
}

// crdIndex finds a custom resource's schema among the CRDs of the render:
// "group/version Kind" to its openAPIV3Schema.
type crdIndex map[string]*yaml.Node

// indexCRDs reads the CRDs among objs. Their schemas are documentation to
// substitution (read by nobody), so the parsed templates serve every unit.
func indexCRDs(objs []*manifest.Object) crdIndex {
	idx := crdIndex{}
	for _, o := range objs {
		group, kind, ok := o.DefinedKind()
		if !ok {
			continue
		}
		spec := manifest.Value(o.Node, "spec")
		vs := manifest.Value(spec, "versions")
		if vs == nil || vs.Kind != yaml.SequenceNode {
			continue
		}
		for _, v := range vs.Content {
			if s := manifest.Lookup(v, "schema", "openAPIV3Schema"); s != nil {
				idx[group+"/"+manifest.ScalarAt(v, "name")+" "+kind] = s
			}
		}
	}
	return idx
}

func (idx crdIndex) schema(apiVersion, kind string) *yaml.Node {
	if len(idx) == 0 {
		return nil
	}
	return idx[apiVersion+" "+kind]
}

// typedLiteral reports whether the CRD schema types the field at p as an
// integer, a number or a boolean: the API server reads such a value, so a
// placeholder left in it can never be right.
func typedLiteral(s *yaml.Node, p path) bool {
	for _, k := range p {
		switch {
		case strings.HasPrefix(k, "["):
			s = manifest.Value(s, "items")
		default:
			if props := manifest.Value(s, "properties"); props != nil && manifest.Value(props, k) != nil {
				s = manifest.Value(props, k)
			} else if ap := manifest.Value(s, "additionalProperties"); ap != nil && ap.Kind == yaml.MappingNode {
				s = ap
			} else {
				return false
			}
		}
		if s == nil || s.Kind != yaml.MappingNode {
			return false
		}
	}
	if manifest.ScalarAt(s, "x-kubernetes-int-or-string") == "true" {
		return false
	}
	switch manifest.ScalarAt(s, "type") {
	case "integer", "number", "boolean":
		return true
	}
	return false
}
