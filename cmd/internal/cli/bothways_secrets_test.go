package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/lint/validator"
	"github.com/krender/krender/lint/verdict"
)

// TestLeanCheckAgreesWithSecrets is TestLeanCheckAgrees for values given
// by --set, --set-env and --set-file: check without the API server's
// validation prints the same bytes and exits the same way as with it, or
// asks for it, and neither prints a secret value. The cases include a
// bad -n, a YAML syntax error and an inject entry that changes nothing.
func TestLeanCheckAgreesWithSecrets(t *testing.T) {
	dir := secretFixture(t)
	writeFiles(t, dir, map[string]string{
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
			each := func(v verdict.Validator) (int, string, string) {
				var out, errb bytes.Buffer
				code := runWithValidator(v, args, &out, &errb, dir, env)
				return code, out.String(), errb.String()
			}
			code, out, errs := each(validator.APIServer{})
			if out+errs == "" {
				t.Fatalf("%s: %v: printed nothing: the case tests nothing", way, c)
			}
			leanCode, leanOut, leanErrs := each(nil)
			asked := leanCode == exitError && leanOut == "" && strings.HasPrefix(leanErrs, "krender: this check needs the API server's validation")
			if !asked && (leanCode != code || leanOut != out || leanErrs != errs) {
				t.Errorf("%s: %v: without the validation: exit %d, stdout %q, stderr %q; with it: exit %d, stdout %q, stderr %q",
					way, c, leanCode, leanOut, leanErrs, code, out, errs)
			}
			if text := out + errs + leanOut + leanErrs; strings.Contains(text, dbPassword) || strings.Contains(text, apiToken) {
				t.Errorf("%s: %v: a secret value printed:\n%s", way, c, text)
			}
		}
	}
}

func runWithValidator(v verdict.Validator, args []string, stdout, stderr *bytes.Buffer, dir string, env *fakeEnv) int {
	return execute(v, nil, args, strings.NewReader(""), stdout, stderr, userfs.Dir(dir), &filesys.Mem{}, env.get)
}
