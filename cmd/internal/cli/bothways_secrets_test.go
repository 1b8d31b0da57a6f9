package cli

import (
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// TestLeanCheckAgreesWithSecrets is TestLeanCheckAgrees for values given
// by --set, --set-env and --set-file: check without the API server's
// validation prints the same bytes and exits the same way as with it, or
// asks for it, and neither prints a secret value. The cases include a
// bad -n, a YAML syntax error and an inject entry that changes nothing.
func TestLeanCheckAgreesWithSecrets(t *testing.T) {
	dir := secretFixture(t)
	testtool.WriteFiles(t, dir, map[string]string{
		"note.yaml":   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: busybox\n      envFrom:\n        - configMapRef: {name: \"${DB_PASSWORD}\"}\n",
		"broken.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\ndata:\n  a: ${API_TOKEN}\n",
		"frag.yaml":   "command: [\"/bin/sh\", \"-c\", \"exec /app/start.sh\"]\n",
		"inject.yaml": "extends: p.yaml\ninject:\n  - name: wrap\n    fragment: frag.yaml\n    where: '.kind == \"Deployment\"'\n    container: app\n",
	})
	env := &fakeEnv{vars: map[string]string{"DB_PASSWORD": dbPassword, "CI_TOKEN": apiToken}}
	ways := map[string][]string{
		"--set":      {"--set", "DB_PASSWORD=" + dbPassword, "--set", "API_TOKEN=" + apiToken},
		"--set-env":  {"--set-env", "DB_PASSWORD", "--set-env", "API_TOKEN=CI_TOKEN"},
		"--set-file": {"--set-env", "DB_PASSWORD", "--set-file", "API_TOKEN=token.txt"},
	}
	cases := [][]string{
		{"-p", "p.yaml", "secret.yaml", "note.yaml"},
		{"-p", "p.yaml", "--format", "sarif", "secret.yaml", "note.yaml"},
		{"-p", "p.yaml", "-n", "Bad_NS", "secret.yaml"},
		{"-p", "p.yaml", "broken.yaml"},
		{"-p", "inject.yaml", "secret.yaml"},
	}
	for way, flags := range ways {
		for _, c := range cases {
			args := append(append([]string{"check"}, flags...), c...)
			with, lean := bothWays(args, nil, dir, env.get)
			if with.stdout+with.stderr == "" {
				t.Fatalf("%s: %v: printed nothing: the case tests nothing", way, c)
			}
			if !lean.asksForValidation("check") && lean != with {
				t.Errorf("%s: %v: without the validation: %+v; with it: %+v", way, c, lean, with)
			}
			if text := with.stdout + with.stderr + lean.stdout + lean.stderr; strings.Contains(text, dbPassword) || strings.Contains(text, apiToken) {
				t.Errorf("%s: %v: a secret value printed:\n%s", way, c, text)
			}
		}
	}
}
