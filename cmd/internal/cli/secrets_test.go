package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/render/redact"
)

// fakeEnv is an environment for one test; it records what was looked up.
type fakeEnv struct {
	vars   map[string]string
	lookup []string
}

func (f *fakeEnv) get(name string) (string, bool) {
	f.lookup = append(f.lookup, name)
	v, ok := f.vars[name]
	return v, ok
}

func runEnv(t *testing.T, dir string, env *fakeEnv, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runWith(args, strings.NewReader(""), &out, &errb, filesys.Dir(dir), env.get)
	return out.String(), errb.String(), code
}

const (
	dbPassword = "s3cr3t-from-ci-vault"
	apiToken   = "tok_live_0123456789abcdef"
)

func secretFixture(t *testing.T) string {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml":    "vars: {APP: shop, DB_PASSWORD: ~, API_TOKEN: ~}\n", // CI gives the secrets
		"token.txt": apiToken + "\n",
		"empty.txt": "\n",
		"secret.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: ${APP}-db
  annotations:
    krender.io/hash: suffix # no pod here consumes it: renamed all the same
stringData:
  password: ${DB_PASSWORD}
data:
  token: c2VjcmV0
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${APP}-config
data:
  url: https://api.example.com/?token=${API_TOKEN}
`,
	})
	return dir
}

func TestSetEnvAndSetFile(t *testing.T) {
	dir := secretFixture(t)
	env := &fakeEnv{vars: map[string]string{"DB_PASSWORD": dbPassword, "VAULT_API_TOKEN": "unused", "CI_DB": dbPassword}}
	out, errs, code := runEnv(t, dir, env, "render", "-p", "p.yaml", "--set-env", "DB_PASSWORD", "--set-file", "API_TOKEN=token.txt", "secret.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "password: "+dbPassword+"\n") || !strings.Contains(out, "token="+apiToken+"\n") {
		t.Fatalf("values not substituted (file's trailing newline dropped):\n%s", out)
	}
	if strings.Join(env.lookup, ",") != "DB_PASSWORD" {
		t.Fatalf("environment read for %v; only --set-env's variable may be", env.lookup)
	}

	env = &fakeEnv{vars: map[string]string{"CI_DB": dbPassword}}
	out, _, code = runEnv(t, dir, env, "render", "-p", "p.yaml", "--set-env", "DB_PASSWORD=CI_DB", "--set-file", "API_TOKEN=token.txt", "secret.yaml")
	if code != 0 || !strings.Contains(out, "password: "+dbPassword+"\n") || strings.Join(env.lookup, ",") != "CI_DB" {
		t.Fatalf("NAME=ENVVAR: exit %d, looked up %v:\n%s", code, env.lookup, out)
	}

	// Without --set-env the environment is not read at all: the names
	// stay for run time (Secret and ConfigMap data are scripts' places).
	env = &fakeEnv{vars: map[string]string{"DB_PASSWORD": dbPassword, "API_TOKEN": apiToken}}
	testtool.WriteFiles(t, dir, map[string]string{"open.yaml": "vars: {APP: shop}\n"}) // declares neither
	out, errs, code = runEnv(t, dir, env, "render", "-p", "open.yaml", "secret.yaml")
	if code != 0 || !strings.Contains(out, "password: ${DB_PASSWORD}\n") || len(env.lookup) > 0 {
		t.Fatalf("exit %d, looked up %v: %s\n%s", code, env.lookup, errs, out)
	}
}

// TestSecretFlagErrors: a --set-env or --set-file that cannot be read is
// named by its place among its kind, never by what was typed, which may
// be the value itself: in the name's place (--set-env DB_PASSWORD="$X"),
// as the whole argument, or as its part before "=" (base64's padding).
func TestSecretFlagErrors(t *testing.T) {
	dir := secretFixture(t)
	env := &fakeEnv{vars: map[string]string{"DB_PASSWORD": dbPassword, "EMPTY": ""}}
	const typed = "hunter2-Sup3rSecret" // a value typed where a name belongs
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set-env", "DB_PASSWORD=" + typed}, "--set-env #1: what follows = is not an environment variable's name ([A-Za-z_][A-Za-z0-9_]*): NAME=ENVVAR reads the environment variable ENVVAR; to give a value on the command line, use --set NAME=VALUE (the argument is not shown: it may hold a value)"},
		{[]string{"--set-env", "DB_PASSWORD", "--set-env", "API_TOKEN=" + typed}, "--set-env #2: what follows = is not an environment variable's name"},
		{[]string{"--set-env", typed}, "--set-env #1: want NAME or NAME=ENVVAR, NAME a variable's name ([A-Za-z_][A-Za-z0-9_]*); to give a value on the command line, use --set NAME=VALUE"},
		{[]string{"--set-env", "hunter2Sup3rSecret"}, "--set-env #1: the environment variable it names is not set (the argument is not shown: it may hold a value)"},
		{[]string{"--set-env", "aHVudGVyMlN1cDNy="}, "--set-env #1: what follows = is not an environment variable's name"},
		{[]string{"--set-env", "aHVudGVyMlN1cDNyU2VjcmV0=="}, "--set-env #1: what follows = is not an environment variable's name"},
		{[]string{"--set-env", "X=EMPTY"}, "--set-env #1: the environment variable it names is empty (an undefined CI secret arrives empty)"},
		{[]string{"--set-env", "=DB_PASSWORD"}, "--set-env #1: want NAME or NAME=ENVVAR"},
		{[]string{"--set-env", "1X=DB_PASSWORD"}, "--set-env #1: want NAME or NAME=ENVVAR, NAME a variable's name"},
		{[]string{"--set-file", "T=nope.txt"}, "--set-file #1: cannot read its file: no such file or directory (the argument is not shown: it may hold a value)"},
		{[]string{"--set-file", "T=" + typed}, "--set-file #1: cannot read its file: no such file or directory"},
		{[]string{"--set-file", "T=empty.txt"}, "--set-file #1: its file is empty"},
		{[]string{"--set-file", "T"}, "--set-file #1: want NAME=PATH (the argument is not shown: it may hold a value)"},
		{[]string{"--set-file", "API_TOKEN=token.txt", "--set-file", typed + "=token.txt"}, "--set-file #2: want NAME=PATH, NAME a variable's name"},
		{[]string{"--set", "DB_PASSWORD=x", "--set-env", "DB_PASSWORD"}, "--set-env DB_PASSWORD: DB_PASSWORD is already set by --set DB_PASSWORD"},
		{[]string{"--set-env", "DB_PASSWORD", "--set-file", "DB_PASSWORD=token.txt"}, "--set-file DB_PASSWORD: DB_PASSWORD is already set by --set-env DB_PASSWORD"},
	} {
		for _, cmd := range []string{"render", "vars", "check"} {
			args := append([]string{cmd, "-p", "p.yaml"}, append(c.args, "secret.yaml")...)
			out, errs, code := runEnv(t, dir, env, args...)
			if code != 2 || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out, errs, c.want)
			}
			for _, secret := range []string{dbPassword, apiToken, typed, "hunter2", "aHVudGVy", "nope.txt"} {
				if strings.Contains(errs, secret) {
					t.Errorf("%v: stderr shows %q: %s", args, secret, errs)
				}
			}
		}
	}
}

// TestSecretsNeverPrinted: errors, notes, vars, check findings and a
// --check diff show <redacted> where a secret's value would be.
func TestSecretsNeverPrinted(t *testing.T) {
	dir := secretFixture(t)
	testtool.WriteFiles(t, dir, map[string]string{
		// A key that collides once substituted: the error names the key.
		"collide.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  " + dbPassword + ": a\n  ${DB_PASSWORD}: b\n",
		// A note that quotes a value: a hash reference to a missing object.
		"note.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: busybox\n      envFrom:\n        - configMapRef: {name: \"${DB_PASSWORD}\"}\n",
	})
	env := &fakeEnv{vars: map[string]string{"DB_PASSWORD": dbPassword}}
	secretArgs := []string{"-p", "p.yaml", "--set-env", "DB_PASSWORD", "--set-file", "API_TOKEN=token.txt"}
	check := func(what, text string) {
		t.Helper()
		if strings.Contains(text, dbPassword) || strings.Contains(text, apiToken) {
			t.Errorf("%s shows a secret value:\n%s", what, text)
		}
		if !strings.Contains(text, mask.Mask) {
			t.Errorf("%s: want %s in:\n%s", what, mask.Mask, text)
		}
	}

	_, errs, code := runEnv(t, dir, env, append(append([]string{"render"}, secretArgs...), "collide.yaml")...)
	if code != 2 {
		t.Fatalf("collision: exit %d", code)
	}
	check("error", errs)

	out, errs, code := runEnv(t, dir, env, append(append([]string{"render"}, secretArgs...), "note.yaml")...)
	if code != 0 || !strings.Contains(out, dbPassword) {
		t.Fatalf("the render itself must hold the value: exit %d:\n%s", code, out)
	}
	check("note", errs)

	out, _, code = runEnv(t, dir, env, append(append([]string{"vars"}, secretArgs...), "secret.yaml")...)
	if code != 0 || !strings.Contains(out, "${DB_PASSWORD}  program     substituted (<redacted>)") {
		t.Fatalf("vars: exit %d:\n%s", code, out)
	}
	check("vars", out)

	for _, format := range []string{"text", "json", "sarif"} {
		out, errs, _ = runEnv(t, dir, env, append(append([]string{"check", "--format", format}, secretArgs...), "note.yaml", "collide.yaml")...)
		check("check --format "+format, out+errs)
	}

	golden := filepath.Join(dir, "rendered")
	if _, errs, code := runEnv(t, dir, env, "render", "-p", "p.yaml", "--set", "DB_PASSWORD=old", "--set", "API_TOKEN=old", "secret.yaml", "--check", golden, "--update"); code != 0 {
		t.Fatalf("--update: %s", errs)
	}
	out, _, code = runEnv(t, dir, env, append(append([]string{"render"}, secretArgs...), "secret.yaml", "--check", golden)...)
	if code != 1 {
		t.Fatalf("--check: exit %d:\n%s", code, out)
	}
	check("--check diff", out)
}

func TestRedact(t *testing.T) {
	dir := secretFixture(t)
	env := &fakeEnv{vars: map[string]string{"DB_PASSWORD": dbPassword}}
	args := []string{"render", "-p", "p.yaml", "--set-env", "DB_PASSWORD", "--set-file", "API_TOKEN=token.txt", "--redact", "secret.yaml"}
	out, errs, code := runEnv(t, dir, env, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"password: " + redact.Digest([]byte(dbPassword)) + "\n",
		"token: " + redact.Digest([]byte("secret")) + "\n", // data: the decoded bytes
		`url: "https://api.example.com/?token=<redacted>"`, // a secret outside a Secret's data
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, dbPassword) || strings.Contains(out, apiToken) {
		t.Errorf("--redact output shows a secret:\n%s", out)
	}
	if !strings.Contains(errs, `warning: ConfigMap "shop-config" holds the value of a --set-env/--set-file variable outside a Secret's data`) {
		t.Errorf("no warning about the ConfigMap: %s", errs)
	}
	// The hash suffix still follows the real value, so a golden shows a change.
	plain, _, _ := runEnv(t, dir, env, "render", "-p", "p.yaml", "--set-env", "DB_PASSWORD", "--set-file", "API_TOKEN=token.txt", "secret.yaml")
	name := func(s string) string {
		i := strings.Index(s, "name: shop-db-")
		return s[i : i+len("name: shop-db-")+10]
	}
	if name(out) != name(plain) {
		t.Errorf("--redact changed the hashed name: %s, %s", name(out), name(plain))
	}
	env2 := &fakeEnv{vars: map[string]string{"DB_PASSWORD": dbPassword + "-rotated"}}
	rotated, _, _ := runEnv(t, dir, env2, args...)
	if name(rotated) == name(out) || strings.Contains(rotated, dbPassword) {
		t.Errorf("a rotated secret must change the name and digest, never show: %s", name(rotated))
	}

	// -o DIR, --check DIR and --update write the same redacted objects.
	outDir := filepath.Join(dir, "out")
	if _, errs, code := runEnv(t, dir, env, append(args[:len(args)-1], "-o", outDir, "secret.yaml")...); code != 0 {
		t.Fatalf("-o DIR: %s", errs)
	}
	golden := filepath.Join(dir, "golden")
	if _, errs, code := runEnv(t, dir, env, append(args, "--check", golden, "--update")...); code != 0 {
		t.Fatalf("--update: %s", errs)
	}
	if d, _, code := runEnv(t, dir, env, append(args, "--check", golden)...); code != 0 {
		t.Fatalf("--check after --update: exit %d:\n%s", code, d)
	}
	for _, root := range []string{outDir, golden} {
		b, err := os.ReadFile(filepath.Join(root, "secret-shop-db.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), redact.DigestPrefix) || strings.Contains(string(b), dbPassword) {
			t.Errorf("%s:\n%s", root, b)
		}
	}
	if d, _, code := runEnv(t, dir, env2, append(args, "--check", golden)...); code != 1 || !strings.Contains(d, redact.DigestPrefix) || strings.Contains(d, dbPassword) {
		t.Errorf("a rotated secret: --check exit %d:\n%s", code, d)
	}
}
