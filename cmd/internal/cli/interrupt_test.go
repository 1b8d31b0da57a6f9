package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/lint/validator"
)

// configMaps is a template of n ConfigMaps, each with size bytes of data.
func configMaps(n, size int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\ndata:\n  v: \"${V}\"\n  text: %q\n", i, strings.Repeat("x", size))
	}
	return b.String()
}

// startUntil starts cmd and waits until ready reports true, polling; it
// fails the test when cmd ends first.
func startUntil(t *testing.T, cmd *exec.Cmd, ready func() bool) chan error {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for !ready() {
		select {
		case err := <-done:
			t.Fatalf("krender ended (%v) before it began to write", err)
		case <-time.After(time.Millisecond):
		}
	}
	return done
}

// staging lists the temporary siblings of out in dir.
func staging(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".out.new-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSignalRemovesStagingDirectory: krender render -o out, sent SIGINT or
// SIGTERM while it writes 10,000 files into its staging directory, removes
// it, leaves out as the previous render wrote it, and exits 130 or 143
// with one line on stderr.
func TestSignalRemovesStagingDirectory(t *testing.T) {
	bin := testtool.Krender(t)
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml":     "vars: {V: one}\nhash: {mode: \"off\"}\n",
		"small.yaml": configMaps(3, 10),
		"big.yaml":   configMaps(10_000, 100),
	})
	if out, errs, code := runIn(t, dir, "render", "-p", "p.yaml", "-o", filepath.Join(dir, "out"), "small.yaml"); code != 0 {
		t.Fatalf("exit %d, stdout %q: %s", code, out, errs)
	}
	before := tree(t, filepath.Join(dir, "out"))
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		cmd := exec.Command(bin, "render", "-p", "p.yaml", "-o", "out", "big.yaml")
		var stdout, stderr bytes.Buffer
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
		done := startUntil(t, cmd, func() bool { return len(staging(t, dir)) > 0 })
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		code := exitCode(t, <-done)
		if want := "krender: interrupted by " + c.name + "\n"; code != c.code || stdout.Len() != 0 || stderr.String() != want {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want exit %d, no stdout, stderr %q", c.name, code, stdout.Len(), stderr.String(), c.code, want)
		}
		if left := staging(t, dir); len(left) > 0 {
			t.Errorf("%s: %v left behind", c.name, left)
		}
		if after := tree(t, filepath.Join(dir, "out")); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: out changed: %d entries, was %d", c.name, len(after), len(before))
		}
	}
}

// TestSignalRemovesSpool: a stream larger than the memory it is held in
// spills to a temporary file; interrupted, krender removes it and writes
// nothing on stdout.
func TestSignalRemovesSpool(t *testing.T) {
	bin := testtool.Krender(t)
	dir := t.TempDir()
	tenants := ""
	for i := range 40 { // 40 × 2,000 × 1 KB: more than output.DefaultSpoolMemory
		tenants += fmt.Sprintf("  t%d: {}\n", i)
	}
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml":    "vars: {V: one}\nhash: {mode: \"off\"}\ntenants:\n" + tenants,
		"big.yaml":  configMaps(2000, 1000),
		"tmp/.keep": "",
	})
	tmp := filepath.Join(dir, "tmp")
	spools := func() []string {
		m, err := filepath.Glob(filepath.Join(tmp, "krender-*"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cmd := exec.Command(bin, "render", "-p", "p.yaml", "big.yaml")
	var stdout, stderr bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	done := startUntil(t, cmd, func() bool { return len(spools()) > 0 })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := exitCode(t, <-done)
	if code != 130 || stdout.Len() != 0 || stderr.String() != "krender: interrupted by SIGINT\n" {
		t.Errorf("exit %d, stdout %d bytes, stderr %q", code, stdout.Len(), stderr.String())
	}
	if left := spools(); len(left) > 0 {
		t.Errorf("%v left behind", left)
	}
}

// TestInterruptedRunExitsAsTheSignal: in-process, a run whose context is
// cancelled by a signal writes nothing and exits 128 plus its number.
func TestInterruptedRunExitsAsTheSignal(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"p.yaml": "vars: {V: one}\n", "a.yaml": configMaps(2, 1)})
	for _, args := range [][]string{
		{"render", "-p", "p.yaml", "a.yaml"},
		{"render", "-p", "p.yaml", "-o", "out", "a.yaml"},
		{"render", "-p", "p.yaml", "--check", "out", "a.yaml"},
	} {
		var stdout, stderr bytes.Buffer
		h := newHost(validator.APIServer{}, nil, args, strings.NewReader(""), &stdout, &stderr, userfs.Dir(dir), filesys.Dir(dir), noEnv)
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(interrupted{syscall.SIGTERM})
		h.ctx = ctx
		if code := h.execute(); code != 143 || stdout.Len() != 0 || stderr.String() != "krender: interrupted by SIGTERM\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Errorf("%v: the directory holds %d entries, want the 2 inputs", args, len(ents))
		}
	}
}
