package client

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/krender/krender/cluster/gc"
)

// TestConnectReadsTheGivenEnvironment: KUBECONFIG and HOME come from the
// command line's environment, as kubectl reads them, and never from the
// process's own (client-go's default loading rules read that).
func TestConnectReadsTheGivenEnvironment(t *testing.T) {
	dir := t.TempDir()
	write := func(name, ns string) string {
		p := filepath.Join(dir, name)
		text := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n" +
			"users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u, namespace: " + ns + "}}]\ncurrent-context: x\n"
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	listed := write("listed", "from-kubeconfig-var")
	write("home/.kube/config", "from-home")
	explicit := write("explicit", "from-flag")
	for _, c := range []struct {
		env        map[string]string
		kubeconfig string
		want       string
	}{
		{map[string]string{"KUBECONFIG": listed, "HOME": filepath.Join(dir, "home")}, "", "from-kubeconfig-var"},
		{map[string]string{"HOME": filepath.Join(dir, "home")}, "", "from-home"},
		{map[string]string{"KUBECONFIG": listed}, explicit, "from-flag"},
	} {
		env := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
		_, ns, err := Connect(gc.Options{Env: env, Kubeconfig: c.kubeconfig})
		if err != nil {
			t.Fatalf("%v: %v", c.env, err)
		}
		if ns != c.want {
			t.Errorf("env %v, --kubeconfig %q: namespace %q, want %q", c.env, c.kubeconfig, ns, c.want)
		}
	}
}
