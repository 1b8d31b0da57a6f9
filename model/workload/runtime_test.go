package workload

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

// runtimeLabels parses text and returns, for every scalar holding a `$`,
// the label ShellScalars gives it ("" for deploy-time configuration).
func runtimeLabels(t *testing.T, text string, extra ...Place) map[string]ShellKind {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("t.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ShellKind{}
	for _, o := range objs {
		shell := ShellScalars(o, extra...)
		manifest.Walk(o.Node, func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "$") {
				got[strings.TrimSpace(n.Value)] = shell[n]
			}
		})
	}
	return got
}

func checkLabels(t *testing.T, got, want map[string]ShellKind) {
	t.Helper()
	for v, w := range want {
		if g, ok := got[v]; !ok {
			t.Errorf("%q: not found", v)
		} else if g != w {
			t.Errorf("%q: got %q, want %q", v, g, w)
		}
	}
	for v := range got {
		if _, ok := want[v]; !ok {
			t.Errorf("%q: not in the expectations", v)
		}
	}
}

func TestRuntimePlaces(t *testing.T) {
	text := `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: r
  labels: {team: $TEAM_LABEL}
spec:
  groups:
    - name: g
      rules:
        - alert: Down
          expr: up{job="$PROM_EXPR"} == 0
          labels:
            instance: "{{ $PROM_LABEL }}"
          annotations:
            summary: "{{ $labels.instance }} is down ({{ $value }})"
---
apiVersion: example.com/v1
kind: PrometheusRule
metadata: {name: other-group}
spec:
  groups: [{rules: [{expr: $NOT_PROMETHEUS}]}]
---
apiVersion: monitoring.coreos.com/v1alpha1
kind: AlertmanagerConfig
metadata: {name: a}
spec:
  route: {receiver: "$AM_ROUTE"}
  receivers:
    - name: slack
      slackConfigs: [{text: '{{ range $AM_RECEIVER := .Alerts }}{{ end }}'}]
  inhibitRules: [{equal: [$AM_INHIBIT]}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: i
  annotations:
    nginx.ingress.kubernetes.io/configuration-snippet: |
      more_set_headers "X-Request-Id: $req_id";
    example.com/note: $NOT_NGINX
spec:
  rules: [{host: $INGRESS_HOST}]
---
apiVersion: tekton.dev/v1
kind: Task
metadata: {name: t}
spec:
  stepTemplate:
    env: [{name: HOME_DIR, value: $TEKTON_TEMPLATE_ENV}]
    args: [$TEKTON_TEMPLATE_ARGS]
  steps:
    - name: s
      image: alpine
      script: echo $TEKTON_TASK_SCRIPT
      args: [$TEKTON_STEP_ARGS]
      workingDir: $TEKTON_WORKDIR
  sidecars:
    - {name: side, image: alpine, script: echo $TEKTON_SIDECAR}
---
apiVersion: tekton.dev/v1
kind: Pipeline
metadata: {name: p}
spec:
  tasks:
    - name: embedded
      taskSpec:
        steps: [{name: s, image: alpine, script: echo $TEKTON_PIPELINE_TASK}]
  finally:
    - name: last
      taskSpec:
        steps: [{name: s, image: alpine, script: echo $TEKTON_PIPELINE_FINALLY}]
---
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata: {name: pr}
spec:
  pipelineSpec:
    tasks:
      - name: e
        taskSpec:
          steps: [{name: s, image: alpine, script: echo $TEKTON_PIPELINERUN}]
---
apiVersion: tekton.dev/v1
kind: TaskRun
metadata: {name: tr}
spec:
  taskSpec:
    steps: [{name: s, image: alpine, script: echo $TEKTON_TASKRUN}]
---
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: w-}
spec:
  entrypoint: main
  templates:
    - name: gen
      script:
        image: python:3
        command: [sh]
        source: echo $ARGO_SCRIPT
    - name: main
      container:
        image: alpine
        args: [echo $ARGO_CONTAINER_ARGS]
---
apiVersion: argoproj.io/v1alpha1
kind: CronWorkflow
metadata: {name: c}
spec:
  workflowSpec:
    templates: [{name: s, script: {image: alpine, source: echo $ARGO_CRON}}]
---
apiVersion: example.com/v1
kind: Bundle
metadata: {name: b}
spec:
  objects:
    - apiVersion: v1
      kind: ConfigMap
      data: {script.sh: echo $EMBEDDED_CM}
    - apiVersion: example.com/v1
      kind: ConfigMap
      data: {x: $NOT_A_CORE_CM}
`
	checkLabels(t, runtimeLabels(t, text), map[string]ShellKind{
		"$TEAM_LABEL":                                   "",
		`up{job="$PROM_EXPR"} == 0`:                     PrometheusTemplate,
		`{{ $PROM_LABEL }}`:                             PrometheusTemplate,
		`{{ $labels.instance }} is down ({{ $value }})`: PrometheusTemplate,
		"$NOT_PROMETHEUS":                               "",
		"$AM_ROUTE":                                     AlertmanagerTemplate,
		"{{ range $AM_RECEIVER := .Alerts }}{{ end }}":  AlertmanagerTemplate,
		"$AM_INHIBIT":                                   AlertmanagerTemplate,
		`more_set_headers "X-Request-Id: $req_id";`:     NginxSnippet,
		"$NOT_NGINX":                                    "",
		"$INGRESS_HOST":                                 "",
		"$TEKTON_TEMPLATE_ENV":                          TektonStepTemplate,
		"$TEKTON_TEMPLATE_ARGS":                         TektonStepTemplate,
		"echo $TEKTON_TASK_SCRIPT":                      TektonScript,
		"$TEKTON_STEP_ARGS":                             ContainerCommand,
		"$TEKTON_WORKDIR":                               "",
		"echo $TEKTON_SIDECAR":                          TektonScript,
		"echo $TEKTON_PIPELINE_TASK":                    TektonScript,
		"echo $TEKTON_PIPELINE_FINALLY":                 TektonScript,
		"echo $TEKTON_PIPELINERUN":                      TektonScript,
		"echo $TEKTON_TASKRUN":                          TektonScript,
		"echo $ARGO_SCRIPT":                             ArgoScript,
		"echo $ARGO_CONTAINER_ARGS":                     ContainerCommand,
		"echo $ARGO_CRON":                               ArgoScript,
		"echo $EMBEDDED_CM":                             ConfigData,
		"$NOT_A_CORE_CM":                                "",
	})
}

