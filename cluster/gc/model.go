package gc

import (
	"sort"
	"strconv"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render/contenthash/refs"
)

// Object turns a cluster object, as encoding/json decodes it, into the
// document model the hash stage's reference table reads, so that gc finds
// references with the very code that rewrote them. Status and
// managedFields are left out: no reference lives there.
func Object(v map[string]any) *manifest.Object {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range sortedKeys(v) {
		if k == "status" {
			continue
		}
		val := v[k]
		if k == "metadata" {
			val = withoutManagedFields(val)
		}
		n.Content = append(n.Content, manifest.String(k), node(val))
	}
	return &manifest.Object{Node: n}
}

func withoutManagedFields(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if _, has := m["managedFields"]; !has {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if k != "managedFields" {
			out[k] = x
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func node(v any) *yaml.Node {
	switch x := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range sortedKeys(x) {
			n.Content = append(n.Content, manifest.String(k), node(x[k]))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			n.Content = append(n.Content, node(e))
		}
		return n
	case string:
		return manifest.String(x)
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	default: // numbers: json.Number, float64 or int64
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: scalarText(x)}
	}
}

func scalarText(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case interface{ String() string }:
		return x.String()
	}
	return ""
}

// RevisionView is a ControllerRevision as the workload it restores: a
// StatefulSet's or DaemonSet's revision holds a patch whose spec.template
// is the pod template `kubectl rollout undo` goes back to. kind is the
// owning workload's kind.
func RevisionView(rev map[string]any, kind string) map[string]any {
	data, _ := rev["data"].(map[string]any)
	spec, _ := data["spec"].(map[string]any)
	return map[string]any{
		"apiVersion": "apps/v1",
		"kind":       kind,
		"metadata":   rev["metadata"],
		"spec":       spec,
	}
}

// References are the ConfigMaps and Secrets o names through table's
// fields; ns is o's namespace, the referents' unless a field's holder
// names another (as contenthash reads it).
func References(table *refs.Table, o *manifest.Object, ns string) []Target {
	var out []Target
	table.Each(o, func(f refs.Found) {
		t := Target{Kind: f.Ref.To, Namespace: f.Namespace(ns), Name: f.Name.Value}
		for _, x := range out {
			if x == t {
				return
			}
		}
		out = append(out, t)
	})
	return out
}
