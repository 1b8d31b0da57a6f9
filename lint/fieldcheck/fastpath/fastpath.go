// Package fastpath tells, without linking k8s.io/api, whether strict
// decoding of an object into its kind's Go type surely finds nothing.
//
// Strict decoding through JSON (fieldcheck's) costs a copy, a YAML
// encoding, a YAML 1.1 parse and a JSON decode per object, and nearly
// every object it sees is clean. The fast path walks the node tree against
// kubeapi's table of the Go types instead and answers only "the JSON path
// would find nothing": whatever it is not sure of (an unknown or duplicate
// field, a value of the wrong type, a YAML 1.1 reading such as `yes` or
// `0777`, an alias, a tag, a type with its own decoder it does not model)
// it leaves to the JSON path, which then writes the findings. So findings
// come from one place only, and the fast path can be wrong only by saying
// "clean" where the JSON path finds something: fieldcheck's
// TestFastPathAgrees and FuzzFastPath look for that.
package fastpath

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/lint/fieldcheck/internal/yaml11"
	"github.com/krender/krender/model/manifest"
)

// Object: judged is false where fieldcheck judges no such kind (custom
// resources, other versions); clean is true only where strict decoding of
// o into its kind's Go type surely finds nothing.
func Object(o *manifest.Object) (judged, clean bool) {
	t, ok := kubeapi.KindType(o.APIVersion(), o.Kind())
	if !ok {
		return false, false
	}
	return true, cleanNode(o.Node, t, at{})
}

// PodTemplate: the pod template mapping at path in o surely decodes
// cleanly into a core/v1 PodTemplateSpec, printed as o prints it (in a
// flow collection, when one holds it).
func PodTemplate(o *manifest.Object, path []string) bool {
	n, flow := o.Node, false
	for _, key := range path {
		flow = yaml11.Flow(n, flow)
		if n = manifest.Lookup(n, key); n == nil {
			return false
		}
	}
	return cleanNode(n, kubeapi.PodTemplateSpecType(), at{flow: flow})
}

// at is where a node is: how deep, and whether inside a flow collection,
// where the printer writes some scalars otherwise (yaml11.IsNull).
type at struct {
	depth int
	flow  bool
}

// in is where the children of n are.
func (c at) in(n *yaml.Node) at { return at{c.depth + 1, yaml11.Flow(n, c.flow)} }

// cleanNode reports whether n surely decodes into a t with no error and no
// strict decoding error.
func cleanNode(n *yaml.Node, t kubeapi.Type, c at) bool {
	if c.depth > yaml11.MaxDepth || !yaml11.Plain(n) {
		return false
	}
	if yaml11.IsNull(n, c.flow) {
		return nullOK(t)
	}
	for t.Kind() == kubeapi.PointerType {
		t = t.Elem()
	}
	switch t.Kind() {
	case kubeapi.QuantityType:
		return quantity(n)
	case kubeapi.IntOrStringType:
		return yaml11.IsString(n) || yaml11.FitsInt(n, 32)
	case kubeapi.RawExtensionType, kubeapi.FieldsV1Type, kubeapi.AnyType:
		return cleanAny(n, c)
	}
	return cleanKind(n, t, c)
}

func cleanKind(n *yaml.Node, t kubeapi.Type, c at) bool {
	switch t.Kind() {
	case kubeapi.StructType:
		return n.Kind == yaml.MappingNode && cleanStruct(n, t, c.in(n))
	case kubeapi.MapType:
		return n.Kind == yaml.MappingNode && t.TextKeys() &&
			cleanPairs(n, func(v *yaml.Node) bool { return cleanNode(v, t.Elem(), c.in(n)) })
	case kubeapi.SliceType:
		return n.Kind == yaml.SequenceNode && cleanItems(n, func(v *yaml.Node) bool { return cleanNode(v, t.Elem(), c.in(n)) })
	case kubeapi.BytesType:
		return base64Text(n)
	}
	return cleanScalar(n, t) // or a type with a decoder of its own, which the fast path does not model
}

