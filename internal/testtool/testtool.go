// Package testtool finds the third-party programs krender's parity tests
// compare against. A missing program skips the test with a visible message,
// unless KRENDER_REQUIRE_TOOLS is set (make test sets it): then it fails.
package testtool

import (
	"os"
	"os/exec"
	"testing"
)

// Find returns the program named by the environment variable env, else the
// first of candidates that exists (a path, or a name looked up in PATH).
// why says what is left unchecked without it.
func Find(t testing.TB, env string, candidates []string, why string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	if os.Getenv("KRENDER_REQUIRE_TOOLS") != "" {
		t.Fatalf("%s not found (set %s or install it): %s", candidates[len(candidates)-1], env, why)
	}
	t.Skipf("SKIP: %s not found (set %s or install it): %s", candidates[len(candidates)-1], env, why)
	return ""
}
