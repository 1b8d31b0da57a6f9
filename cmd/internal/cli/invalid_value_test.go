package cli

import (
	"bytes"
	"strings"
	"testing"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestInvalidLabelAgreesWithAPIServer: a label value that substitution
// makes is judged by krender's invalid-name in every check, and, for a
// custom resource whose CRD is known, by the API server's own validation
// of its metadata that krender-check runs (crd-schema); for a built-in
// kind's pod template, by the API server's ValidateLabels. They agree on
// every value: both refuse it or neither does.
func TestInvalidLabelAgreesWithAPIServer(t *testing.T) {
	values := []string{"ok", "Bad_Secret!", "a.b-c_d", "-x", "x-", strings.Repeat("a", 63), strings.Repeat("a", 64),
		"with space", "ünï", "a/b", "1", "A.B", "x..y", "_x"}
	refused := 0
	for _, v := range values {
		var out, errb bytes.Buffer
		args := []string{"check", "-p", "profile.yaml", "--crds", "crd.yaml", "--set", "TIER=" + v, "app.yaml"}
		code := runChecked(t, args, nil, &out, &errb, inTree("../../../testdata/subst/invalid-label-check"), noEnv)
		if code > 1 {
			t.Fatalf("%q: exit %d\n%s", v, code, errb.String())
		}
		var krender, apiServer, template bool
		for _, line := range strings.Split(out.String(), "\n") {
			switch {
			case strings.HasPrefix(line, "app.yaml:22:41: error: spec.template.metadata.labels.tier value") && strings.Contains(line, "[invalid-name]"):
				template = true
			case strings.HasPrefix(line, "app.yaml:9:11: error: metadata.labels.tier value") && strings.Contains(line, "[invalid-name]"):
				krender = true
			case strings.Contains(line, "Widget") && strings.Contains(line, "metadata.labels: Invalid value") && strings.Contains(line, "[crd-schema]"):
				apiServer = true
			}
		}
		if krender {
			refused++
		}
		// A built-in kind's pod template labels: the API server validates
		// them with ValidateLabels (ValidatePodTemplateSpec), here called
		// directly, as krender-check links no core validation.
		if want := len(metav1validation.ValidateLabels(map[string]string{"tier": v}, field.NewPath("labels"))) > 0; template != want {
			t.Errorf("TIER=%q: krender's invalid-name on the Deployment's pod template says %v, ValidateLabels %v", v, template, want)
		}
		if krender != apiServer {
			t.Errorf("TIER=%q: krender's invalid-name says %v, the API server's validation says %v:\n%s", v, krender, apiServer, out.String())
		}
	}
	if refused == 0 || refused == len(values) {
		t.Fatalf("%d of %d values refused: the test tells nothing", refused, len(values))
	}
	t.Logf("%d of %d values refused by both", refused, len(values))
}