func TestProfilePlaces(t *testing.T) {
	text := `apiVersion: example.com/v1
kind: Foo
metadata: {name: f}
spec:
  scripts:
    - body: echo $BODY
      name: $NAME_FIELD
  alias: &body {body: echo $ANCHORED}
  more: [*body]
---
apiVersion: other.example.com/v1
kind: Foo
metadata: {name: g}
spec:
  scripts: [{body: echo $OTHER_GROUP}]
`
	extra := []Place{
		{Kind: "Foo", Group: "example.com", Keys: []string{"spec", "scripts", "body"}, Label: ProfileField},
		{Kind: "Foo", Group: "example.com", Keys: []string{"spec", "more", "body"}, Label: ProfileField},
	}
	checkLabels(t, runtimeLabels(t, text, extra...), map[string]ShellKind{
		"echo $BODY":        ProfileField,
		"$NAME_FIELD":       "",
		"echo $ANCHORED":    ProfileField, // through the alias
		"echo $OTHER_GROUP": "",
	})
}

// An alias bomb is walked once per node, not once per expansion.
func TestRuntimePlacesAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: tekton.dev/v1\nkind: Task\nmetadata: {name: t}\nspec:\n  l0: &l0 [{script: $X}]\n")
	for i := 1; i <= 3; i++ { // 9^3 copies expanded: under limits.nodes, which refuses a deeper bomb at parse
		b.WriteString("  l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*l" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("  steps: [*l3]\n")
	got := runtimeLabels(t, b.String())
	if got["$X"] != TektonScript {
		t.Fatalf("got %q", got["$X"])
	}
}
