// Package fieldcheck checks built-in Kubernetes objects against their Go types
// offline, so a misspelled field (`hostAliases[0].hostname`) is caught before
// `kubectl apply --validate=strict` would reject it.
package fieldcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/kube/kubescheme"
	"github.com/krender/krender/lint/fieldcheck/fastpath"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
)

// checked are the group versions whose kinds Check judges and inject reads
// merge keys from: those krender's users write. Other versions of built-in
// groups (apps/v1beta1) pass, as custom resources do.
var checked = func() map[schema.GroupVersion]bool {
	m := map[schema.GroupVersion]bool{}
	for _, gv := range []string{
		"v1", "apps/v1", "batch/v1", "autoscaling/v1", "autoscaling/v2", "networking.k8s.io/v1", "policy/v1",
		"rbac.authorization.k8s.io/v1", "storage.k8s.io/v1", "scheduling.k8s.io/v1", "coordination.k8s.io/v1",
		"discovery.k8s.io/v1", "node.k8s.io/v1",
	} {
		m[schema.FromAPIVersionAndKind(gv, "").GroupVersion()] = true
	}
	return m
}()

// Type is the Go type of a kind Check judges.
func Type(gvk schema.GroupVersionKind) (reflect.Type, bool) {
	if !checked[gvk.GroupVersion()] {
		return nil, false
	}
	typ, ok := kubescheme.Scheme().AllKnownTypes()[gvk] // New would allocate an object
	return typ, ok
}

// Problem is a field the API server would reject, at the node that holds
// it: verdict's, so that check reads it without linking this package.
type Problem = verdict.Problem

// Known reports whether o's kind is built in, so Check can judge it.
func Known(o *manifest.Object) bool {
	gv, err := schema.ParseGroupVersion(o.APIVersion())
	if err != nil {
		return false
	}
	_, ok := Type(gv.WithKind(o.Kind()))
	return ok
}

var unknownField = regexp.MustCompile(`^unknown field "([^"]+)"$`)

// Check decodes o strictly into its Go type. Objects of kinds it does not
// know (custom resources) pass.
func Check(o *manifest.Object) ([]Problem, error) {
	gv, err := schema.ParseGroupVersion(o.APIVersion())
	if err != nil {
		return nil, nil
	}
	typ, ok := Type(gv.WithKind(o.Kind()))
	if !ok {
		return nil, nil
	}
	if err := o.CheckNodes(); err != nil {
		return nil, err // sigs.k8s.io/yaml expands aliases
	}
	_, clean := fastpath.Object(o)
	return decodeStrict(clean, o.Node, func() any { return reflect.New(typ).Interface() }, "", o.APIVersion()+" "+o.Kind()), nil
}

// CheckPodTemplate decodes the pod template at path in o strictly into a
// PodTemplateSpec: what a controller does with the template of a custom
// workload (an Argo Rollout) whose CRD leaves it unchecked, dropping
// what it does not know.
func CheckPodTemplate(o *manifest.Object, path []string) ([]Problem, error) {
	n := manifest.Lookup(o.Node, path...)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	if err := o.CheckNodes(); err != nil {
		return nil, err
	}
	return decodeStrict(fastpath.PodTemplate(o, path), printedIn(o.Node, path, n), func() any { return &corev1.PodTemplateSpec{} },
		strings.Join(path, ".")+".", "the PodTemplateSpec of "+o.APIVersion()+" "+o.Kind()), nil
}

// printedIn is the node n at path in root as root prints it: in flow
// style where a flow collection holds it, which changes how some scalars
// print (an empty null as an empty string). Problems still name n's nodes.
func printedIn(root *yaml.Node, path []string, n *yaml.Node) *yaml.Node {
	for _, key := range path {
		if root.Style&yaml.FlowStyle != 0 {
			flow := *n
			flow.Style |= yaml.FlowStyle
			return &flow
		}
		root = manifest.Lookup(root, key)
	}
	return n
}

