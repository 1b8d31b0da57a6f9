//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/krender/krender/internal/testing/e2eserver"
	"github.com/krender/krender/internal/testing/testtool"
)

var kubeconfig string

func TestMain(m *testing.M) {
	code := e2eserver.Main(m, &kubeconfig)
	testtool.Cleanup() // the krender binary the CRD and kubeVersion tests built
	os.Exit(code)
}

// kubectl runs kubectl against the test server with stdin as input and
// returns stdout and stderr together, as a user would see them.
func kubectl(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

func kubectlJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out, err := kubectl(t, "", append(args, "-o", "json")...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func TestServerVersion(t *testing.T) {
	var v struct {
		ServerVersion struct {
			GitVersion string `json:"gitVersion"`
		} `json:"serverVersion"`
	}
	kubectlJSON(t, &v, "version")
	if !strings.HasPrefix(v.ServerVersion.GitVersion, "v1.") {
		t.Fatalf("server version %q, want v1.x", v.ServerVersion.GitVersion)
	}
	t.Logf("kube-apiserver %s", v.ServerVersion.GitVersion)
}

// hostAliases entries take "hostnames"; the singular is a typo a template
// can easily make and only strict server-side validation catches.
const badDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: typo
  namespace: default
spec:
  selector:
    matchLabels: {app: typo}
  template:
    metadata:
      labels: {app: typo}
    spec:
      hostAliases:
      - ip: 127.0.0.1
        hostname: typo.local
      containers:
      - name: app
        image: registry.invalid/krender/smoke:1
`

func TestStrictValidationRejectsUnknownField(t *testing.T) {
	out, err := kubectl(t, badDeployment, "apply", "--dry-run=server", "--validate=strict", "-f", "-")
	if err == nil {
		t.Fatalf("apply of a Deployment with an unknown field succeeded:\n%s", out)
	}
	for _, want := range []string{"strict decoding error", `unknown field "spec.template.spec.hostAliases[0].hostname"`} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl output lacks %q:\n%s", want, out)
		}
	}
}

const goodManifests = `apiVersion: v1
kind: ConfigMap
metadata:
  name: smoke
  namespace: %[1]s
data:
  greeting: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: smoke
  namespace: %[1]s
spec:
  replicas: 2
  selector:
    matchLabels: {app: smoke}
  template:
    metadata:
      labels: {app: smoke}
    spec:
      hostAliases:
      - ip: 127.0.0.1
        hostnames: [smoke.local]
      containers:
      - name: app
        image: registry.invalid/krender/smoke:1
        envFrom:
        - configMapRef: {name: smoke}
`

func TestApplyAndReadBack(t *testing.T) {
	// Unique so that a reused server (KRENDER_E2E_KUBECONFIG) works too; the
	// namespace is not deleted, as nothing runs the namespace controller.
	ns := fmt.Sprintf("krender-smoke-%x", time.Now().UnixNano())
	if out, err := kubectl(t, "", "create", "namespace", ns); err != nil {
		t.Fatalf("create namespace: %v\n%s", err, out)
	}
	if out, err := kubectl(t, fmt.Sprintf(goodManifests, ns), "apply", "--validate=strict", "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}

	var cm struct {
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	kubectlJSON(t, &cm, "get", "-n", ns, "configmap", "smoke")
	if cm.Metadata.UID == "" || cm.Data["greeting"] != "hello" {
		t.Errorf("configmap read back as %+v", cm)
	}

	var deploy struct {
		Spec struct {
			Replicas int `json:"replicas"`
			Strategy struct {
				Type string `json:"type"`
			} `json:"strategy"`
			Template struct {
				Spec struct {
					Containers []struct {
						Image string `json:"image"`
					} `json:"containers"`
					HostAliases []struct {
						Hostnames []string `json:"hostnames"`
					} `json:"hostAliases"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	kubectlJSON(t, &deploy, "get", "-n", ns, "deployment", "smoke")
	spec := deploy.Spec
	if spec.Replicas != 2 ||
		len(spec.Template.Spec.Containers) != 1 ||
		spec.Template.Spec.Containers[0].Image != "registry.invalid/krender/smoke:1" ||
		len(spec.Template.Spec.HostAliases) != 1 ||
		strings.Join(spec.Template.Spec.HostAliases[0].Hostnames, ",") != "smoke.local" {
		t.Errorf("deployment read back as %+v", spec)
	}
	// Defaulting happens only on a real server.
	if spec.Strategy.Type != "RollingUpdate" {
		t.Errorf("strategy.type = %q, want the server default RollingUpdate", spec.Strategy.Type)
	}
}
