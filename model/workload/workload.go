// Package workload knows where Kubernetes objects keep their pods: which kinds
// have a pod template, where their containers are, and which strings are shell
// scripts run inside a container rather than deploy-time configuration.
package workload

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

// Kind is a kind whose objects run pods from a template.
type Kind struct {
	Kind string
	// Group "" matches any group, as in kustomize's field specs: built-in
	// kinds are known by name. A Rollout must be Argo's.
	Group    string
	Template []string // path to the pod template; empty for a Pod, its own template
	// Splittable kinds run interchangeable replicas, so one copy per zone is
	// the same service; the others cannot be divided (a DaemonSet already
	// runs in every zone, a Job or Pod is one run).
	Splittable bool
}

// Kinds returns the one table of workload kinds every stage uses, as a
// copy: the table is shared by every engine in the process.
func Kinds() []Kind {
	out := slices.Clone(kinds)
	for i := range out {
		out[i].Template = slices.Clone(out[i].Template)
	}
	return out
}

var kinds = []Kind{
	{Kind: "Pod", Template: []string{}},
	{Kind: "PodTemplate", Template: []string{"template"}},
	{Kind: "Deployment", Template: []string{"spec", "template"}, Splittable: true},
	{Kind: "ReplicaSet", Template: []string{"spec", "template"}},
	{Kind: "DaemonSet", Template: []string{"spec", "template"}},
	{Kind: "StatefulSet", Template: []string{"spec", "template"}, Splittable: true},
	{Kind: "Job", Template: []string{"spec", "template"}},
	{Kind: "CronJob", Template: []string{"spec", "jobTemplate", "spec", "template"}},
	{Kind: "ReplicationController", Template: []string{"spec", "template"}},
	{Kind: "Rollout", Group: "argoproj.io", Template: []string{"spec", "template"}, Splittable: true},
}

// kindOf is the table's entry for kind in group ("" in either matches any
// group), or nil.
func kindOf(kind, group string) *Kind {
	for i := range kinds {
		k := &kinds[i]
		if k.Kind == kind && (k.Group == "" || group == "" || k.Group == group) {
			return k
		}
	}
	return nil
}

// TemplatePath is where objects of kind in group keep their pod template;
// nil for kinds without one. A Pod's path is empty but non-nil.
func TemplatePath(kind, group string) []string {
	if k := kindOf(kind, group); k != nil {
		return slices.Clone(k.Template)
	}
	return nil
}

// Splittable reports whether o can be copied once per zone.
func Splittable(o *manifest.Object) bool {
	k := kindOf(o.Kind(), o.Group())
	return k != nil && k.Splittable
}

// PodTemplate returns the mapping holding the pod's metadata and spec: the
// template of a workload, or the object itself for a Pod. Nil otherwise.
func PodTemplate(o *manifest.Object) *yaml.Node {
	path := TemplatePath(o.Kind(), o.Group())
	if path == nil {
		return nil
	}
	n := manifest.Lookup(o.Node, path...)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

// PodSpec returns the pod spec of o, or nil.
func PodSpec(o *manifest.Object) *yaml.Node {
	t := PodTemplate(o)
	if t == nil {
		return nil
	}
	s := manifest.Value(t, "spec")
	if s == nil || s.Kind != yaml.MappingNode {
		return nil
	}
	return s
}

// ContainerLists are the pod spec keys that hold containers.
var ContainerLists = []string{"initContainers", "containers", "ephemeralContainers"}

// Containers returns every container mapping in a pod spec, init containers first.
func Containers(spec *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for _, key := range ContainerLists {
		l := manifest.Value(spec, key)
		if l == nil || l.Kind != yaml.SequenceNode {
			continue
		}
		for _, c := range l.Content {
			if c.Kind == yaml.MappingNode {
				out = append(out, c)
			}
		}
	}
	return out
}

// Container finds a container (of any list) by name.
func Container(spec *yaml.Node, name string) *yaml.Node {
	for _, c := range Containers(spec) {
		if manifest.ScalarAt(c, "name") == name {
			return c
		}
	}
	return nil
}

// ShellKind says why a string is a runtime script rather than configuration.
type ShellKind string

const (
	ContainerCommand ShellKind = "container command/args"
	ExecCommand      ShellKind = "exec command"
	ConfigData       ShellKind = "ConfigMap/Secret data"
)

// ShellScalars returns the scalars of o that another program interprets at
// run time, where `$NAME` belongs to that program, not to krender: container
// command and args, exec hooks and probes, and ConfigMap/Secret data, found
// by shape wherever they appear (custom resources that embed containers or
// ConfigMaps included); ingress-nginx annotations; the builtinPlaces of
// well-known custom resources; and extra places (the profile's).
func ShellScalars(o *manifest.Object, extra ...Place) map[*yaml.Node]ShellKind {
	m := &marker{root: o.Node, out: map[*yaml.Node]ShellKind{}}
	kind, group := o.Kind(), o.Group()
	m.markPlaces(o.Node, kind, group, extra)
	m.markPlaces(o.Node, kind, group, builtinByKind[kind])
	if ann := manifest.Lookup(o.Node, "metadata", "annotations"); ann != nil && ann.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(ann.Content); i += 2 {
			if strings.HasPrefix(ann.Content[i].Value, NginxAnnotationPrefix) {
				m.mark(ann.Content[i+1], NginxSnippet)
			}
		}
	}
	manifest.Walk(o.Node, func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			m.markShapes(n, n == o.Node)
		}
	})
	return m.out
}

