package action_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/validator"
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
	fsRes, err := (&action.Check{FS: filesys.NewMem(fsys), Options: action.Options{Profile: "profile.yaml", Paths: []string{"crd.yaml", "app.yaml"}}, Validator: validator.APIServer{}}).Run(t.Context())
	fs := fsRes.Findings
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

// TestNeedsValidator: without a Validator, check settles a render of
// built-in kinds and custom resources without CRDs, with the findings it
// gives with one, and stops with ErrNeedsValidator, returning no findings,
// where only the API server's code can tell: CRD files, a CRD in the
// render, a field the tables do not vouch for, a custom workload's pod
// template they cannot settle.
func TestNeedsValidator(t *testing.T) {
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec:\n      containers:\n      - {name: c, image: 'x:1'%s}\n"
	gadget := "apiVersion: shop.example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec:\n  size: 30\n" // over the CRD's maximum
	rollout := "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: c, image: 'x:1'%s}\n"
	for _, c := range []struct {
		name, profile string
		files         map[string]string
		needs         bool
	}{
		{"built-in kinds", "vars: {}\n", map[string]string{"app.yaml": fmt.Sprintf(deployment, "")}, false},
		{"custom resource without CRDs", "vars: {}\n", map[string]string{"app.yaml": gadget}, false},
		{"custom workload", "vars: {}\n", map[string]string{"app.yaml": fmt.Sprintf(rollout, "")}, false},
		{"misspelled field", "vars: {}\n", map[string]string{"app.yaml": fmt.Sprintf(deployment, ", imagePullPolicyy: Always")}, true},
		{"misspelled pod field", "vars: {}\n", map[string]string{"app.yaml": fmt.Sprintf(rollout, ", imagePullPolicyy: Always")}, true},
		{"CRD in the render", "vars: {}\n", map[string]string{"app.yaml": gadgetCRD + "---\n" + gadget}, true},
		{"CRD files", "vars: {}\ncheck: {crds: [crds]}\n", map[string]string{"app.yaml": gadget, "crds/gadget.yaml": gadgetCRD}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{"profile.yaml": {Data: []byte(c.profile)}}
			for name, text := range c.files {
				fsys[name] = &fstest.MapFile{Data: []byte(text)}
			}
			opts := action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}}
			wantRes, err := (&action.Check{FS: filesys.NewMem(fsys), Options: opts, Validator: validator.APIServer{}}).Run(t.Context())
			want := wantRes.Findings
			if err != nil {
				t.Fatal(err)
			}
			gotRes, err := (&action.Check{FS: filesys.NewMem(fsys), Options: opts}).Run(t.Context())
			got := gotRes.Findings
			switch {
			case c.needs && (!errors.Is(err, check.ErrNeedsValidator) || got != nil):
				t.Errorf("without a Validator: %v, %d findings; want ErrNeedsValidator and none", err, len(got))
			case !c.needs && err != nil:
				t.Errorf("without a Validator: %v", err)
			case !c.needs && fmt.Sprint(got) != fmt.Sprint(want):
				t.Errorf("without a Validator:\n%v\nwith one:\n%v", got, want)
			}
			if c.needs && len(want) == 0 {
				t.Errorf("with a Validator: no findings; the case does not show what only it finds")
			}
		})
	}
}

// countingFS counts, for each file of a file system, the opens that read
// it (a Stat through Open reads nothing).
type countingFS struct {
	filesys.Reader
	mu   sync.Mutex
	read map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.Reader.Open(name)
	if err != nil {
		return nil, err
	}
	return &countedFile{File: f, fs: c, name: name}, nil
}

// ReadFile reads through Open, and so is counted.
func (c *countingFS) ReadFile(name string) ([]byte, error) {
	f, err := c.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

type countedFile struct {
	fs.File
	fs   *countingFS
	name string
	read bool
}

func (f *countedFile) Read(b []byte) (int, error) {
	if !f.read {
		f.read = true
		f.fs.mu.Lock()
		f.fs.read[f.name]++
		f.fs.mu.Unlock()
	}
	return f.File.Read(b)
}

// TestCheckReadsCRDFilesOnce: the action loads the profile's check.crds
// and --crds once, and the engine and the linter both get what it loaded
// (the CRD finds the custom resource's field too large, and it is known:
// no crd-missing).
func TestCheckReadsCRDFilesOnce(t *testing.T) {
	fsys := &countingFS{read: map[string]int{}, Reader: filesys.NewMem(fstest.MapFS{
		"profile.yaml":     {Data: []byte("check: {crds: [crds/gadget.yaml]}\n")},
		"crds/gadget.yaml": {Data: []byte(gadgetCRD)},
		"more/widget.yaml": {Data: []byte(strings.NewReplacer("gadget", "widget", "Gadget", "Widget").Replace(gadgetCRD))},
		"app.yaml":         {Data: []byte("apiVersion: shop.example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {size: 11}\n---\napiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 12}\n")},
	})}
	opts := action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}, CRDs: []string{"more"}}
	fsRes, err := (&action.Check{FS: fsys, Options: opts, Validator: validator.APIServer{}}).Run(t.Context())
	fs := fsRes.Findings
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, f := range fs {
		rules = append(rules, f.Rule)
	}
	if got := strings.Join(rules, ","); got != "crd-schema,crd-schema" {
		t.Errorf("findings %s, want crd-schema for both custom resources", got)
	}
	for _, name := range []string{"crds/gadget.yaml", "more/widget.yaml"} {
		if n := fsys.read[name]; n != 1 {
			t.Errorf("%s read %d times, want once", name, n)
		}
	}
}
