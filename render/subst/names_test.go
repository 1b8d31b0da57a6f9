package subst

import (
	"strings"
	"testing"

	"github.com/krender/krender/model/profiles"
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
	s.Disabled = map[string]bool{InvalidNameRule: true}
	if err := New(&profiles.Profile{}, false, nil).Apply(s); err != nil {
		t.Fatalf("check.disable: [%s] must let render pass too: %v", InvalidNameRule, err)
	}
	s = parseSet(t, `apiVersion: v1
kind: Service
metadata: {name: "${A}-svc"}
`)
	st := New(&profiles.Profile{}, true, nil)
	if err := st.Apply(s); err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) != 1 || s.Notes[0].Rule != InvalidNameRule || !strings.Contains(s.Notes[0].Msg, "a DNS-1035 label") {
		t.Fatalf("check: want one %s finding, got %+v", InvalidNameRule, s.Notes)
	}
}
