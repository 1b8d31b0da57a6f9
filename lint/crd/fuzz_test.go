package crd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
)

// fuzzCRD has a little of everything the API server's validation does for
// a custom resource: CEL rules at several levels (with oldSelf-free
// transition-less rules, messageExpression, a rule on a list), int-or-string,
// preserve-unknown-fields, enums, defaults, nullable, formats, patterns,
// nested arrays, a map-type list, a set, an embedded resource, additional
// properties, and the status and scale subresources.
const fuzzCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.fuzz.example.com
spec:
  group: fuzz.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [image]
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.maxReplicas
              message: minReplicas must not exceed maxReplicas
            - rule: "!has(self.mode) || self.mode != 'safe' || self.replicas <= 3"
              messageExpression: "'replicas above 3 in ' + self.mode + ' mode'"
            properties:
              image: {type: string, minLength: 1, pattern: '^[a-z0-9./:-]+$'}
              replicas: {type: integer, format: int32, minimum: 0, default: 1}
              minReplicas: {type: integer, default: 1}
              maxReplicas: {type: integer, default: 3}
              port: {x-kubernetes-int-or-string: true}
              mode: {type: string, enum: [fast, safe], default: fast, maxLength: 8}
              ratio: {type: number, nullable: true, maximum: 1}
              when: {type: string, format: date-time}
              config: {type: object, x-kubernetes-preserve-unknown-fields: true}
              labels: {type: object, maxProperties: 8, additionalProperties: {type: string, maxLength: 63}}
              matrix:
                type: array
                maxItems: 4
                items:
                  type: array
                  maxItems: 8
                  items: {type: integer}
                  x-kubernetes-validations:
                  - rule: self.all(x, x >= 0)
                    message: entries must not be negative
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    number: {x-kubernetes-int-or-string: true}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              replicas: {type: integer}
              ready: {type: boolean}
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: fuzz.example.com/v1beta1 Gadget is going away
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v0
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object}
`

var fuzzCRs = []string{
	`apiVersion: fuzz.example.com/v1
kind: Gadget
metadata: {name: ok, labels: {app: g}}
spec:
  image: registry.example.com/g:1
  port: http
  config: {anything: [1, {two: 2}]}
  matrix: [[1, 2], [3]]
  ports: [{name: http, number: 80}, {name: admin, number: admin}]
  tags: [a, b]
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: inner}
    data: {k: v}
status: {ready: maybe}
`,
	`apiVersion: fuzz.example.com/v1
kind: Gadget
metadata: {name: Bad_Name, labelz: {}}
spec:
  image: ""
  replicas: -1
  minReplicas: 5
  maxReplicas: 2
  mode: slow
  ratio: null
  when: yesterday
  labels: {a: 1}
  matrix: [[1, -2], x, [], [], []]
  ports: [{name: a}, {name: a}, {number: 1}]
  tags: [a, a]
  template: {kind: ConfigMap}
  extra: field
`,
	`apiVersion: fuzz.example.com/v1
kind: Gadget
metadata: {name: safe}
spec: {image: x, mode: safe, replicas: 7, port: 8080}
---
apiVersion: fuzz.example.com/v1
kind: Gadget
metadata: {name: cel}
spec: {image: x, minReplicas: 5, maxReplicas: 2, matrix: [[0, -1]]}
---
apiVersion: fuzz.example.com/v1beta1
kind: Gadget
metadata: {name: old}
spec: {whatever: true}
---
apiVersion: fuzz.example.com/v0
kind: Gadget
metadata: {name: unserved}
---
apiVersion: fuzz.example.com/v1
kind: Gadget
metadata: {generateName: g-, namespace: other}
spec: &s {image: x}
status: *s
`,
	`apiVersion: fuzz.example.com/v1
