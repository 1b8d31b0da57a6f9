package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/cmd/internal/handover"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/lint/validator"
)

func TestEnvLookup(t *testing.T) {
	env := Env{"A=1", "B=", "A=2", "C=x=y"}
	for _, c := range []struct {
		name, want string
		ok         bool
	}{{"A", "1", true}, {"B", "", true}, {"C", "x=y", true}, {"D", "", false}, {"", "", false}} {
		if got, ok := env.Lookup(c.name); got != c.want || ok != c.ok {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// recorder stands for runtime/debug's settings in Process.
type recorder struct {
	gc     []int
	limits []int64
}

func (r *recorder) process(environ ...string) Process {
	return Process{
		Environ:        environ,
		SetGCPercent:   func(n int) int { r.gc = append(r.gc, n); return 100 },
		SetMemoryLimit: func(n int64) int64 { r.limits = append(r.limits, n); return 0 },
	}
}

// The collector is tuned from the environment main hands over, and the
// user's GOGC and GOMEMLIMIT win.
func TestTuneGCReadsTheHandedEnvironment(t *testing.T) {
	var r recorder
	c := r.process("HOME=/h").tuneGC(Env{"HOME=/h"}.Lookup)
	if !slices.Equal(r.gc, []int{200}) || !slices.Equal(r.limits, []int64{128 << 20}) || c.memoryLimit == nil || c.gcPercent == nil {
		t.Fatalf("GC percent %v, limits %v, hooks %v %v: want 200, 128MiB and both hooks", r.gc, r.limits, c.memoryLimit != nil, c.gcPercent != nil)
	}
	c.memoryLimit(300 << 20)
	c.gcPercent(400)
	if !slices.Equal(r.limits, []int64{128 << 20, 300 << 20}) || !slices.Equal(r.gc, []int{200, 400}) {
		t.Fatalf("limits %v, GC percent %v: the hooks set none", r.limits, r.gc)
	}
	var user recorder
	env := Env{"GOGC=50", "GOMEMLIMIT=1GiB"}
	if c := user.process(env...).tuneGC(env.Lookup); c.memoryLimit != nil || c.gcPercent != nil || user.gc != nil || user.limits != nil {
		t.Fatalf("with the user's GOGC and GOMEMLIMIT: GC percent %v, limits %v, hooks %v %v", user.gc, user.limits, c.memoryLimit != nil, c.gcPercent != nil)
	}
}

// diff sets its own GOGC through the host's hook (diffGCPercent), where the
// user set none; render keeps tuneGC's.
func TestDiffSetsItsGCPercent(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"p.yaml": "vars: {}\n", "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n"}
	testtool.WriteFiles(t, filepath.Join(dir, "head"), files)
	testtool.WriteFiles(t, filepath.Join(dir, "base"), files)
	for _, c := range []struct {
		args []string
		want []int
	}{
		{[]string{"diff", "--base-dir", "../base", "-p", "p.yaml", "a.yaml"}, []int{diffGCPercent}},
		{[]string{"render", "-p", "p.yaml", "a.yaml"}, nil},
	} {
		var out, errb bytes.Buffer
		h := newHost(validator.APIServer{}, nil, c.args, strings.NewReader(""), &out, &errb, inTree(filepath.Join(dir, "head")), noEnv)
		var set []int
		h.gcPercent = func(n int) { set = append(set, n) }
		if code := h.execute(); code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		if !slices.Equal(set, c.want) {
			t.Errorf("%v: GOGC set to %v, want %v", c.args, set, c.want)
		}
	}
}

// A render in-process leaves the test process's memory limit alone, and
// the host's hook is told the limits instead.
func TestRenderSetsNoProcessMemoryLimit(t *testing.T) {
	fsys := fstest.MapFS{
		"p.yaml": {Data: []byte("vars: {}\n")},
		"a.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n")},
	}
	before := debug.SetMemoryLimit(-1)
	var out, errb bytes.Buffer
	h := newHost(nil, nil, []string{"render", "-p", "p.yaml", "a.yaml"}, strings.NewReader(""), &out, &errb, filesys.NewMem(fsys), noEnv)
	var told []int64
	h.memoryLimit = func(n int64) { told = append(told, n) }
	if code := h.execute(); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("the render set the process's memory limit from %d to %d", before, got)
	}
	if len(told) == 0 {
		t.Fatal("the host's memory limit hook was told nothing")
	}
}

