package cli

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/krender/krender/cluster/client"
	gcplan "github.com/krender/krender/cluster/gc"
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
		inCode := executeWith(validator.APIServer{}, client.Run, nil, c.args, strings.NewReader(""), &inOut, &inErr, inTree(dir), noEnv)
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

// kubeconfigFor is a kubeconfig for server, whose context names
// namespace shop, with no certificate authority of its own.
func kubeconfigFor(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(strings.Replace(unreachable, "https://127.0.0.1:1", server, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGCSaysWhichKubeconfig: with no kubeconfig, gc says where it looked
// and how to give one, never client-go's "try setting KUBERNETES_MASTER".
func TestGCSaysWhichKubeconfig(t *testing.T) {
	bin := testtool.Krender(t)
	home := t.TempDir()
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=" + home}, "looked for " + filepath.Join(home, ".kube", "config") + ": "},
		{[]string{"HOME=" + home, "KUBECONFIG=/nonexistent/a:/nonexistent/b"}, "looked for the files of KUBECONFIG (/nonexistent/a, /nonexistent/b): "},
	} {
		cmd := exec.Command(bin, "gc", "-n", "shop")
		cmd.Env = c.env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := exitCode(t, cmd.Run())
		want := "krender: kubeconfig: none found, " + c.want + "give one with --kubeconfig FILE or the KUBECONFIG variable, as kubectl takes it\n"
		if code != exitError || out.Len() > 0 || errb.String() != want {
			t.Errorf("env %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.env, code, out.String(), errb.String(), want)
		}
	}
}

// TestGCUnverifiedCertificate: a server whose certificate the kubeconfig
// does not trust is said to be so, not out of reach.
func TestGCUnverifiedCertificate(t *testing.T) {
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes it refuses
	defer s.Close()
	kc := kubeconfigFor(t, s.URL)
	want := `krender: gc: list pods in namespace "shop": the server's certificate could not be verified (the cluster at ` + s.URL + `): `
	var out, errb bytes.Buffer
	code := executeWith(validator.APIServer{}, client.Run, nil, []string{"gc", "--kubeconfig", kc}, strings.NewReader(""), &out, &errb, inTree(t.TempDir()), noEnv)
	if code != exitError || out.Len() > 0 || !strings.HasPrefix(errb.String(), want) || strings.Count(errb.String(), "\n") != 1 || strings.Contains(errb.String(), "cannot reach") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out.String(), errb.String(), want)
	}
}

// TestGCMissingExitStatus: a run that finds names the cluster lacks
// prints its report, then one warning line per object, and exits 3.
func TestGCMissingExitStatus(t *testing.T) {
	missing := []gcplan.Missing{
		{By: gcplan.Owner{Kind: "Deployment", Name: "app2"}, Namespace: "shop", Object: gcplan.Target{Kind: "ConfigMap", Namespace: "shop", Name: "app-config-9tk4hbb2g6"}},
		{By: gcplan.Owner{Kind: "Ingress", Name: "web"}, Namespace: "shop", Object: gcplan.Target{Kind: "Secret", Namespace: "shop", Name: "web-tls-7c2kbm5fd4"}},
	}
	collector := func(_ context.Context, o gcplan.Options) (*gcplan.Report, error) {
		r := gcplan.NewReport(nil, false)
		r.Scope(o.Namespace, &gcplan.Snapshot{Referrers: []gcplan.Referrer{{Owner: missing[0].By, Namespace: "shop", Refs: []gcplan.Target{missing[0].Object}}}})
		r.Missing = missing
		return r, nil
	}
	var out, errb bytes.Buffer
	code := executeWith(validator.APIServer{}, collector, nil, []string{"gc", "-n", "shop"}, strings.NewReader(""), &out, &errb, inTree(t.TempDir()), noEnv)
	want := "krender: warning: Deployment shop/app2 names ConfigMap app-config-9tk4hbb2g6, which does not exist: apply the render again\n" +
		"krender: warning: Ingress shop/web names Secret web-tls-7c2kbm5fd4, which does not exist: apply the render again\n"
	if code != exitMissing || out.String() != "gc: namespace shop: nothing to change: 0 hashed objects (0 pinned by what is applied), 0 kept unproven; 2 named but missing\n" || errb.String() != want {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// hanging is an API server that answers nothing: every request waits
// until its client gives up. seen is closed at the first request.
func hanging(t *testing.T) (url string, seen chan struct{}) {
	seen = make(chan struct{})
	var once sync.Once
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(seen) })
		<-r.Context().Done()
	}))
	t.Cleanup(s.Close)
	return s.URL, seen
}

// TestGCStopsOnSignal: krender gc, signalled while it waits for the API
// server, stops (krender passes the signal on to krender-check) and exits
// 130 for SIGINT, 143 for SIGTERM, with one line; in-process, a run whose
// context a signal cancelled exits the same way.
func TestGCStopsOnSignal(t *testing.T) {
	bin := testtool.Krender(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		url, seen := hanging(t)
		cmd := exec.Command(bin, "gc", "--kubeconfig", kubeconfigFor(t, url))
		cmd.Env = []string{"HOME=" + t.TempDir()}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-seen:
		case err := <-done:
			t.Fatalf("krender gc ended (%v) before its first request: %s", err, errb.String())
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatalf("%v: krender gc still runs a minute after the signal", sig)
		}
		code, want := exitCode(t, err), 128+int(sig)
		if line := "krender: interrupted by " + map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig] + "\n"; code != want || out.Len() > 0 || errb.String() != line {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", sig, code, out.String(), errb.String(), want, line)
		}
	}

	url, seen := hanging(t)
	var out, errb bytes.Buffer
	h := newHost(validator.APIServer{}, nil, []string{"gc", "--kubeconfig", kubeconfigFor(t, url)}, strings.NewReader(""), &out, &errb, inTree(t.TempDir()), noEnv)
	h.collector = client.Run
	ctx, cancel := context.WithCancelCause(context.Background())
	h.ctx = ctx
	go func() { <-seen; cancel(interrupted{syscall.SIGTERM}) }()
	if code := h.execute(); code != 143 || out.Len() > 0 || errb.String() != "krender: interrupted by SIGTERM\n" {
		t.Errorf("in-process: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
