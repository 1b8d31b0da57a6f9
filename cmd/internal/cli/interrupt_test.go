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
	list := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {v: $V}}]\n" +
		"functionConfig: {apiVersion: krender.io/v1alpha1, kind: Render, spec: {profile: p.yaml}}\n"
	for _, args := range [][]string{
		{"render", "-p", "p.yaml", "a.yaml"},
		{"render", "-p", "p.yaml", "-o", "out", "a.yaml"},
		{"render", "-p", "p.yaml", "--check", "out", "a.yaml"},
		{"check", "-p", "p.yaml", "a.yaml"},
		{"vars", "-p", "p.yaml", "a.yaml"},
		{"fn", "--root", "."},
		{"version"},
		{"schema"},
		{"tenants", "-p", "p.yaml"},
	} {
		var stdout, stderr bytes.Buffer
		h := newHost(validator.APIServer{}, nil, args, strings.NewReader(list), &stdout, &stderr, filesys.Dir(dir), noEnv)
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

// cpuTime is the CPU time process pid has used, from /proc.
func cpuTime(t *testing.T, pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])) // after the command's name
	if len(f) < 13 {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	var user, sys int64
	fmt.Sscan(f[11], &user)
	fmt.Sscan(f[12], &sys)
	return time.Duration(user+sys) * time.Second / 100, true // USER_HZ
}

// treeCPUTime is cpuTime of pid and of every process under it, those
// that ended meanwhile left out.
func treeCPUTime(t *testing.T, pid int) (time.Duration, bool) {
	used, ok := cpuTime(t, pid)
	if !ok {
		return 0, false
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, f := range strings.Fields(string(children)) {
			var child int
			fmt.Sscan(f, &child)
			if c, ok := treeCPUTime(t, child); ok {
				used += c
			}
		}
	}
	return used, true
}

// TestSignalMidRender: render, check and vars, sent SIGINT or SIGTERM
// while they read and render 1,000 tenants of 20 scripts of 90 KB (minutes
// of work), stop: exit 130 or 143, the one line on stderr, nothing on
// stdout. The signal goes once krender has used half a second of CPU, so
// it lands in the work, whatever the machine; the only time bound is a
// guard against a hang.
func TestSignalMidRender(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: runs the krender binary")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("SKIP: no /proc to read krender's CPU time from")
	}
	bin := testtool.Krender(t)
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("vars: {V: one}\nhash: {mode: \"off\"}\ntenants:\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "  t%d: {vars: {V: v%d}}\n", i, i)
	}
	var tpl strings.Builder
	for i := range 20 {
		fmt.Fprintf(&tpl, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s-%d\ndata:\n  run.sh: |\n", i)
		for k := range 1000 {
			fmt.Fprintf(&tpl, "    echo %d $HOME ${V} %s\n", k, strings.Repeat("x", 60))
		}
	}
	testtool.WriteFiles(t, dir, map[string]string{"p.yaml": b.String(), "s.yaml": tpl.String(), "tmp/.keep": ""})
	const guard = time.Minute
	for _, c := range []struct {
		cmd  string
		sig  syscall.Signal
		code int
		name string
	}{{"render", syscall.SIGINT, 130, "SIGINT"}, {"check", syscall.SIGTERM, 143, "SIGTERM"}, {"vars", syscall.SIGINT, 130, "SIGINT"},
		{"diff", syscall.SIGTERM, 143, "SIGTERM"}} {
		args := []string{c.cmd, "-p", "p.yaml", "s.yaml"}
		if c.cmd == "diff" { // both sides from this directory: two full renders
			args = append(args, "--base-dir", ".")
		}
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
		cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Join(dir, "tmp"))
		done := startUntil(t, cmd, func() bool {
			used, ok := treeCPUTime(t, cmd.Process.Pid) // diff runs in krender-check
			return ok && used >= 500*time.Millisecond
		})
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(guard):
			cmd.Process.Kill()
			t.Fatalf("%s: still running %v after %s", c.cmd, guard, c.name)
		}
		code := exitCode(t, err)
		if want := "krender: interrupted by " + c.name + "\n"; code != c.code || stdout.Len() != 0 || stderr.String() != want {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want exit %d, no stdout, stderr %q", c.cmd, code, stdout.Len(), stderr.String(), c.code, want)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(left) != 1 {
		t.Errorf("%d entries left in TMPDIR, want .keep alone", len(left))
	}
}
