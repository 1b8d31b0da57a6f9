package check

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
)

const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.shop.example.com
spec:
  group: shop.example.com
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 10}
`

// TestCRDAcrossTenants renders a CRD and a custom resource in many tenants
// at once (run under -race by make test): each tenant's resource is checked,
// the one CRD content is compiled once, and a file CRD for the same kind
// gives way to the rendered one.
func TestCRDAcrossTenants(t *testing.T) {
	var tenants strings.Builder
	for i := range 12 {
		fmt.Fprintf(&tenants, "  t%02d: {vars: {SIZE: \"%d\"}}\n", i, i+5)
	}
	fsys := fstest.MapFS{
		"profile.yaml": {Data: []byte("vars: {SIZE: \"1\"}\ncheck: {crds: [files]}\ntenants:\n" + tenants.String())},
		"crd.yaml":     {Data: []byte(gadgetCRD)},
		// A stale copy that would call every size unknown.
		"files/old.yaml": {Data: []byte(strings.Replace(gadgetCRD, "size: {type: integer, maximum: 10}", "other: {type: string}", 1))},
		"app.yaml":       {Data: []byte("apiVersion: shop.example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec:\n  size: ${SIZE}\n")},
	}
	fs, err := Run(fsys, action.Options{Profile: "profile.yaml", Paths: []string{"crd.yaml", "app.yaml"}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var tooBig []string
	for _, f := range fs {
		if f.Rule != "crd-schema" || !strings.Contains(f.Msg, "should be less than or equal to 10") {
			t.Errorf("unexpected finding %s %s: %s", f.Rule, f.Pos, f.Msg)
			continue
		}
		if f.Pos.String() != "app.yaml:5:3" {
			t.Errorf("finding at %s, want app.yaml:5:3 (the size key)", f.Pos)
		}
		tooBig = append(tooBig, f.Tenants...)
	}
	// sizes 5..16: t06 (11) to t11 (16) are over the maximum
	if got := strings.Join(tooBig, ","); got != "t06,t07,t08,t09,t10,t11" {
		t.Errorf("tenants over the maximum: %s", got)
	}
}
