package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/lint/validator"
	"github.com/krender/krender/lint/verdict"
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
	// gc's cluster client: render and the other commands never talk to a
	// cluster, and krender hands gc over to krender-check.
	"k8s.io/client-go/",
	"github.com/krender/krender/cluster/client",
}

// builtinTypes are the Go types of the built-in kinds and krender's
// packages over them: krender checks from kubeapi's tables instead, and
// linking them would cost every command's start-up about 8 ms.
var builtinTypes = []string{
	"k8s.io/api/",
	"github.com/krender/krender/lint/fieldcheck",
	"github.com/krender/krender/kube/kubescheme",
	"github.com/krender/krender/lint/crd",
}

// TestKrenderLinksNoAPIServerCode: render, vars, schema, version and
// tenants start without initialising the API server's packages, the
// built-in kinds' Go types or client-go; krender-check links them (else
// this test could not tell).
func TestKrenderLinksNoAPIServerCode(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			testtool.Missing(t, fmt.Sprintf("go list %s: %v", pkg, err))
		}
		return strings.Fields(string(out))
	}
	heavy := func(deps []string) []string {
		var found []string
		for _, d := range deps {
			for _, p := range slices.Concat(apiServerCode, builtinTypes) {
				if strings.HasPrefix(d, p) && (strings.HasSuffix(p, "/") || d == p) || d == strings.TrimSuffix(p, "/") {
					found = append(found, d)
					break
				}
			}
		}
		return found
	}
	if h := heavy(deps("github.com/krender/krender/cmd/krender")); len(h) > 0 {
		t.Errorf("krender links %d packages of the API server's code or the built-in kinds' Go types, e.g. %s", len(h), h[0])
	}
	check := deps("github.com/krender/krender/cmd/krender-check")
	for _, p := range slices.Concat(apiServerCode, builtinTypes) {
		if !slices.ContainsFunc(check, func(d string) bool { return strings.HasPrefix(d, p) }) {
			t.Errorf("krender-check links nothing under %s: the lists above no longer name what the validation brings", p)
		}
	}
}

