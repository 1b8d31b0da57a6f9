package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/testtool"
)

func runIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runChecked(t, args, strings.NewReader(""), &out, &errb, filesys.Dir(dir), noEnv)
	return out.String(), errb.String(), code
}

func TestExitStatusAndStreams(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml":     "vars: {A: one}\nhash: {mode: \"off\"}\n", // no note about the unconsumed ConfigMap
		"ok.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-${A}\n",
		"bad.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-${B}\n",
		"notes.yaml": "",
	})
	cases := []struct {
		args       []string
		code       int
		stdout     string // substring; "" means must be empty
		stderrPart string
	}{
		{[]string{"render", "-p", "p.yaml", "ok.yaml"}, 0, "name: c-one", ""},
		{[]string{"render", "-p", "p.yaml", "ok.yaml", "bad.yaml"}, 2, "", "bad.yaml:4:11: undefined variable ${B}"},
		{[]string{"render", "ok.yaml"}, 2, "", "a profile is required"},
		{[]string{"render", "-p", "p.yaml", "--bogus", "ok.yaml"}, 2, "", "unknown flag: --bogus"},
		{[]string{"nosuchcommand"}, 2, "", "unknown command"},
		{[]string{"render", "-p", "p.yaml", "missing.yaml"}, 2, "", "missing.yaml: cannot read template"},
	}
	for _, c := range cases {
		out, errs, code := runIn(t, dir, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errs)
		}
		if c.stdout == "" && out != "" {
			t.Errorf("%v: wrote to stdout on failure: %q", c.args, out)
		}
		if c.stdout != "" && !strings.Contains(out, c.stdout) {
			t.Errorf("%v: stdout %q lacks %q", c.args, out, c.stdout)
		}
		if c.stderrPart != "" && !strings.Contains(errs, c.stderrPart) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errs, c.stderrPart)
		}
		if c.stderrPart == "" && errs != "" {
			t.Errorf("%v: unexpected stderr %q", c.args, errs)
		}
	}
}

// TestOutputDir checks -o DIR: one file per object per tenant, and a failed
// render leaves an existing directory exactly as it was.
func TestOutputDir(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rendered")
	_, errs, code := runIn(t, root, "render", "-p", "profiles/dev.yaml", "-o", out, "templates")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	stream, _, _ := runIn(t, root, "render", "-p", "profiles/dev.yaml", "templates")
	var joined strings.Builder
	var files []string
	for _, tenant := range []string{"tenant-a", "tenant-b"} {
		entries, err := os.ReadDir(filepath.Join(out, tenant))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			files = append(files, tenant+"/"+e.Name())
		}
	}
	if !contains(files, "tenant-a/deployment-mo-back.yaml") || !contains(files, "tenant-b/service-web-portal.yaml") {
		t.Fatalf("unexpected files: %v", files)
	}
	// Every object of the stream is in exactly one file.
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		joined.Write(b)
	}
	if got, want := strings.Count(joined.String(), "\nkind: "), strings.Count(stream, "\nkind: "); got != want {
		t.Fatalf("files hold %d objects, the stream %d", got, want)
	}

	marker := filepath.Join(out, "tenant-a", "deployment-mo-back.yaml")
	before, _ := os.ReadFile(marker)
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"p.yaml": "vars: {}\n", "bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${NOPE}\n"})
	if _, _, code := runIn(t, dir, "render", "-p", "p.yaml", "-o", out, "bad.yaml"); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	after, err := os.ReadFile(marker)
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("a failed render changed the output directory: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".rendered.new-*"))
	if len(leftovers) > 0 {
		t.Fatalf("temporary directories left behind: %v", leftovers)
	}
}

// TestDeterministicAcrossGOMAXPROCS renders the bundled examples with one
// and with several processors: the bytes must not change.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	var outs []string
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, p := range []string{"dev", "stg", "prod"} {
			out, errs, code := runIn(t, root, "render", "-p", "profiles/"+p+".yaml", "templates")
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", p, code, errs)
			}
			outs = append(outs, out)
		}
		runtime.GOMAXPROCS(old)
	}
	for i := 0; i < 3; i++ {
		if outs[i] != outs[i+3] {
			t.Fatalf("profile %d renders differently with GOMAXPROCS=1 and 4", i)
		}
	}
}

