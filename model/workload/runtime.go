package workload

import (
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

// Labels of the runtime places that are not containers: shown by `krender
// vars` so a reader knows which program the `$` was left for.
const (
	PrometheusTemplate   ShellKind = "PrometheusRule template"
	AlertmanagerTemplate ShellKind = "AlertmanagerConfig template"
	NginxSnippet         ShellKind = "ingress-nginx snippet"
	TektonScript         ShellKind = "Tekton script"
	TektonStepTemplate   ShellKind = "Tekton step template"
	ArgoScript           ShellKind = "Argo Workflows script"
	ProfileField         ShellKind = "runtime field of the profile"
)

// Shell reports whether a shell with the container's environment runs the
// string, so that a deploy-time variable of the same name may shadow one
// the author meant for run time. Templates and config files have no such
// environment.
func (k ShellKind) Shell() bool {
	switch k {
	case ContainerCommand, ExecCommand, TektonScript, TektonStepTemplate, ArgoScript:
		return true
	}
	return false
}

// Place is a field of one kind whose strings another program reads at run
// time. The path is in kustomize's field-spec form, split into keys: lists
// are crossed without naming them, and everything below the field counts.
type Place struct {
	Kind  string
	Group string // "" matches any group
	Keys  []string
	Label ShellKind
}

// NginxAnnotationPrefix marks ingress-nginx's annotations; their values
// (snippets, rewrite targets) are nginx configuration with nginx's `$host`.
const NginxAnnotationPrefix = "nginx.ingress.kubernetes.io/"

// builtinPlaces are the well-known runtime places of custom resources.
// Containers, exec hooks and ConfigMap/Secret data are found by shape
// instead, wherever they appear.
func builtinPlaces() []Place {
	var out []Place
	add := func(kind, group string, label ShellKind, paths ...string) {
		for _, p := range paths {
			out = append(out, Place{Kind: kind, Group: group, Keys: strings.Split(p, "/"), Label: label})
		}
	}
	const prom = "monitoring.coreos.com"
	add("PrometheusRule", prom, PrometheusTemplate,
		"spec/groups/rules/annotations", "spec/groups/rules/labels", "spec/groups/rules/expr")
	add("AlertmanagerConfig", prom, AlertmanagerTemplate,
		"spec/receivers", "spec/inhibitRules", "spec/route")

	// Tekton runs step and sidecar scripts itself (they have no command for
	// the shape rule to find); a step template's args and env reach every step.
	const tekton = "tekton.dev"
	taskSpec := func(kind, prefix string) {
		add(kind, tekton, TektonScript, prefix+"steps/script", prefix+"sidecars/script")
		add(kind, tekton, TektonStepTemplate,
			prefix+"stepTemplate/command", prefix+"stepTemplate/args", prefix+"stepTemplate/env")
	}
	taskSpec("Task", "spec/")
	taskSpec("ClusterTask", "spec/")
	taskSpec("TaskRun", "spec/taskSpec/")
	for _, list := range []string{"tasks", "finally"} {
		taskSpec("Pipeline", "spec/"+list+"/taskSpec/")
		taskSpec("PipelineRun", "spec/pipelineSpec/"+list+"/taskSpec/")
	}
	add("StepAction", tekton, TektonScript, "spec/script")

	// Argo Workflows: a script template's source; its container part
	// (image, command, args) is a container by shape.
	const argo = "argoproj.io"
	for _, kind := range []string{"Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate"} {
		add(kind, argo, ArgoScript, "spec/templates/script/source")
	}
	add("CronWorkflow", argo, ArgoScript, "spec/workflowSpec/templates/script/source")
	return out
}

// placesByKind indexes places for the per-object lookup.
func placesByKind(places []Place) map[string][]Place {
	m := map[string][]Place{}
	for _, p := range places {
		m[p.Kind] = append(m[p.Kind], p)
	}
	return m
}

var builtinByKind = placesByKind(builtinPlaces())

// marker records runtime scalars of one object, reading through aliases
// (resolved once, on the first one met) and visiting each node once per
// purpose, so that an alias bomb costs its size, not its expansion.
type marker struct {
	root    *yaml.Node
	out     map[*yaml.Node]ShellKind
	aliases map[*yaml.Node]*yaml.Node
	marked  map[*yaml.Node]bool
	visited map[pathVisit]bool
}

// pathVisit is a node reached with the rest of one place's path.
type pathVisit struct {
	n    *yaml.Node
	rest *string
}

func (m *marker) resolve(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.AliasNode {
		return n
	}
	if m.aliases == nil {
		m.aliases = manifest.Aliases(m.root)
	}
	return m.aliases[n]
}

// mark labels every scalar at or below n, keys included; the first label
// given to a scalar stays.
func (m *marker) mark(n *yaml.Node, k ShellKind) {
	n = m.resolve(n)
	if n == nil || m.marked[n] {
		return
	}
	if m.marked == nil {
		m.marked = map[*yaml.Node]bool{}
	}
	m.marked[n] = true
	if n.Kind == yaml.ScalarNode {
		if _, ok := m.out[n]; !ok {
			m.out[n] = k
		}
		return
	}
	for _, c := range n.Content {
		m.mark(c, k)
	}
}

// markPath marks what keys lead to from n, with field-spec semantics (as
// render/contenthash/refs walks them): lists crossed implicitly, absent fields skipped.
func (m *marker) markPath(n *yaml.Node, keys []string, k ShellKind) {
	n = m.resolve(n)
	if n == nil {
		return
	}
	if len(keys) == 0 {
		m.mark(n, k)
		return
	}
	v := pathVisit{n, &keys[0]}
	if m.visited[v] {
		return
	}
	if m.visited == nil {
		m.visited = map[pathVisit]bool{}
	}
	m.visited[v] = true
	switch n.Kind {
	case yaml.SequenceNode:
		for _, e := range n.Content {
			m.markPath(e, keys, k)
		}
	case yaml.MappingNode:
		if c := manifest.Value(n, keys[0]); c != nil {
			m.markPath(c, keys[1:], k)
		}
	}
}

func (p Place) matches(kind, group string) bool {
	return p.Kind == kind && (p.Group == "" || p.Group == group)
}