// KRENDER_DEBUG is read from the environment handed over, not the test's.
func TestInternalErrorStackFromHandedEnvironment(t *testing.T) {
	for _, env := range []Env{nil, {"KRENDER_DEBUG=1"}} {
		var out, errb bytes.Buffer
		code := runWith([]string{"render", "-p", "p.yaml", "t.yaml"}, strings.NewReader(""), &out, &errb, &panicFS{}, env.Lookup)
		if code != exitError {
			t.Fatalf("%v: exit %d", env, code)
		}
		if stack := strings.Contains(errb.String(), "goroutine"); stack != (env != nil) {
			t.Errorf("%v: stack printed %v:\n%s", env, stack, errb.String())
		}
	}
}

// A command handed over to krender-check is looked up on the handed
// environment's PATH and gets that environment, not the test process's
// (with the word of this build that package handover adds).
func TestDelegateUsesHandedEnvironment(t *testing.T) {
	printEnv, err := exec.LookPath("env") // the handed PATH has only bin
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	script := "#!/bin/sh\nexec " + printEnv + "\n"
	if err := os.WriteFile(filepath.Join(bin, handover.Binary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"p.yaml": "vars: {}\n", "a.yaml": "kind: ConfigMap\n", "crd.yaml": "kind: CustomResourceDefinition\n"})
	environ := Env{"PATH=" + bin, "KRENDER_HANDED=yes"}
	var out, errb bytes.Buffer
	h := newHost(nil, nil, []string{"check", "-p", "p.yaml", "--crds", "crd.yaml", "a.yaml"}, strings.NewReader(""), &out, &errb, inTree(dir), environ.Lookup)
	h.environ = environ
	if code := h.execute(); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !slices.Contains(got, "KRENDER_HANDED=yes") {
		t.Errorf("krender-check's environment lacks KRENDER_HANDED=yes:\n%s", out.String())
	}
	for _, l := range got {
		name, _, _ := strings.Cut(l, "=")
		if _, handed := environ.Lookup(name); !handed && os.Getenv(name) != "" && name != "PWD" {
			t.Errorf("krender-check got the test process's %s", name)
		}
	}
}

// krender-check is handed the GOGC the command runs with where the user
// set none, so that its package initialisation runs under it; the user's
// GOGC, when set, it gets as it is.
func TestDelegateHandsItsGCPercent(t *testing.T) {
	printEnv, err := exec.LookPath("env")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, handover.Binary), []byte("#!/bin/sh\nexec "+printEnv+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"p.yaml": "vars: {}\n", "a.yaml": "kind: ConfigMap\n", "crd.yaml": "kind: CustomResourceDefinition\n"})
	diff := []string{"diff", "--base-dir", ".", "-p", "p.yaml", "a.yaml"}
	check := []string{"check", "-p", "p.yaml", "--crds", "crd.yaml", "a.yaml"}
	for _, c := range []struct {
		name    string
		args    []string
		environ Env
		gogc    int // what tuneGC said: 0 where the user's GOGC decides
		want    []string
	}{
		{"diff", diff, Env{"PATH=" + bin}, renderGCPercent, []string{"GOGC=" + strconv.Itoa(diffGCPercent)}},
		{"diff, GOGC empty", diff, Env{"GOGC=", "PATH=" + bin}, renderGCPercent, []string{"GOGC=" + strconv.Itoa(diffGCPercent)}},
		{"check", check, Env{"PATH=" + bin}, renderGCPercent, []string{"GOGC=" + strconv.Itoa(renderGCPercent)}},
		{"the user's", diff, Env{"GOGC=150", "PATH=" + bin}, 0, []string{"GOGC=150"}},
		{"a test's host", diff, Env{"PATH=" + bin}, 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			h := newHost(nil, nil, c.args, strings.NewReader(""), &out, &errb, inTree(dir), c.environ.Lookup)
			h.environ, h.gogc = c.environ, c.gogc
			if c.gogc != 0 {
				h.gcPercent = func(int) {}
			}
			if code := h.execute(); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if strings.HasPrefix(l, "GOGC=") {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("krender-check's GOGC: %q, want %q", got, c.want)
			}
		})
	}
}