func TestHostEnvironmentIsNeverRead(t *testing.T) {
	t.Setenv("HOME", "/should/not/appear")
	t.Setenv("KRENDER_LEAK", "leaked")
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml": "vars: {}\n",
		"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: busybox\n      args: [\"echo $HOME ${KRENDER_LEAK}\"]\n",
	})
	out, errs, code := runIn(t, dir, "render", "-p", "p.yaml", "a.yaml")
	if code != 0 || !strings.Contains(out, `echo $HOME ${KRENDER_LEAK}`) {
		t.Fatalf("exit %d, stderr %q, output %q", code, errs, out)
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestCheckAgainstCommittedDir covers `render --check DIR`: identical,
// changed, missing and extra files, a missing DIR, and --update.
func TestCheckAgainstCommittedDir(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml": "vars: {V: one}\ntenants:\n  t1: {}\n",
		"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: ${V}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
	})
	golden := filepath.Join(dir, "rendered")
	args := []string{"render", "-p", "p.yaml", "a.yaml", "--check", golden}

	out, _, code := runIn(t, dir, args...)
	if code != 1 || !strings.Contains(out, "does not exist") {
		t.Fatalf("missing DIR: exit %d, %q", code, out)
	}
	if _, errs, code := runIn(t, dir, append(args, "--update")...); code != 0 {
		t.Fatalf("--update: exit %d: %s", code, errs)
	}
	if out, _, code := runIn(t, dir, args...); code != 0 || out != "" {
		t.Fatalf("identical: exit %d, %q", code, out)
	}

	out, _, code = runIn(t, dir, "render", "-p", "p.yaml", "--set", "V=two", "a.yaml", "--check", golden)
	wantDiff := "--- " + filepath.Join(golden, "t1", "configmap-a.yaml") + "\n+++ " + filepath.Join(golden, "t1", "configmap-a.yaml") + "\trendered from a.yaml\n"
	if code != 1 || !strings.Contains(out, wantDiff) || !strings.Contains(out, "-  v: one\n+  v: two\n") || strings.Contains(out, "\x1b[") {
		t.Fatalf("changed: exit %d, output:\n%s", code, out)
	}

	if err := os.Remove(filepath.Join(golden, "t1", "configmap-b.yaml")); err != nil {
		t.Fatal(err)
	}
	testtool.WriteFiles(t, golden, map[string]string{"t1/configmap-old.yaml": "kind: ConfigMap\n"})
	out, _, code = runIn(t, dir, args...)
	if code != 1 || !strings.Contains(out, "missing: "+filepath.Join(golden, "t1", "configmap-b.yaml")) ||
		!strings.Contains(out, "extra: "+filepath.Join(golden, "t1", "configmap-old.yaml")) ||
		!strings.HasSuffix(out, "0 changed, 1 missing, 1 extra\n") {
		t.Fatalf("missing+extra: exit %d, output:\n%s", code, out)
	}

	if _, errs, code := runIn(t, dir, "render", "-p", "p.yaml", "a.yaml", "--update"); code != 2 || !strings.Contains(errs, "--update goes with --check") {
		t.Fatalf("--update alone: exit %d, %s", code, errs)
	}
}

// TestOutputThroughGivenFS: -o, --check and --update write and read only
// through the file system run is given, and its errors reach the user.
func TestOutputThroughGivenFS(t *testing.T) {
	src := fstest.MapFS{
		"p.yaml": {Data: []byte("vars: {V: one}\ntenants:\n  t1: {}\n")},
		"a.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: ${V}\n")},
	}
	mem := filesys.NewMem(src)
	runMem := func(fsys filesys.FileSystem, args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr, fsys)
		return stdout.String(), stderr.String(), code
	}
	if out, errs, code := runMem(mem, "render", "-p", "p.yaml", "-o", "rendered", "a.yaml"); code != 0 || out != "" {
		t.Fatalf("-o: exit %d, %q, %s", code, out, errs)
	}
	if b, err := mem.ReadFile("rendered/t1/configmap-a.yaml"); err != nil || !strings.Contains(string(b), "v: one") {
		t.Fatalf("-o wrote %q, %v", b, err)
	}
	if _, err := os.Stat("rendered"); !os.IsNotExist(err) {
		t.Fatalf("-o reached the real file system: %v", err)
	}
	if out, _, code := runMem(mem, "render", "-p", "p.yaml", "--set", "V=two", "--check", "rendered", "a.yaml"); code != 1 || !strings.Contains(out, "+  v: two") {
		t.Fatalf("--check: exit %d, %q", code, out)
	}
	if _, errs, code := runMem(mem, "render", "-p", "p.yaml", "--set", "V=two", "--check", "rendered", "--update", "a.yaml"); code != 0 {
		t.Fatalf("--update: exit %d, %s", code, errs)
	}
	if out, _, code := runMem(mem, "render", "-p", "p.yaml", "--set", "V=two", "--check", "rendered", "a.yaml"); code != 0 || out != "" {
		t.Fatalf("--check after --update: exit %d, %q", code, out)
	}
	out, errs, code := runMem(filesys.ReadOnly(mem), "render", "-p", "p.yaml", "-o", "elsewhere", "a.yaml")
	if code != 2 || out != "" || !strings.Contains(errs, "operation not permitted") {
		t.Fatalf("read-only: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
