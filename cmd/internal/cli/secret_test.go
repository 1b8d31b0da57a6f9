package cli

import (
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// A profile value that reaches a Secret's data never shows in anything
// krender prints but the manifests: errors, notes, vars, check findings.
func TestSecretValuesNeverPrinted(t *testing.T) {
	dir := t.TempDir()
	secret := "hunter2-s3cr3t"
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml": "vars: {PASSWORD: " + secret + ", SHORT: ab, PLAIN: visible}\n",
		"secret.yaml": `apiVersion: v1
kind: Secret
metadata: {name: db}
stringData:
  password: ${PASSWORD}
  short: ${SHORT}
`,
		"app.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
        - name: app
          image: app:${PLAIN}
          env: [{name: P, value: "${PASSWORD}"}]
          volumeMounts: [{name: c, mountPath: /etc/x, subPath: x}]
      volumes: [{name: c, configMap: {name: "cm-${PASSWORD}"}}]
`,
		"dup.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: dup}
data:
  ${PASSWORD}: one
  hunter2-s3cr3t: two
`,
	})
	type run struct {
		args []string
		code int
	}
	for _, r := range []run{
		{[]string{"render", "-p", "p.yaml", "secret.yaml", "app.yaml"}, 0},             // a note names cm-<value>
		{[]string{"render", "-p", "p.yaml", "secret.yaml", "app.yaml", "dup.yaml"}, 2}, // the error quotes the key
		{[]string{"vars", "-p", "p.yaml", "secret.yaml", "app.yaml"}, 0},
		{[]string{"check", "-p", "p.yaml", "secret.yaml", "app.yaml"}, 1},
		{[]string{"check", "-p", "p.yaml", "--format", "json", "secret.yaml", "app.yaml"}, 1},
		{[]string{"check", "-p", "p.yaml", "--format", "sarif", "secret.yaml", "app.yaml"}, 1},
	} {
		out, errs, code := runIn(t, dir, r.args...)
		if code != r.code {
			t.Fatalf("%v: exit %d, want %d\n%s", r.args, code, r.code, errs)
		}
		printed := errs
		if r.args[0] != "render" {
			printed += out // render's stdout is the manifests themselves
		}
		if strings.Contains(printed, secret) || strings.Contains(printed, `"ab"`) {
			t.Errorf("%v printed the secret:\n%s", r.args, printed)
		}
		if !strings.Contains(printed, "<redacted>") {
			t.Errorf("%v: nothing redacted; the test proves nothing:\n%s", r.args, printed)
		}
		if r.args[0] == "vars" && !strings.Contains(out, `substituted ("visible")`) {
			t.Errorf("a value that reaches no Secret is shown:\n%s", out)
		}
	}
}