// TestCheckRunsInKrenderCheck: krender checks in-process, or runs
// krender-check beside it where the API server's validation is needed
// (CRDs, from files or standard input; a misspelled field beside a secret
// that reaches a Secret), with the same streams, exit status and output as
// krender-check's in-process.
func TestCheckRunsInKrenderCheck(t *testing.T) {
	bin := testtool.Krender(t)
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{"../../../testdata/check/crd-in-render", []string{"check", "-p", "profile.yaml", "backups.yaml", "crd.yaml", "missing.yaml"}}, // CEL and the CRD's schema
		{"../../../testdata/check/etc-hosts", []string{"check", "--format", "sarif", "-p", "profile.yaml", "app.yaml"}},
		{"../..", []string{"check", "--format", "json", "-p", "profiles/dev.yaml", "templates"}},
		{"../..", []string{"check", "--format", "yaml", "-p", "profiles/dev.yaml", "templates"}},
		{"../..", []string{"check", "-p", "profiles/nope.yaml", "templates"}},
		{"../../../testdata/check/crd-in-render", []string{"check", "-p", "profile.yaml", "backups.yaml", "-"}}, // stdin: crd.yaml
		// A secret that reaches a Secret, by the profile, --set, --set-env and --set-file.
		{"../../../testdata/secrets/check-secret-not-base64", []string{"check", "-p", "profile.yaml", "secret.yaml"}},
		{"../../../testdata/secrets/check-secret-set", []string{"check", "-p", "profile.yaml", "--set", "DB_PASSWORD=hunter2-Sup3rSecret", "app.yaml"}},
		{"../../../testdata/secrets/check-secret-set-env", []string{"check", "-p", "profile.yaml", "--set-env", "DB_PASSWORD=CI_DB_PASSWORD", "app.yaml"}},
		{"../../../testdata/secrets/check-secret-set-file", []string{"check", "--format", "json", "-p", "profile.yaml", "--set-file", "DB_PASSWORD=db-password.txt", "app.yaml"}},
		{"../../../testdata/secrets/fn-secret-set-file", []string{"fn", "--set-file", "DB_PASSWORD=db-password.txt"}},                                          // stdin: its stdin
		{"../../../testdata/secrets/check-set-env-value", []string{"check", "-p", "profile.yaml", "--set-env", "DB_PASSWORD=hunter2-Sup3rSecret", "app.yaml"}}, // a value where a name belongs
	} {
		dir, args := c.dir, c.args
		stdin, err := os.ReadFile(filepath.Join(dir, "stdin"))
		if slices.Contains(args, "-") {
			stdin, err = os.ReadFile(filepath.Join(dir, "crd.yaml"))
		}
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		var wantOut, wantErr bytes.Buffer
		wantCode := runWith(args, bytes.NewReader(stdin), &wantOut, &wantErr, inTree(dir), caseEnv(t, dir))
		if wantCode == exitError && strings.HasPrefix(dir, "../../../testdata") && !strings.HasSuffix(dir, "-value") {
			t.Fatalf("%s: exit %d in-process: %s", dir, wantCode, wantErr.String())
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(stdin)
		cmd.Env = append(os.Environ(), caseEnviron(t, dir)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := exitCode(t, cmd.Run())
		if code != wantCode || out.String() != wantOut.String() || errb.String() != wantErr.String() {
			t.Errorf("krender %v: exit %d, stdout %d bytes, stderr %q; in-process: exit %d, stdout %d bytes, stderr %q",
				args, code, out.Len(), errb.String(), wantCode, wantOut.Len(), wantErr.String())
		}
	}
}

// krenderAlone is a copy of the krender binary in a folder of its own,
// without krender-check beside it.
func krenderAlone(t *testing.T) string {
	t.Helper()
	alone := filepath.Join(t.TempDir(), "krender")
	b, err := os.ReadFile(testtool.Krender(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return alone
}

// TestCheckWithoutKrenderCheck: a krender alone checks what kubeapi's
// tables settle (a fleet of built-in kinds, fn's results) itself; where
// the API server's validation is needed (CRDs, a misspelled field) it says
// what to install and exits 2, printing nothing else.
func TestCheckWithoutKrenderCheck(t *testing.T) {
	alone := krenderAlone(t)
	root, _ := filepath.Abs("../../..")
	crdDir, _ := filepath.Abs("../../../testdata/check/crd-in-render")
	list := func(item, check string) string {
		return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + item +
			"functionConfig:\n  apiVersion: krender.io/v1alpha1\n  kind: Render\n  spec:\n    profile: profiles/dev.yaml\n    tenant: tenant-a\n" + check
	}
	configMap := "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n    env: ${ENV}\n"
	typo := "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  date:\n    env: ${ENV}\n"
	crd, err := os.ReadFile(filepath.Join(crdDir, "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir   string
		args  []string
		stdin string
		code  int
		want  string // on stdout, where it succeeds
	}{
		{root, []string{"check", "-p", "profiles/dev.yaml", "templates"}, "", exitOK, "0 errors"},
		{root, []string{"fn"}, list(configMap, ""), exitOK, "env: dev"}, // results carry check's findings
		{root, []string{"fn"}, list(configMap, "    check: false\n"), exitOK, "env: dev"},
		{root, []string{"render", "-p", "profiles/dev.yaml", "templates"}, "", exitOK, "env: dev"},
		{root, []string{"fn"}, list(typo, ""), exitError, ""},
		{crdDir, []string{"check", "-p", "profile.yaml", "backups.yaml", "crd.yaml", "missing.yaml"}, "", exitError, ""},
		{crdDir, []string{"check", "-p", "profile.yaml", "--crds", "crd.yaml", "backups.yaml"}, "", exitError, ""},
		{crdDir, []string{"check", "-p", "profile.yaml", "-"}, string(crd), exitError, ""},
	} {
		cmd := exec.Command(alone, c.args...)
		cmd.Dir, cmd.Env = c.dir, []string{"PATH=" + t.TempDir()}
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
		if c.code == exitOK && !strings.Contains(out.String(), c.want) {
			t.Errorf("krender %v alone: stdout %q: want %q", c.args, out.String(), c.want)
		}
	}
}

// outcome is one run of the command line: its exit status and output.
type outcome struct {
	code           int
	stdout, stderr string
}

// bothWays runs args in dir with the API server's validation, as
// krender-check does, and without it, as a krender alone.
func bothWays(args []string, stdin []byte, dir string, env func(string) (string, bool)) (with, lean outcome) {
	each := func(v verdict.Validator) outcome {
		var out, errb bytes.Buffer
		code := execute(v, nil, args, bytes.NewReader(stdin), &out, &errb, inTree(dir), env)
		return outcome{code, out.String(), errb.String()}
	}
	return each(validator.APIServer{}), each(nil)
}

// asksForValidation: a krender alone that cannot settle cmd prints one
// line asking for krender-check's validation, nothing else, and exits 2.
func (o outcome) asksForValidation(cmd string) bool {
	return o.code == exitError && o.stdout == "" && strings.HasPrefix(o.stderr, "krender: this "+cmd+" needs the API server's validation") && strings.Count(o.stderr, "\n") == 1
}

// TestLeanCheckAgrees runs every golden case of check, fn and diff twice in
// process: with the API server's validation, as krender-check does, and
// without, as krender does, with no krender-check to be found (the
// environment handed to it has no PATH). Without, a case either prints
// exactly the same, or needs the validation and says so before printing
// anything (krender would then run krender-check).
// Cases with a secret (by --set, --set-env and --set-file, reaching a
// Secret) need the validation too, and neither way prints the secret.
func TestLeanCheckAgrees(t *testing.T) {
	cases, err := filepath.Glob("../../../testdata/*/*/args")
	if err != nil {
		t.Fatal(err)
	}
	var agreed, needed []string
	for _, argsFile := range cases {
		dir := filepath.Dir(argsFile)
		name := strings.TrimPrefix(filepath.ToSlash(dir), "../../../testdata/")
		raw, err := os.ReadFile(argsFile)
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Fields(string(raw))
		if strings.HasPrefix(name, "hostile/") || strings.HasPrefix(name, "output/") || len(args) == 0 || (args[0] != "check" && args[0] != "fn" && args[0] != "diff") {
			continue
		}
		stdin, err := os.ReadFile(filepath.Join(dir, "stdin"))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		env := caseEnv(t, dir)
		with, lean := bothWays(args, stdin, dir, env)
		code, out, errs := with.code, with.stdout, with.stderr
		leanCode, leanOut, leanErrs := lean.code, lean.stdout, lean.stderr
		for _, secret := range caseSecrets(t, dir, args) {
			if strings.Contains(errs+leanErrs, secret) || args[0] == "check" && strings.Contains(out+leanOut, secret) {
				t.Errorf("%s: a secret value is printed", name)
			}
		}
		switch {
		case leanCode == code && leanOut == out && leanErrs == errs:
			agreed = append(agreed, name)
		case lean.asksForValidation(args[0]):
			needed = append(needed, name)
			if code == exitError && errs == leanErrs {
				t.Errorf("%s: fails alike with and without the validation, yet asks for it", name)
			}
		default:
			t.Errorf("%s: without the API server's validation: exit %d, stdout %q, stderr %q; with it: exit %d, stdout %q, stderr %q",
				name, leanCode, leanOut, leanErrs, code, out, errs)
		}
		if strings.HasPrefix(name, "check/crd") && !slices.Contains(needed, name) && code != exitError {
			t.Errorf("%s: a case with CRDs passed without the API server's validation", name)
		}
	}
	t.Logf("agreed without the validation: %d cases; needed it: %d (%v)", len(agreed), len(needed), needed)
	for _, name := range []string{"secrets/check-secret-not-base64", "secrets/check-secret-set", "secrets/check-secret-set-env", "secrets/check-secret-set-file", "secrets/fn-secret-set-file"} {
		if !slices.Contains(needed, name) {
			t.Errorf("%s: a secret that reaches a Secret, in a case the tables cannot settle, did not ask for the validation", name)
		}
	}
	if len(agreed) < 20 || len(needed) == 0 {
		t.Errorf("%d cases agreed and %d needed the validation: the test no longer tells", len(agreed), len(needed))
	}
}

// TestLeanCheckAgreesOnSecrets is TestLeanCheckAgrees for values given by
// --set, --set-env and --set-file: the same bytes and exit status both ways,
// and a CI secret's value in neither.
func TestLeanCheckAgreesOnSecrets(t *testing.T) {
	const dir = "../../../testdata/subst/secret-flags"
	env := func(name string) (string, bool) {
		if name == "DB_USER" {
			return "Bad_Secret!", true
		}
		return "", false
	}
	for _, c := range []struct {
		args   []string
		secret bool
	}{
		{[]string{"--set", "DB_USER=Bad_Secret!"}, false},
		{[]string{"--set", "DB_USER=good", "--set", "APP=9web"}, false},
		{[]string{"--set-env", "DB_USER"}, true},
		{[]string{"--set-file", "DB_USER=db-user.txt"}, true},
	} {
		args := append(append([]string{"check", "-p", "profile.yaml"}, c.args...), "app.yaml")
		with, lean := bothWays(args, nil, dir, env)
		if lean != with {
			t.Errorf("%v: without the API server's validation: %+v; with it: %+v", args, lean, with)
		}
		code, out, errs := with.code, with.stdout, with.stderr
		if code != exitFindings || !strings.Contains(out, "[invalid-name]") || !strings.Contains(out, "LOG_LEVLE") {
			t.Errorf("%v: exit %d, want the invalid-name error and the unused LOG_LEVLE:\n%s%s", args, code, out, errs)
		}
		if c.secret && strings.Contains(out+errs, "Bad_Secret") {
			t.Errorf("%v: a CI secret's value printed:\n%s%s", args, out, errs)
		}
	}
}

// caseSecrets are the secret values of a golden case: its environment's
// values (--set-env) and the files --set-file reads.
func caseSecrets(t *testing.T, dir string, args []string) []string {
	t.Helper()
	var values []string
	for _, kv := range caseEnviron(t, dir) {
		_, v, _ := strings.Cut(kv, "=")
		values = append(values, v)
	}
	for i := 1; i < len(args); i++ {
		_, v, _ := strings.Cut(args[i], "=")
		if args[i-1] == "--set-file" {
			if b, err := os.ReadFile(filepath.Join(dir, v)); err == nil {
				values = append(values, strings.TrimSpace(string(b)))
			}
		}
	}
	return values
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

// TestOraclesStayInTests: the substitution libraries of Flux and
// clusterctl are the flux and clusterctl dialects' differential oracles
// (render/subst/shellformat's tests): neither binary links them.
func TestOraclesStayInTests(t *testing.T) {
	for _, bin := range []string{"github.com/krender/krender/cmd/krender", "github.com/krender/krender/cmd/krender-check"} {
		out, err := exec.Command("go", "list", "-deps", bin).Output()
		if err != nil {
			testtool.Missing(t, fmt.Sprintf("go list %s: %v", bin, err))
		}
		for _, d := range strings.Fields(string(out)) {
			if strings.HasPrefix(d, "github.com/fluxcd/pkg/envsubst") || strings.HasPrefix(d, "github.com/drone/envsubst") {
				t.Errorf("%s links %s, a test oracle", bin, d)
			}
		}
	}
	out, err := exec.Command("go", "list", "-test", "-deps", "github.com/krender/krender/render/subst/shellformat").Output()
	if err != nil {
		testtool.Missing(t, fmt.Sprintf("go list -test: %v", err))
	}
	for _, want := range []string{"github.com/fluxcd/pkg/envsubst", "github.com/drone/envsubst/v2"} {
		if !slices.Contains(strings.Fields(string(out)), want) {
			t.Errorf("shellformat's tests no longer import %s: this test guards nothing", want)
		}
	}
}