// cleanScalar: n is a JSON value that decodes into t, a string, bool or
// number kind.
func cleanScalar(n *yaml.Node, t kubeapi.Type) bool {
	switch t.Kind() {
	case kubeapi.StringType:
		return yaml11.IsString(n)
	case kubeapi.BoolType:
		return yaml11.IsBool(n)
	case kubeapi.IntType:
		return yaml11.FitsInt(n, t.Bits())
	case kubeapi.UintType:
		return yaml11.FitsInt(n, t.Bits()) && !strings.HasPrefix(n.Value, "-")
	case kubeapi.FloatType:
		return yaml11.IsInt(n) || yaml11.IsFloat(n)
	}
	return false
}

// nullOK: JSON null leaves pointers, maps, slices, interfaces and plain
// values zero; a type with its own decoder sees the null, and of those
// only the ones known to accept it pass.
func nullOK(t kubeapi.Type) bool {
	return t.Kind() != kubeapi.OwnDecoderType && t.Kind() != kubeapi.InvalidType
}

// cleanStruct: c is where n's fields are.
func cleanStruct(n *yaml.Node, t kubeapi.Type, c at) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, ok := yaml11.KeyText(n.Content[i])
		if !ok {
			return false
		}
		ft, ok := t.Field(name)
		switch {
		case duplicate(n, i, name):
			return false
		case !ok && directive(name):
			if !cleanAny(n.Content[i+1], c) {
				return false
			}
		case !ok:
			return false // unknown or ambiguous: the JSON path says which
		case !cleanNode(n.Content[i+1], ft, c):
			return false
		}
	}
	return len(n.Content)%2 == 0
}

// directive: a strategic-merge patch's directive ($patch, $retainKeys, ...)
// that the JSON path drops from its unknown fields, read back from the
// decoder's message: so only names that message carries unchanged.
func directive(name string) bool {
	return manifest.StrategicMergeDirective(name) && !strings.ContainsAny(name, ".[]\"\\")
}

// cleanPairs: mapping n has string keys, none twice, and values that
// pass ok.
func cleanPairs(n *yaml.Node, ok func(*yaml.Node) bool) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, isText := yaml11.KeyText(n.Content[i])
		if !isText || duplicate(n, i, name) || !ok(n.Content[i+1]) {
			return false
		}
	}
	return len(n.Content)%2 == 0
}

func cleanItems(n *yaml.Node, ok func(*yaml.Node) bool) bool {
	for _, item := range n.Content {
		if !ok(item) {
			return false
		}
	}
	return true
}

// cleanAny: n converts to JSON without surprises (what a RawExtension or
// an interface takes as it comes).
func cleanAny(n *yaml.Node, c at) bool {
	if c.depth > yaml11.MaxDepth || !yaml11.Plain(n) {
		return false
	}
	next := func(v *yaml.Node) bool { return cleanAny(v, c.in(n)) }
	switch n.Kind {
	case yaml.MappingNode:
		return cleanPairs(n, next)
	case yaml.SequenceNode:
		return cleanItems(n, next)
	case yaml.ScalarNode:
		return yaml11.IsNull(n, c.flow) || yaml11.IsString(n) || yaml11.IsBool(n) || yaml11.IsInt(n) || yaml11.IsFloat(n)
	}
	return false
}

// duplicate reports whether the key at i of mapping n repeats an earlier one.
func duplicate(n *yaml.Node, i int, name string) bool {
	for j := 0; j < i; j += 2 {
		if prev, _ := yaml11.KeyText(n.Content[j]); prev == name {
			return true
		}
	}
	return false
}

// quantity: n decodes as a resource.Quantity (a string, an integer or a
// fraction its parser takes).
func quantity(n *yaml.Node) bool {
	var text string
	switch {
	case yaml11.IsInt(n):
		text = n.Value
	case yaml11.IsFloat(n):
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return false
		}
		js, err := json.Marshal(f)
		if err != nil {
			return false
		}
		text = string(js)
	case yaml11.ExactString(n):
		text = n.Value
	default:
		return false
	}
	_, err := resource.ParseQuantity(strings.TrimSpace(text))
	return err == nil
}

// base64Text: a []byte, which JSON carries as standard base64.
func base64Text(n *yaml.Node) bool {
	if !yaml11.ExactString(n) {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(n.Value)
	return err == nil
}