// decodeStrict decodes root into a new obj as the API server's strict
// decoding does. Field paths in messages start with prefix; what names the
// type. A tree the fast path finds clean skips the JSON round trip (and
// the new value).
func decodeStrict(clean bool, root *yaml.Node, obj func() any, prefix, what string) []Problem {
	if clean {
		return nil
	}
	return decodeJSON(root, obj(), prefix, what)
}

// decodeJSON is decodeStrict through JSON, as kubectl sends the object:
// the only source of findings.
func decodeJSON(root *yaml.Node, obj any, prefix, what string) []Problem {
	js, p := JSON(&manifest.Object{Node: root})
	if p != nil {
		return []Problem{*p}
	}
	strict, err := kjson.UnmarshalStrict(js, obj)
	var out []Problem
	if err != nil {
		node := root
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			node = typed(root, strings.Split(te.Field, "."), te.Value)
			if node == nil {
				node = At(root, te.Field)
			}
			err = fmt.Errorf("%s%s must be %s, not %s", prefix, te.Field, te.Type, te.Value)
		}
		out = append(out, Problem{Node: node, Msg: fmt.Sprintf("%s: %s", what, strings.TrimPrefix(err.Error(), "json: "))})
	}
	for _, s := range strict {
		m := unknownField.FindStringSubmatch(s.Error())
		if m == nil {
			out = append(out, Problem{Node: root, Msg: s.Error()})
			continue
		}
		steps := Steps(m[1])
		if last := steps[len(steps)-1]; !last.Index && manifest.StrategicMergeDirective(last.Name) {
			continue // a patch's instruction to the merge, not a field
		}
		hint := ""
		if last := steps[len(steps)-1]; !last.Index {
			hint = suggest.Hint(last.Name, GoFieldNames(reflect.TypeOf(obj), steps[:len(steps)-1]))
		}
		out = append(out, Problem{Node: At(root, m[1]), Msg: fmt.Sprintf("unknown field %q: %s has no such field%s", prefix+m[1], what, hint)})
	}
	return out
}

// JSON is o as kubectl sends it to the API server: YAML read the way
// sigs.k8s.io/yaml reads it. A problem means the API server never sees it.
// Check the object's nodes first (o.CheckNodes): aliases are expanded.
func JSON(o *manifest.Object) ([]byte, *Problem) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	// The encoder drops inferable tags and sets quoting in place: encode a
	// copy, without comments. They hold no data, and go-yaml writes the
	// root's foot comment after a blank line, which a last string in `|+`
	// style then reads as its own ("a\n\n" comes back "a\n\n\n"); krender's
	// printer writes that comment apart (manifest.Encoder).
	c := (&manifest.Object{Node: o.Node}).Clone().Node
	dropComments(c)
	if err := enc.Encode(c); err != nil {
		return nil, &Problem{Node: o.Node, Msg: err.Error()}
	}
	js, err := k8syaml.YAMLToJSON(buf.Bytes())
	if err != nil {
		return nil, &Problem{Node: o.Node, Msg: err.Error()}
	}
	return js, nil
}

func dropComments(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		dropComments(c)
	}
}

// Step is one step of a field path as the API server prints it: a field
// name, an [index] of a list, or a [key] of a map.
type Step struct {
	Name  string
	Index bool // [0]
	Key   bool // [app.kubernetes.io/name]
}

// Steps splits a field path (spec.containers[0].image, metadata.labels[a.b]).
func Steps(path string) []Step {
	var out []Step
	for _, m := range segment.FindAllStringSubmatch(path, -1) {
		switch {
		case m[1] != "":
			out = append(out, Step{Name: m[1]})
		case m[3] != "":
			out = append(out, Step{Name: m[3], Key: true})
		default:
			out = append(out, Step{Name: m[2], Index: true})
		}
	}
	if len(out) == 0 {
		out = append(out, Step{Name: path})
	}
	return out
}

