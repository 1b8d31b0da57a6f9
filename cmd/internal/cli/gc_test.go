package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/action/gc/cluster"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/lint/validator"
)

// unreachable is a kubeconfig for a cluster nobody listens for, whose
// context names namespace shop.
const unreachable = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: shop}}]
current-context: x
`

// TestGCRunsInKrenderCheck: krender hands gc to krender-check with the
// same arguments, and exits as it does: an unreachable cluster is one line
// naming the verb, the resource and the kubeconfig's namespace, exit 2,
// nothing on stdout. Flags are refused by krender itself.
func TestGCRunsInKrenderCheck(t *testing.T) {
	bin := testtool.Krender(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kubeconfig"), []byte(unreachable), 0o600); err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(dir, "kubeconfig") // client-go reads it from the OS, not through fsys
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gc", "--kubeconfig", kc}, `krender: gc: list pods in namespace "shop": cannot reach the cluster at https://127.0.0.1:1: `},
		{[]string{"gc", "--kubeconfig", kc, "-A", "--dry-run", "-o", "json"}, `krender: gc: list pods in all namespaces: cannot reach the cluster at https://127.0.0.1:1: `},
		{[]string{"gc", "--kubeconfig", kc, "--context", "nope"}, `krender: kubeconfig: context "nope" does not exist`},
		{[]string{"gc", "-n", "shop", "-A"}, "krender: -n shop and -A: give one (a namespace, or all of them)\n"},
		{[]string{"gc", "-o", "yaml"}, "krender: -o \"yaml\": want text or json\n"},
	} {
		var inOut, inErr bytes.Buffer
		inCode := executeWith(validator.APIServer{}, cluster.Run, nil, c.args, strings.NewReader(""), &inOut, &inErr, userfs.Dir(dir), &filesys.Mem{}, noEnv)
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := exitCode(t, cmd.Run())
		if code != exitError || out.Len() > 0 || !strings.HasPrefix(errb.String(), c.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("krender %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out.String(), errb.String(), c.want)
		}
		if inCode != code || inErr.String() != errb.String() {
			t.Errorf("krender %v: in-process exit %d, stderr %q; the binary's: %d, %q", c.args, inCode, inErr.String(), code, errb.String())
		}
	}
}

// TestGCWithoutKrenderCheck: a krender alone says what to install.
func TestGCWithoutKrenderCheck(t *testing.T) {
	cmd := exec.Command(krenderAlone(t), "gc", "-n", "shop")
	cmd.Env = []string{"PATH=" + t.TempDir()}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := exitCode(t, cmd.Run())
	if code != exitError || out.Len() > 0 || !strings.Contains(errb.String(), "this gc needs a cluster client (client-go), which krender-check runs") {
		t.Errorf("krender gc alone: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