// markPlaces marks the places that apply to an object of this kind and group.
func (m *marker) markPlaces(root *yaml.Node, kind, group string, places []Place) {
	for _, p := range places {
		if p.matches(kind, group) {
			m.markPath(root, p.Keys, p.Label)
		}
	}
}

// markShapes marks what the mapping n holds for a program by its shape:
// ConfigMap/Secret data, container commands and exec hooks.
func (m *marker) markShapes(n *yaml.Node, root bool) {
	if isConfigObject(n, root) {
		m.markConfigData(n)
	}
	if !hasShapeKey(n) { // most mappings: one pass over their keys
		return
	}
	if img := manifest.Value(n, "image"); img != nil && img.Kind == yaml.ScalarNode {
		markCommand(m, n)
	}
	// A container with no image is one still: a patch, an operator's
	// pod template that the operator completes.
	for _, key := range ContainerLists {
		if l := manifest.Value(n, key); l != nil && l.Kind == yaml.SequenceNode {
			for _, c := range l.Content {
				if c.Kind == yaml.MappingNode {
					markCommand(m, c)
				}
			}
		}
	}
	if ex := manifest.Value(n, "exec"); ex != nil && ex.Kind == yaml.MappingNode {
		if v := manifest.Value(ex, "command"); v != nil {
			m.mark(v, ExecCommand)
		}
	}
}

// hasShapeKey reports whether the mapping n has a key markShapes looks up.
func hasShapeKey(n *yaml.Node) bool {
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "image" || k == "exec" || slices.Contains(ContainerLists, k) {
			return true
		}
	}
	return false
}

// markConfigData marks every value of a ConfigMap's or Secret's data.
func (m *marker) markConfigData(n *yaml.Node) {
	for _, key := range []string{"data", "stringData", "binaryData"} {
		if d := manifest.Value(n, key); d != nil && d.Kind == yaml.MappingNode {
			for i := 1; i < len(d.Content); i += 2 {
				m.mark(d.Content[i], ConfigData)
			}
		}
	}
}

// markCommand marks a container's command and args.
func markCommand(m *marker, ctr *yaml.Node) {
	for _, key := range []string{"command", "args"} {
		if v := manifest.Value(ctr, key); v != nil {
			m.mark(v, ContainerCommand)
		}
	}
}

// isConfigObject reports whether the mapping is a ConfigMap or Secret: the
// object itself by kind, or one embedded in another object (a List item, a
// manifest a controller creates) by kind and core apiVersion.
func isConfigObject(n *yaml.Node, root bool) bool {
	switch manifest.ScalarAt(n, "kind") {
	case "ConfigMap", "Secret":
		return root || manifest.ScalarAt(n, "apiVersion") == "v1"
	}
	return false
}

// HasIstioSidecar reports whether istio will add (or has) an istio-proxy
// container in o's pods: the sidecar.istio.io/inject label or annotation, or
// the container itself.
func HasIstioSidecar(o *manifest.Object) bool {
	meta := manifest.Value(PodTemplate(o), "metadata") // a Pod is its own template
	for _, where := range []string{"labels", "annotations"} {
		if manifest.ScalarAt(meta, where, "sidecar.istio.io/inject") == "true" {
			return true
		}
	}
	return Container(PodSpec(o), "istio-proxy") != nil
}

// IstioConfigAnnotation holds istio's per-pod ProxyConfig, YAML inside a string.
const IstioConfigAnnotation = "proxy.istio.io/config"

// HoldsApplicationUntilProxyStarts reports whether the pod's ProxyConfig
// makes istio start the application only once the proxy is up.
func HoldsApplicationUntilProxyStarts(o *manifest.Object) bool {
	meta := manifest.Value(PodTemplate(o), "metadata")
	cfg := manifest.ScalarAt(meta, "annotations", IstioConfigAnnotation)
	if cfg == "" {
		return false
	}
	var pc struct {
		Hold bool `yaml:"holdApplicationUntilProxyStarts"`
	}
	return yaml.Load([]byte(cfg), &pc) == nil && pc.Hold
}

// etcHostsWrite matches shell that writes /etc/hosts: a redirection, tee,
// sed -i, or cp/mv/ln/install with /etc/hosts as the destination. Shell that
// only reads it does not match. Compiled on first use, not at start-up.
var etcHostsWrite = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:>>?\|?\s*|\btee\b[^\n|;&<]*\s|\bsed\b[^\n|;&<]*\s(?:-[a-zA-Z]*i|--in-place)[^\n|;&<]*\s)["']?/etc/hosts(?:$|[\s;|&)'"])` +
		`|\b(?:cp|mv|ln|install)\b[^\n|;&<]*\s["']?/etc/hosts["']?[ \t]*(?:$|[;|&)])`)
})

// EtcHostsWrite returns where in script the first write to /etc/hosts is (a
// byte range), or nil.
func EtcHostsWrite(script string) []int { return etcHostsWrite().FindStringIndex(script) }

// Scripts are the container's command, args and exec hook/probe commands:
// the strings it runs.
func Scripts(ctr *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	add := func(n *yaml.Node) {
		manifest.Walk(n, func(s *yaml.Node) {
			if s.Kind == yaml.ScalarNode {
				out = append(out, s)
			}
		})
	}
	add(manifest.Value(ctr, "command"))
	add(manifest.Value(ctr, "args"))
	for _, hook := range []string{"postStart", "preStop"} {
		add(manifest.Lookup(ctr, "lifecycle", hook, "exec", "command"))
	}
	for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		add(manifest.Lookup(ctr, probe, "exec", "command"))
	}
	return out
}