kind: Gadget
metadata: {name: types}
spec: {image: [x], replicas: "1", port: 1.5, config: 3, ports: {}, matrix: [[a]], template: [], labels: []}
`,
}

// oddCRs reach the decoder's and the formats' corners: numbers no JSON
// holds, a float where int32 is declared, metadata of the wrong shape, an
// embedded resource whose apiVersion is no string, a non-string key.
var oddCRs = []string{
	"apiVersion: fuzz.example.com/v1\nkind: Gadget\nmetadata: {name: a}\nspec: {image: x, ratio: 1e400, replicas: .inf}\n",
	"apiVersion: fuzz.example.com/v1\nkind: Gadget\nmetadata: {name: a}\nspec: {image: x, replicas: 99999999999999999999999, minReplicas: 1.5}\n",
	"apiVersion: fuzz.example.com/v1\nkind: Gadget\nmetadata: {name: a, ownerReferences: [{}], creationTimestamp: nonsense}\nspec: {image: x}\n",
	"apiVersion: fuzz.example.com/v1\nkind: Gadget\nmetadata: {name: a, annotations: 3}\nspec: {<<: {image: x}, when: 2001-12-14t21:59:43.10-05:00, port: !!binary aGVsbG8=}\n",
	"apiVersion: fuzz.example.com/v1\nkind: Gadget\nmetadata: {name: a}\nspec: {image: x, template: {apiVersion: 1, kind: [], metadata: 3}}\n",
	"apiVersion: fuzz.example.com/v1\nkind: Gadget\nmetadata: []\nspec: null\n? [x]\n: y\n",
}

// FuzzValidate fuzzes both a CRD and a custom resource checked against it:
// neither text may make krender (or the API server's code it runs) panic;
// every problem points at a node of the object it is about (a CRD's own
// problems into the CRD, a resource's into the resource), on a line of its
// file; and compiling and validating again, from scratch and reading the
// resources through JSON instead of from the node tree, gives the same
// problems in the same order.
func FuzzValidate(f *testing.F) {
	for _, cr := range append(fuzzCRs, oddCRs...) {
		f.Add(fuzzCRD, cr)
	}
	f.Add(widgetCRD, widget("  port: http\n  config: {any: {thing: [1, 2]}}\n  mode: fast\n"))
	for _, s := range testdataSeeds(f) {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, crdText, crText string) {
		if len(crdText) > 16<<10 || len(crText) > 8<<10 {
			return
		}
		first := fuzzRun(t, crdText, crText, false)
		second := fuzzRun(t, crdText, crText, true) // every resource read through JSON
		if !slices.Equal(first, second) {
			t.Fatalf("a second run, through JSON, differs:\n%s\n----\n%s", strings.Join(first, "\n"), strings.Join(second, "\n"))
		}
	})
}

// fuzzRun compiles the CRD text and validates every custom resource of the
// resource text against it, checking where each problem points; it returns
// the problems as text, to be compared between runs.
func fuzzRun(t *testing.T, crdText, crText string, viaJSON bool) []string {
	t.Helper()
	crdSrc := manifest.NewSource("crd.yaml", []byte(crdText))
	defs, err := manifest.Parse(crdSrc)
	if err != nil {
		return nil
	}
	c, err := NewCatalog(defs)
	if err != nil {
		failOnPanic(t, err)
		return []string{"catalog: " + err.Error()}
	}
	var out []string
	for _, d := range c.Files {
		d.viaJSON = viaJSON
		for _, p := range d.Problems {
			checkNode(t, "CRD", crdText, d.Object, p)
			out = append(out, fmt.Sprintf("crd %s: %d %d:%d %s [%s]", d.Name, p.Kind, p.Node.Line, p.Node.Column, p.Msg, p.Path))
		}
	}
	objs, err := manifest.Parse(manifest.NewSource("cr.yaml", []byte(crText)))
	if err != nil {
		return out
	}
	for _, o := range objs {
		if !verdict.IsCustom(o) {
			continue
		}
		d := c.Lookup(nil, o)
		if d == nil {
			continue
		}
		ps, err := d.Validate(o, "default")
		if err != nil {
			failOnPanic(t, err)
			out = append(out, "validate: "+err.Error())
			continue
		}
		for _, p := range ps {
			checkNode(t, "resource", crText, o, p)
			out = append(out, fmt.Sprintf("%s: %d %d:%d %s [%s]", o.Name(), p.Kind, p.Node.Line, p.Node.Column, p.Msg, p.Path))
		}
	}
	return out
}

// failOnPanic: a panic that Compile or Validate recovered from is still a
// failure, to be avoided in crd/ with a problem that says what is wrong.
func failOnPanic(t *testing.T, err error) {
	t.Helper()
	if strings.Contains(err.Error(), "panicked") {
		t.Fatal(err)
	}
}

// checkNode: p's node is one of o's, on a line of text.
func checkNode(t *testing.T, what, text string, o *manifest.Object, p Problem) {
	t.Helper()
	if p.Node == nil {
		t.Fatalf("%s problem without a node: %+v", what, p)
	}
	lines := strings.Count(text, "\n") + 1
	if p.Node.Line < 1 || p.Node.Line > lines {
		t.Fatalf("%s problem at line %d of a %d-line text: %s", what, p.Node.Line, lines, p.Msg)
	}
	found := false
	manifest.Walk(o.Node, func(n *yaml.Node) { found = found || n == p.Node })
	if !found {
		t.Fatalf("%s problem at %d:%d, a node that is not the object's: %s", what, p.Node.Line, p.Node.Column, p.Msg)
	}
}

// testdataSeeds pairs each CRD of the check cases (testdata/check/crd-*)
// with each other YAML file of its case, the custom resources among them.
func testdataSeeds(f *testing.F) [][2]string {
	f.Helper()
	dirs, err := filepath.Glob("../../testdata/check/crd-*")
	if err != nil {
		f.Fatal(err)
	}
	var seeds [][2]string
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		more, _ := filepath.Glob(filepath.Join(dir, "crds", "*.yaml"))
		var crds, crs []string
		for _, p := range append(files, more...) {
			if filepath.Base(p) == "profile.yaml" {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			if strings.Contains(string(b), "kind: CustomResourceDefinition") {
				crds = append(crds, string(b))
			} else {
				crs = append(crs, string(b))
			}
		}
		for _, d := range crds {
			for _, r := range crs {
				seeds = append(seeds, [2]string{d, r})
			}
		}
	}
	if len(seeds) == 0 {
		f.Fatal("no CRD seeds under ../../testdata/check/crd-*")
	}
	return seeds
}

// TestFuzzSeeds: the fuzzer's own CRD compiles, and its seed resources
// reach every kind of problem, so that the fuzzer starts from deep inside
// validation rather than from "not served".
func TestFuzzSeeds(t *testing.T) {
	c, err := NewCatalog(parse(t, fuzzCRD))
	if err != nil || len(c.Files) != 1 || len(c.Files[0].Problems) != 0 {
		t.Fatalf("fuzzCRD: %v %+v", err, c.Files)
	}
	var all []string
	for _, cr := range fuzzCRs {
		all = append(all, fuzzRun(t, fuzzCRD, cr, false)...)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"ok: ",                            // status dropped: ready: maybe is no problem...
		`unknown field "metadata.labelz"`, // decoding
		`unknown field "spec.extra"`,      // pruning
		"minReplicas must not exceed",     // CEL
		"replicas above 3 in safe mode",   // messageExpression
		`Unsupported value: "slow"`,       // enum
		"Duplicate value",                 // list-type map and set
		"is going away",                   // deprecated version
		"fuzz.example.com/v0 Gadget is not served",
		"Invalid value: \"string\"", // types
	} {
		if want == "ok: " {
			if strings.Contains(text, "\nok: ") || strings.HasPrefix(text, "ok: ") {
				t.Errorf("the valid seed has problems:\n%s", text)
			}
			continue
		}
		if !strings.Contains(text, want) {
			t.Errorf("no seed problem mentions %q:\n%s", want, text)
		}
	}
}

// TestEmbeddedResourceDecodeError: an embedded resource that does not
// decode is reported at its own field, not at the object's metadata.
func TestEmbeddedResourceDecodeError(t *testing.T) {
	got := fuzzRun(t, fuzzCRD, oddCRs[4], false)
	if len(got) != 1 || !strings.Contains(got[0], "a: 0 4:29 ") || !strings.Contains(got[0], "spec.template.apiVersion: Invalid value: 1: must be a string") {
		t.Errorf("got %q", got)
	}
}

func TestRecovered(t *testing.T) {
	f := func() (err error) {
		defer recovered(&err, "example.com/v1 Widget \"w\"")
		var m map[string]int
		//lint:ignore SA5000 the nil map write is the runtime panic under test
		m["x"] = 1
		return nil
	}
	if err := f(); err == nil || !strings.Contains(err.Error(), `example.com/v1 Widget "w": the API server's validation code panicked: assignment to entry in nil map`) {
		t.Errorf("got %v", err)
	}
}
