package crd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krender/krender/model/manifest"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.maxReplicas
              message: minReplicas must not exceed maxReplicas
            properties:
              minReplicas: {type: integer, default: 1}
              maxReplicas: {type: integer, default: 3}
              port: {x-kubernetes-int-or-string: true}
              mode: {type: string, enum: [fast, safe]}
              config: {type: object, x-kubernetes-preserve-unknown-fields: true}
              items:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
          status:
            type: object
            properties:
              ready: {type: boolean}
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

func parse(t *testing.T, text string) []*manifest.Object {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("t.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func widget(spec string) string {
	return "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n" + spec
}

func TestValidate(t *testing.T) {
	c, err := NewCatalog(parse(t, widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 1 || len(c.Files[0].Problems) != 0 {
		t.Fatalf("catalog: %+v", c.Files)
	}
	for _, tc := range []struct {
		name, text string
		want       []string // kind:line:col:substring
	}{
		{"good", widget("  port: http\n  config: {any: {thing: [1, 2]}}\n  mode: fast\n"), nil},
		{"int port", widget("  port: 8080\n"), nil},
		{"unknown", widget("  maxReplica: 2\n  items:\n  - name: a\n    nam: b\n"),
			[]string{`1:8:5:unknown field "spec.items[0].nam"`, `1:5:3:unknown field "spec.maxReplica"`}},
		{"enum", widget("  mode: slow\n"), []string{`0:5:3:Unsupported value: "slow"`}},
		{"cel", widget("  minReplicas: 5\n  maxReplicas: 2\n"), []string{"0:4:1:minReplicas must not exceed maxReplicas"}},
		{"cel with default", widget("  minReplicas: 5\n"), []string{"0:4:1:minReplicas must not exceed maxReplicas"}},
		{"type", widget("  minReplicas: two\n"), []string{`0:5:3:spec.minReplicas: Invalid value: "string"`}},
		{"status dropped", widget("  mode: fast\nstatus: {ready: maybe}\n"), nil},
		{"unknown in status", widget("  mode: fast\nstatus: {redy: true}\n"), []string{`1:6:10:unknown field "status.redy"`}},
		{"not served", strings.Replace(widget("  mode: fast\n"), "example.com/v1", "example.com/v2", 1),
			[]string{"0:1:13:CustomResourceDefinition widgets.example.com serves v1, v1beta1"}},
		{"deprecated", strings.Replace(widget("  anything: goes\n"), "example.com/v1", "example.com/v1beta1", 1),
			[]string{"2:1:13:example.com/v1beta1 Widget is deprecated"}},
		{"metadata", strings.Replace(widget("  mode: fast\n"), "{name: w}", "{name: W_bad, labelz: {a: b}}", 1),
			[]string{`1:3:25:unknown field "metadata.labelz"`, "0:3:12:metadata.name: Invalid value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := parse(t, tc.text)[0]
			d := c.Lookup(nil, o)
			if d == nil {
				t.Fatal("no definition")
			}
			ps, err := d.Validate(o, "default")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, fmt.Sprintf("%d:%d:%d:%s", p.Kind, p.Node.Line, p.Node.Column, p.Msg))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				head, sub, _ := strings.Cut(w, ":")
				head2, sub2, _ := strings.Cut(sub, ":")
				head3, sub3, _ := strings.Cut(sub2, ":")
				prefix := head + ":" + head2 + ":" + head3 + ":"
				if !strings.HasPrefix(got[i], prefix) || !strings.Contains(got[i], sub3) {
					t.Errorf("problem %d = %s\nwant %s", i, got[i], w)
				}
			}
		})
	}
}

// TestCompileOnce: the same CRD content, written twice (two tenants'
// renders), is compiled once; an invalid one reports at each copy's own
// position, at the field the manifest wrote (not the internal type's).
func TestCompileOnce(t *testing.T) {
	c, err := NewCatalog(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := parse(t, widgetCRD)[0], parse(t, "# moved down\n\n"+widgetCRD)[0]
	da, err := c.Compile(a)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := c.Compile(b)
	if da != db || len(c.compiled) != 1 {
		t.Errorf("compiled %d times (same definition: %v)", len(c.compiled), da == db)
	}

	bad := strings.Replace(widgetCRD, "minReplicas: {type: integer, default: 1}", "minReplicas: {default: 1}", 1)
	x, y := parse(t, bad)[0], parse(t, "# moved down\n\n"+bad)[0]
	dx, _ := c.Compile(x)
	dy, _ := c.Compile(y)
	if len(dx.Problems) == 0 || len(dy.Problems) != len(dx.Problems) {
		t.Fatalf("problems: %v / %v", dx.Problems, dy.Problems)
	}
	px, py := dx.Problems[0], dy.Problems[0]
	if !strings.Contains(px.Msg, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[minReplicas].type: Required value") {
		t.Errorf("message: %s", px.Msg)
	}
	if px.Node.Line != 24 || px.Node.Column != 15 || py.Node.Line != 26 || dy.Object != y {
		t.Errorf("positions %d:%d and %d:%d, want 24:15 and 26:15", px.Node.Line, px.Node.Column, py.Node.Line, py.Node.Column)
	}
	// a resource of an invalid CRD's kind is not served
	ps, _ := dy.Validate(parse(t, widget("  mode: fast\n"))[0], "default")
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, "is invalid (t.yaml:26:15)") {
		t.Errorf("resource of an invalid CRD: %+v", ps)
	}
}

func TestWrittenPath(t *testing.T) {
	for in, want := range map[string]string{
		"spec.validation.openAPIV3Schema.properties[spec]": "spec.versions[0].schema.openAPIV3Schema.properties[spec]",
		"spec.subresources.scale.specReplicasPath":         "spec.versions[0].subresources.scale.specReplicasPath",
		"spec.validationX":        "spec.validationX",
		"spec.versions[1].schema": "spec.versions[1].schema",
		"metadata.name":           "metadata.name",
	} {
		if got := writtenPath(in); got != want {
			t.Errorf("writtenPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnknownFieldHint: an unknown field suggests the fields its schema
// allows at that level (ObjectMeta's under metadata), and only those.
func TestUnknownFieldHint(t *testing.T) {
	c, err := NewCatalog(parse(t, widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		widget("  maxReplica: 2\n"):                                                            "(did you mean maxReplicas?)",
		widget("  items:\n  - name: a\n    nme: b\n"):                                          "(did you mean name?)",
		strings.Replace(widget("  mode: fast\n"), "{name: w}", "{name: w, labelz: {a: b}}", 1): "(did you mean labels?)",
		widget("  zzzzzz: 1\n"):                                                                "",
		widget("  mode: fast\nspex: {}\n"):                                                     "(did you mean spec?)",
	} {
		o := parse(t, text)[0]
		ps, err := c.Lookup(nil, o).Validate(o, "default")
		if err != nil || len(ps) != 1 {
			t.Fatalf("%q: %v %+v", text, err, ps)
		}
		if got := ps[0].Msg; (want == "" && strings.Contains(got, "did you mean")) || !strings.HasSuffix(got, want) {
			t.Errorf("%q: %s, want suffix %q", text, got, want)
		}
	}
}
