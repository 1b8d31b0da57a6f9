package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/report"
	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/lint/validator"
	"github.com/krender/krender/model/filepos"
)

func findings(t *testing.T, dir string) []rule.Finding {
	t.Helper()
	fsRes, err := (&action.Check{FS: filesys.Dir(dir), Options: action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}}, Validator: validator.APIServer{}}).Run(t.Context())
	fs := fsRes.Findings
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestSARIFValidates checks the SARIF output against the SARIF 2.1.0 JSON
// schema (embedded in go-sarif) and that each finding keeps its position.
func TestSARIFValidates(t *testing.T) {
	for _, dir := range []string{"../../testdata/check/etc-hosts", "../../testdata/check/subpath", "../../testdata/check/unresolved-ignored"} {
		fs := findings(t, dir)
		var buf bytes.Buffer
		if err := report.Write(&buf, "sarif", fs); err != nil {
			t.Fatal(err)
		}
		rep, err := sarif.FromBytes(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Validate(); err != nil {
			t.Fatalf("%s: SARIF does not validate: %v", dir, err)
		}
		results := rep.Runs[0].Results
		if len(results) != len(fs) {
			t.Fatalf("%s: %d results for %d findings", dir, len(results), len(fs))
		}
		for i, r := range results {
			loc := r.Locations[0].PhysicalLocation
			if *r.RuleID != fs[i].Rule || *loc.ArtifactLocation.URI != fs[i].Pos.File || *loc.Region.StartLine != fs[i].Pos.Line {
				t.Errorf("%s: result %d does not match finding %+v", dir, i, fs[i])
			}
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	fs := findings(t, "../../testdata/check/etc-hosts")
	var buf bytes.Buffer
	if err := report.Write(&buf, "json", fs); err != nil {
		t.Fatal(err)
	}
	var got []report.JSONFinding
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// krender's istio guard has held the first pod, so all three are
	// warnings, and the guard's own note is a finding of its own.
	if len(got) != 4 || got[0].Severity != "warning" || got[0].Rule != "etc-hosts-write" || got[0].Line != 17 ||
		got[1].Rule != "istio-hold-added" || got[1].Severity != "info" || got[1].Object != "Deployment/istio-no-hold" {
		t.Fatalf("unexpected JSON findings: %+v", got)
	}
	if check.HasErrors(fs) {
		t.Fatal("etc-hosts: no finding is an error, yet HasErrors says so")
	}
}

// TestTextNamesTenantsAsRenderDoes: check's text names the tenants a
// finding was found in with the words render's messages use for the same
// finding ("tenant a", "tenants a, b"), after the object.
func TestTextNamesTenantsAsRenderDoes(t *testing.T) {
	for _, c := range []struct {
		tenants []string
		want    string
	}{
		{[]string{"tenant-a"}, "(Deployment/api; tenant tenant-a)"},
		{[]string{"t1", "t2"}, "(Deployment/api; tenants t1, t2)"},
	} {
		f := rule.Finding{Rule: "r", Severity: filepos.Warning, Pos: filepos.Pos{File: "a.yaml", Line: 3, Col: 1}, Object: "Deployment/api", Msg: "m", Tenants: c.tenants}
		var buf bytes.Buffer
		if err := report.Write(&buf, "text", []rule.Finding{f}); err != nil {
			t.Fatal(err)
		}
		note := filepos.Note{Pos: f.Pos, Severity: f.Severity, Msg: f.Msg, Rule: f.Rule, Tenants: c.tenants}.String()
		scope := strings.TrimPrefix(c.want, "(Deployment/api; ")
		if !strings.Contains(buf.String(), "[r] "+c.want+"\n") || !strings.Contains(note, "("+scope+" [r]") {
			t.Errorf("check says %q and render %q: want both to name %q", buf.String(), note, scope)
		}
	}
}
