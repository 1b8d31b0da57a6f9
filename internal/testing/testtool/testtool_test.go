package testtool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB whose Skip and Fatal only record.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...) }

func TestFind(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")

	// The variable comes first; a file that is not executable is passed over.
	t.Setenv("KRENDER_TEST_TOOL", prog)
	if got := Find(&recorder{TB: t}, "KRENDER_TEST_TOOL", []string{missing}, "why"); got != prog {
		t.Errorf("named by the variable: got %q, want %q", got, prog)
	}
	t.Setenv("KRENDER_TEST_TOOL", plain)
	if got := Find(&recorder{TB: t}, "KRENDER_TEST_TOOL", []string{missing, prog}, "why"); got != prog {
		t.Errorf("non-executable variable: got %q, want the candidate %q", got, prog)
	}
	t.Setenv("KRENDER_TEST_TOOL", "")
	if got := FindUsable(&recorder{TB: t}, "KRENDER_TEST_TOOL", []string{prog}, func(string) bool { return false }, "why"); got != "" {
		t.Errorf("an unusable program was returned: %q", got)
	}

	// Missing: skipped, unless KRENDER_REQUIRE_TOOLS says fail.
	for _, c := range []struct{ require, want string }{{"", "skip"}, {"0", "skip"}, {"1", "fail"}, {"yes", "fail"}} {
		t.Setenv("KRENDER_REQUIRE_TOOLS", c.require)
		r := &recorder{TB: t}
		Find(r, "KRENDER_TEST_TOOL", []string{missing}, "what is left unchecked")
		got := "skip"
		msg := r.skipped
		if r.failed != "" {
			got, msg = "fail", r.failed
		}
		if got != c.want || r.skipped != "" && r.failed != "" {
			t.Errorf("KRENDER_REQUIRE_TOOLS=%q: skipped %q, failed %q; want %s", c.require, r.skipped, r.failed, c.want)
		}
		if !strings.Contains(msg, missing+" not found (set KRENDER_TEST_TOOL") || !strings.Contains(msg, "what is left unchecked") {
			t.Errorf("KRENDER_REQUIRE_TOOLS=%q: message %q does not name the program, the variable and the reason", c.require, msg)
		}
	}
}
