package handover

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// stand writes a krender-check of script into a folder of its own and
// returns the folder.
func stand(t *testing.T, script string) string {
	t.Helper()
	bin := t.TempDir()
	testtool.WriteFiles(t, bin, map[string]string{Binary: "#!/bin/sh\n" + script + "\n"})
	if err := os.Chmod(filepath.Join(bin, Binary), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// in is a LookPath that finds what the folder bin holds, and nothing else.
func in(bin string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		p := filepath.Join(bin, name)
		_, err := os.Stat(p)
		return p, err == nil
	}
}

// TestRunHandsOverTheEnvironment: krender-check gets the environment
// handed over, not the test process's, with this build's word, which
// CheckParent accepts.
func TestRunHandsOverTheEnvironment(t *testing.T) {
	printEnv, err := exec.LookPath("env")
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{"KRENDER_HANDED=yes"}
	var out, errb bytes.Buffer
	status, err := Command{Args: []string{"check"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Environ: environ, LookPath: in(stand(t, "exec "+printEnv)), Tree: tree}.Run()
	if err != nil || status != 0 {
		t.Fatalf("status %d, %v: %s", status, err, errb.String())
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		name, value, _ := strings.Cut(l, "=")
		got[name] = value
		if !slices.Contains([]string{"KRENDER_HANDED", parentEnv, legacyParentEnv, "PWD"}, name) && os.Getenv(name) != "" {
			t.Errorf("krender-check got the test process's %s", name)
		}
	}
	if got["KRENDER_HANDED"] != "yes" || got[legacyParentEnv] != thisBuild(tree).Version {
		t.Errorf("krender-check's environment lacks what was handed, or the version line:\n%s", out.String())
	}
	var word build
	if err := json.Unmarshal([]byte(got[parentEnv]), &word); err != nil || word != thisBuild(tree) {
		t.Errorf("%s is %q (%v), want this build %+v", parentEnv, got[parentEnv], err, thisBuild(tree))
	}
	if err := CheckParent(func(name string) (string, bool) { v, ok := got[name]; return v, ok }, tree); err != nil {
		t.Errorf("krender-check of this build refuses its word: %v", err)
	}
}

// TestRunPassesOn: krender-check gets the arguments and standard input as
// given and writes to the streams, and its exit status is returned as it
// is.
func TestRunPassesOn(t *testing.T) {
	var out, errb bytes.Buffer
	status, err := Command{Args: []string{"fn", "--set-env", "A B"}, Stdin: strings.NewReader("list\n"), Stdout: &out, Stderr: &errb,
		LookPath: in(stand(t, `printf '%s|' "$@"; cat; echo oops >&2; exit 3`)), Tree: tree}.Run()
	if err != nil || status != 3 || out.String() != "fn|--set-env|A B|list\n" || errb.String() != "oops\n" {
		t.Errorf("status %d, %v, stdout %q, stderr %q", status, err, out.String(), errb.String())
	}
}

// TestRunWithoutKrenderCheck: neither beside the running program nor on
// PATH, krender-check is missing, and the error says what the command
// needs it for and how to install it.
func TestRunWithoutKrenderCheck(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	for cmd, needs := range map[string]string{
		"check": "needs the API server's validation (CRDs",
		"gc":    "needs a cluster client (client-go)",
		"diff":  "needs the API server's validation (its defaults",
	} {
		_, err := Command{Args: []string{cmd}, LookPath: none, Tree: tree}.Run()
		if err == nil || !strings.Contains(err.Error(), "this "+cmd+" "+needs) || !strings.Contains(err.Error(), "go install github.com/krender/krender/cmd/krender-check@latest") {
			t.Errorf("%s: %v", cmd, err)
		}
	}
}