// GoFieldNames are the JSON names of the fields of the struct that t (an
// API type) holds at path, embedded structs included: the fields allowed
// beside an unknown one. Nil when the path leaves the type.
func GoFieldNames(t reflect.Type, path []Step) []string {
	for _, st := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case (st.Index && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array)) || (st.Key && t.Kind() == reflect.Map):
			t = t.Elem()
		case !st.Index && !st.Key && t.Kind() == reflect.Struct:
			f, ok := jsonField(t, st.Name)
			if !ok {
				return nil
			}
			t = f
		default:
			return nil
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	eachJSONField(t, func(name string, _ reflect.Type) bool {
		names = append(names, name)
		return true
	})
	return names
}

func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	var found reflect.Type
	eachJSONField(t, func(n string, ft reflect.Type) bool {
		if n == name {
			found = ft
			return false
		}
		return true
	})
	return found, found != nil
}

// eachJSONField calls f with each JSON field of struct t, flattening
// embedded (inline) structs as encoding/json does, until f returns false.
func eachJSONField(t reflect.Type, f func(name string, ft reflect.Type) bool) bool {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			et := sf.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if !eachJSONField(et, f) {
					return false
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if !f(name, sf.Type) {
			return false
		}
	}
	return true
}

// segment is one step of a field path: a name, an [index], or a [key] of
// a map, which may hold dots (metadata.labels[app.kubernetes.io/name]).
var segment = regexp.MustCompile(`([^.\[\]]+)|\[(\d+)\]|\[([^\]]+)\]`)

// At finds the key node of a field path as the API server prints it
// (spec.containers[0].imagee, metadata.labels[app]), falling back to the
// deepest node it reaches.
func At(root *yaml.Node, path string) *yaml.Node {
	n, last := root, root
	for _, m := range segment.FindAllStringSubmatch(path, -1) {
		switch {
		case m[1] != "" || m[3] != "":
			name := m[1] + m[3]
			if n != nil && n.Kind == yaml.SequenceNode { // a type error's path has no indices
				n = firstWith(n, name)
			}
			k, v := manifest.KeyValue(n, name)
			if k == nil {
				return last
			}
			last, n = k, v
		default:
			i, _ := strconv.Atoi(m[2])
			if n == nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				return last
			}
			n = n.Content[i]
			last = n
		}
	}
	return last
}

func firstWith(seq *yaml.Node, key string) *yaml.Node {
	for _, item := range seq.Content {
		if k, _ := manifest.KeyValue(item, key); k != nil {
			return item
		}
	}
	return nil
}

// typed finds the node a type error is about: the key at path whose value
// has JSON type want ("string", "number 1e400"), or the sequence item that
// has it. The path names no indices, so every item along it is tried; nil
// if none fits.
func typed(n *yaml.Node, path []string, want string) *yaml.Node {
	if n != nil && n.Kind == yaml.SequenceNode {
		for _, item := range n.Content {
			if k := typed(item, path, want); k != nil {
				return k
			}
		}
		return nil
	}
	k, v := manifest.KeyValue(n, path[0])
	switch {
	case k == nil:
		return nil
	case len(path) > 1:
		return typed(v, path[1:], want)
	case isJSON(v, want):
		return k
	case v.Kind == yaml.SequenceNode:
		for _, item := range v.Content {
			if isJSON(item, want) {
				return item
			}
		}
	}
	return nil
}

// isJSON reports whether n becomes the JSON value a type error names:
// "string", "object", "number", or "number 1e400" for that number.
func isJSON(n *yaml.Node, t string) bool {
	is := map[string]string{"!!map": "object", "!!seq": "array", "!!str": "string",
		"!!int": "number", "!!float": "number", "!!bool": "bool"}[n.ShortTag()]
	if lit, ok := strings.CutPrefix(t, is+" "); ok && is != "" {
		return n.Value == lit
	}
	return is != "" && t == is
}
