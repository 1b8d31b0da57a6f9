package subst

import (
	"strings"
	"testing"

	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
)

// TestInvalidNames: a name substitution makes is held to its kind's rule,
// a name written as it stands is not, and the rule can be silenced.
func TestInvalidNames(t *testing.T) {
	s := parseSet(t, `apiVersion: v1
kind: ConfigMap
metadata: {name: "cm-${LOW:-Upper}"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:${A}"}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: "w-${A}", namespace: "ns.${A}"}
---
apiVersion: v1
kind: Namespace
metadata: {name: "a.$A"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: "x_$A", annotations: {krender.io/ignore: invalid-name}}
---
apiVersion: v1
kind: Secret
metadata: {name: Written_So}
`)
	err := New(&profiles.Profile{}, false, nil).Apply(s)
	if err == nil {
		t.Fatal("render passed names the API server refuses")
	}
	got := err.Error()
	for _, want := range []string{
		`t.yaml:3:18: metadata.name "cm-Upper", made from the default of ${LOW:-Upper}, is not a valid ConfigMap name (a DNS-1123 subdomain)`,
		`t.yaml:11:39: metadata.namespace "ns.1", made from the variable A, is not a valid namespace (a DNS-1123 label)`,
		`t.yaml:15:18: metadata.name "a.1", made from the variable A, is not a valid Namespace name (a DNS-1123 label)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if n := strings.Count(got, "is not a valid"); n != 3 {
		t.Errorf("%d names refused, want 3:\n%s", n, got)
	}

	s = parseSet(t, `apiVersion: v1
kind: Service
metadata: {name: "svc-${A}x"}
`)
	s.Disabled = map[string]bool{ruleid.InvalidName: true}
	if err := New(&profiles.Profile{}, false, nil).Apply(s); err != nil {
		t.Fatalf("check.disable: [%s] must let render pass too: %v", ruleid.InvalidName, err)
	}
	s = parseSet(t, `apiVersion: v1
kind: Service
metadata: {name: "${A}-svc"}
`)
	st := New(&profiles.Profile{}, true, nil)
	if err := st.Apply(s); err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) != 1 || s.Notes[0].Rule != ruleid.InvalidName || !strings.Contains(s.Notes[0].Msg, "a DNS-1035 label") {
		t.Fatalf("check: want one %s finding, got %+v", ruleid.InvalidName, s.Notes)
	}
}

// TestInvalidValues: labels, selectors, annotation keys, container, port
// and env names and DNS-label fields that substitution makes are held to
// the API server's rules, as names are; what is written as it stands, a
// custom resource's own fields and a valid value are not.
func TestInvalidValues(t *testing.T) {
	text := `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  labels: {tier: "${X}", "${X}": ok, fine: "v-${A}", literal: Bad_Written!}
  annotations: {"example.com/${X}": x, "note": "${X}"}
spec:
  serviceName: "db-${X}"
  selector:
    matchLabels: {app: "${X}"}
    matchExpressions: [{key: "k${X}", operator: In, values: ["${X}"]}]
  template:
    metadata: {labels: {app: "${X}"}}
    spec:
      containers:
        - name: "c-${X}"
          ports: [{name: "${X}", containerPort: 80}]
          env: [{name: "A=${X}", value: "${X}"}]
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  selector: {app: "${X}"}
  ports: [{name: "p_${A}", port: 80}]
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, labels: {tier: "${X}"}}
spec:
  template: {metadata: {labels: {tier: "${X}"}}}
`
	s := parseSet(t, text)
	s.Vars["X"] = "Bad_Secret!"
	err := New(&profiles.Profile{}, false, nil).Apply(s)
	if err == nil {
		t.Fatal("render passed values the API server refuses")
	}
	got := err.Error()
	for _, want := range []string{
		`t.yaml:5:18: metadata.labels.tier value "Bad_Secret!", made from the variable X, is not a valid label value`,
		`t.yaml:5:26: metadata.labels.Bad_Secret! key "Bad_Secret!", made from the variable X, is not a valid label key (a qualified name)`,
		`t.yaml:6:17: metadata.annotations[example.com/Bad_Secret!] key "example.com/Bad_Secret!", made from the variable X, is not a valid annotation key`,
		`t.yaml:8:16: spec.serviceName value "db-Bad_Secret!", made from the variable X, is not a valid DNS-1123 label`,
		`t.yaml:10:24: spec.selector.matchLabels.app value "Bad_Secret!"`,
		`t.yaml:11:30: spec.selector.matchExpressions[0].key value "kBad_Secret!", made from the variable X, is not a valid label key`,
		`t.yaml:11:62: spec.selector.matchExpressions[0].values[0] value "Bad_Secret!"`,
		`t.yaml:13:30: spec.template.metadata.labels.app value "Bad_Secret!"`,
		`t.yaml:16:17: spec.template.spec.containers[0].name value "c-Bad_Secret!", made from the variable X, is not a valid DNS-1123 label`,
		`t.yaml:17:26: spec.template.spec.containers[0].ports[0].name value "Bad_Secret!", made from the variable X, is not a valid port name`,
		`t.yaml:18:24: spec.template.spec.containers[0].env[0].name value "A=Bad_Secret!", made from the variable X, is not a valid environment variable name`,
		`t.yaml:24:19: spec.selector.app value "Bad_Secret!"`,
		`t.yaml:25:18: spec.ports[0].name value "p_1", made from the variable A, is not a valid DNS-1123 label`,
		`t.yaml:29:36: metadata.labels.tier value "Bad_Secret!"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if n := strings.Count(got, "is not a valid"); n != 14 {
		t.Errorf("%d values refused, want 14:\n%s", n, got)
	}
}

// TestEscapedLabels: `$${CLUSTER_NAME}` is no valid label value as written
// (the envsubst dialect keeps it) nor as `${CLUSTER_NAME}` (flux writes it).
func TestEscapedLabels(t *testing.T) {
	for dialect, want := range map[string]string{
		profiles.DialectEnvsubst: `metadata.labels.cluster value "$${CLUSTER_NAME}", made from ${CLUSTER_NAME} kept as written after a $, is not a valid label value`,
		profiles.DialectFlux:     `metadata.labels.cluster value "${CLUSTER_NAME}", made from the escape $$, is not a valid label value`,
	} {
		s := parseSet(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: {cluster: \"$${CLUSTER_NAME}\"}}\n")
		p := &profiles.Profile{Substitution: profiles.Substitution{Dialect: profiles.Str{Value: dialect}}}
		err := New(p, false, nil).Apply(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %s", dialect, err, want)
		}
	}
}
