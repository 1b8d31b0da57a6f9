// Package testtool finds the third-party programs krender's parity tests
// compare against. A missing program skips the test with a visible message,
// unless KRENDER_REQUIRE_TOOLS is set (make test sets it): then it fails.
// Every test that runs an outside program finds it here, so the variable
// means the same thing everywhere.
package testtool

import (
	"os"
	"os/exec"
	"testing"
)

// Required reports whether a missing tool fails the test instead of
// skipping it: KRENDER_REQUIRE_TOOLS is set to anything but "" or "0".
func Required() bool {
	v := os.Getenv("KRENDER_REQUIRE_TOOLS")
	return v != "" && v != "0"
}

// Find returns the program named by the environment variable env, else the
// first of candidates that is an executable file (a path, or a name looked
// up in PATH). why says what is left unchecked without it.
func Find(t testing.TB, env string, candidates []string, why string) string {
	t.Helper()
	return FindUsable(t, env, candidates, nil, why)
}

// FindUsable is Find for programs that must also pass usable (a Python
// interpreter with a module installed, say); a nil usable accepts any.
func FindUsable(t testing.TB, env string, candidates []string, usable func(path string) bool, why string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		candidates = append([]string{p}, candidates...)
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil && (usable == nil || usable(p)) {
			return p
		}
	}
	Missing(t, candidates[len(candidates)-1]+" not found (set "+env+" or run hack/tools.sh): "+why)
	return ""
}

// Missing ends a test that something it needs is missing for (a tool, the
// go command, the module cache): a skip that says so, or, under
// KRENDER_REQUIRE_TOOLS, a failure, so that CI never passes a guard it did
// not run.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if Required() {
		t.Fatal(msg)
	} else {
		t.Skip("SKIP: " + msg)
	}
}
