package fleetgen_test

import (
	"strings"
	"testing"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/crd"
	"github.com/krender/krender/lint/validator"
	"github.com/krender/krender/model/manifest"
)

func parse(t *testing.T, name string, text []byte) *manifest.Object {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource(name, text))
	if err != nil || len(objs) != 1 {
		t.Fatalf("%s: %d objects, %v", name, len(objs), err)
	}
	return objs[0]
}

// TestCRDIsLive: the fleet's CRD is valid to the API server's code, a
// ServiceMonitor as the fleet renders it passes, and each feature of the
// schema (enum, pattern, int-or-string, defaults, CEL rules) judges values.
func TestCRDIsLive(t *testing.T) {
	c, err := crd.NewCatalog([]*manifest.Object{parse(t, fleetgen.CRD, fleetgen.CRDText())})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 1 || len(c.Files[0].Problems) > 0 || c.Files[0].Name != fleetgen.CRDName {
		t.Fatalf("compiled: %+v", c.Files)
	}
	f := fleetgen.Fleet{Apps: fleetgen.TypoEvery, Tenants: 2}
	good := string(f.CustomResource(0, 1))
	for _, tc := range []struct{ name, from, to, want string }{
		{"as rendered", "", "", ""},
		{"typo", "scrapeTimeout:", "scrapeTimout:", `unknown field "` + fleetgen.TypoField + `"`},
		{"named port as targetPort", "targetPort: 9404", "targetPort: metrics", ""},
		{"enum", "scheme: https", "scheme: ftp", `Unsupported value: "ftp"`},
		{"pattern", "interval: 1m", "interval: 1 minute", "spec.endpoints[1].interval"},
		{"minimum", "sampleLimit: 20000", "sampleLimit: -1", "spec.sampleLimit"},
		{"CEL on an endpoint", "targetPort: 9404", "targetPort: 9404\n      port: metrics", "exactly one of port and targetPort"},
		{"CEL on a relabeling", "modulus: 4", "separator: ';'", "a hashmod action needs modulus"},
		{"CEL on the spec", "  targetLabels:", "  podTargetLabels: [tenant]\n  targetLabels:", "not from both"},
		{"list set", "    - tenant\n", "    - tenant\n    - app\n", "Duplicate value"},
	} {
		text := good
		if tc.from != "" {
			if !strings.Contains(text, tc.from) {
				t.Fatalf("%s: the ServiceMonitor has no %q", tc.name, tc.from)
			}
			text = strings.Replace(text, tc.from, tc.to, 1)
		}
		o := parse(t, "sm.yaml", []byte(text))
		d := c.Lookup(nil, o)
		if d == nil {
			t.Fatalf("%s: no definition for %s", tc.name, o.Kind())
		}
		ps, err := d.Validate(o, "default")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.Msg)
		}
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: problems:\n%s", tc.name, strings.Join(got, "\n"))
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%s: got %q, want one problem with %q", tc.name, got, tc.want)
		}
	}
}

// TestCheckFindsThePlantedTypos: `krender check` over the apps and the
// custom resources, with the CRD directory, validates every ServiceMonitor
// (none lacks its CRD) and reports exactly the misspellings the fleet
// planted, in every tenant; the apps' own findings do not change.
func TestCheckFindsThePlantedTypos(t *testing.T) {
	f := fleetgen.Fleet{Apps: 2*fleetgen.TypoEvery + 1, Tenants: 3}
	fsys := f.FS()
	count := func(paths, crds []string) map[string][]check.Finding {
		t.Helper()
		fsRes, err := (&action.Check{FS: filesys.NewMem(fsys), Options: action.Options{Profile: fleetgen.Profile, Paths: paths, CRDs: crds}, Validator: validator.APIServer{}}).Run(t.Context())
		fs := fsRes.Findings
		if err != nil {
			t.Fatal(err)
		}
		by := map[string][]check.Finding{}
		for _, x := range fs {
			by[x.Rule] = append(by[x.Rule], x)
		}
		return by
	}
	apps := count([]string{fleetgen.AppsDir}, nil)
	all := count([]string{fleetgen.AppsDir, fleetgen.CustomDir}, []string{fleetgen.CRDsDir})
	if f.Typos() != 2 {
		t.Fatalf("Typos() = %d, want 2", f.Typos())
	}
	typos := all["unknown-field"]
	if len(typos) != f.Typos() {
		t.Errorf("%d unknown-field findings, want %d: %+v", len(typos), f.Typos(), typos)
	}
	for _, x := range typos {
		if !strings.Contains(x.Msg, fleetgen.TypoField) || !strings.HasPrefix(x.Pos.File, fleetgen.CustomDir+"/") || len(x.Tenants) != f.Tenants {
			t.Errorf("unknown-field finding: %s %s in %d tenants", x.Pos, x.Msg, len(x.Tenants))
		}
	}
	for _, rule := range []string{"crd-schema", "crd-missing"} {
		if len(all[rule]) > 0 {
			t.Errorf("%s: %+v", rule, all[rule])
		}
	}
	delete(all, "unknown-field")
	if len(all) != len(apps) {
		t.Errorf("rules found with the custom resources %d, without %d", len(all), len(apps))
	}
	for rule, fs := range apps {
		if len(all[rule]) != len(fs) {
			t.Errorf("%s: %d findings with the custom resources, %d without", rule, len(all[rule]), len(fs))
		}
	}
	// Without the CRD, every ServiceMonitor goes unchecked, and says so.
	bare := count([]string{fleetgen.AppsDir, fleetgen.CustomDir}, nil)
	if n := len(bare["crd-missing"]); n != f.Apps {
		t.Errorf("without --crds: %d crd-missing findings, want %d", n, f.Apps)
	}
}
