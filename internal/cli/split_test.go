package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/krender/krender/internal/testtool"
	"github.com/krender/krender/userfs"
)

// apiServerCode are the import paths of the API server's validation and
// what it brings: krender's start-up must not pay for them.
var apiServerCode = []string{
	"google.golang.org/grpc",
	"go.opentelemetry.io/",
	"github.com/prometheus/",
	"k8s.io/apiserver/",
	"github.com/google/cel-go/",
	"k8s.io/apiextensions-apiserver/pkg/apiserver",
}

// TestKrenderLinksNoAPIServerCode: render, vars, schema, version and
// tenants start without initialising the API server's packages;
// krender-check links them (else this test could not tell).
func TestKrenderLinksNoAPIServerCode(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Skipf("SKIP: go list %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	heavy := func(deps []string) []string {
		var found []string
		for _, d := range deps {
			for _, p := range apiServerCode {
				if strings.HasPrefix(d, p) || d == strings.TrimSuffix(p, "/") {
					found = append(found, d)
					break
				}
			}
		}
		return found
	}
	if h := heavy(deps("github.com/krender/krender/cmd/krender")); len(h) > 0 {
		t.Errorf("krender links %d packages of the API server's code, e.g. %s", len(h), h[0])
	}
	if h := heavy(deps("github.com/krender/krender/cmd/krender-check")); len(h) == 0 {
		t.Errorf("krender-check links none of %v: the list above no longer names what the linter brings", apiServerCode)
	}
}

// TestCheckRunsInKrenderCheck: krender runs check and fn in krender-check
// beside it, with the same streams, exit status and output as in-process.
func TestCheckRunsInKrenderCheck(t *testing.T) {
	bin := testtool.Krender(t)
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{"../../testdata/check/crd-in-render", []string{"check", "-p", "profile.yaml", "backups.yaml", "crd.yaml", "missing.yaml"}}, // CEL and the CRD's schema
		{"../../testdata/check/etc-hosts", []string{"check", "--format", "sarif", "-p", "profile.yaml", "app.yaml"}},
		{"../..", []string{"check", "--format", "json", "-p", "profiles/dev.yaml", "templates"}},
		{"../..", []string{"check", "--format", "yaml", "-p", "profiles/dev.yaml", "templates"}},
		{"../..", []string{"check", "-p", "profiles/nope.yaml", "templates"}},
	} {
		dir, args := c.dir, c.args
		var wantOut, wantErr bytes.Buffer
		wantCode := run(args, &wantOut, &wantErr, userfs.Dir(dir), afero.NewMemMapFs())
		if wantCode == exitError && strings.HasPrefix(dir, "../../testdata") {
			t.Fatalf("%s: exit %d in-process: %s", dir, wantCode, wantErr.String())
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := exitCode(t, cmd.Run())
		if code != wantCode || out.String() != wantOut.String() || errb.String() != wantErr.String() {
			t.Errorf("krender %v: exit %d, stdout %d bytes, stderr %q; in-process: exit %d, stdout %d bytes, stderr %q",
				args, code, out.Len(), errb.String(), wantCode, wantOut.Len(), wantErr.String())
		}
	}
}

// TestCheckWithoutKrenderCheck: a krender alone says what to install, and
// exits 2; render, and fn with spec.check: false, still work.
func TestCheckWithoutKrenderCheck(t *testing.T) {
	bin := testtool.Krender(t)
	alone := filepath.Join(t.TempDir(), "krender")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../..")
	list := func(check string) string {
		return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n    env: ${ENV}\n" +
			"functionConfig:\n  apiVersion: krender.io/v1alpha1\n  kind: Render\n  spec:\n    profile: profiles/dev.yaml\n    tenant: tenant-a\n" + check
	}
	for _, c := range []struct {
		args  []string
		stdin string
		code  int
	}{
		{[]string{"check", "-p", "profiles/dev.yaml", "templates"}, "", exitError},
		{[]string{"fn"}, list(""), exitError}, // results carry check's findings
		{[]string{"fn"}, list("    check: false\n"), exitOK},
		{[]string{"render", "-p", "profiles/dev.yaml", "templates"}, "", exitOK},
	} {
		cmd := exec.Command(alone, c.args...)
		cmd.Dir, cmd.Env = root, []string{"PATH=" + t.TempDir()}
		cmd.Stdin = strings.NewReader(c.stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := exitCode(t, cmd.Run())
		if code != c.code {
			t.Errorf("krender %v alone: exit %d, want %d; stderr %q", c.args, code, c.code, errb.String())
		}
		if c.code == exitError && (out.Len() > 0 || !strings.Contains(errb.String(), "go install github.com/krender/krender/cmd/krender-check@")) {
			t.Errorf("krender %v alone: stdout %q, stderr %q: want nothing on stdout and how to install krender-check", c.args, out.String(), errb.String())
		}
		if c.code == exitOK && !strings.Contains(out.String(), "env: dev") {
			t.Errorf("krender %v alone: stdout %q: want the rendered objects", c.args, out.String())
		}
	}
}

// TestKrenderCheckRefusesAnotherKrender: krender-check run by a krender of
// another build refuses, since the two must read flags and profiles alike.
func TestKrenderCheckRefusesAnotherKrender(t *testing.T) {
	helper := filepath.Join(filepath.Dir(testtool.Krender(t)), CheckBinary)
	cmd := exec.Command(helper, "version")
	cmd.Env = append(os.Environ(), parentEnv+"=krender v0.0.1 go1.20")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if code := exitCode(t, cmd.Run()); code != exitError || out.Len() > 0 || !strings.Contains(errb.String(), `krender that ran it is "krender v0.0.1 go1.20"`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}
