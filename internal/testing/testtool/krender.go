package testtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
	buildOut  []byte
)

// Krender builds the krender command once per test process, with VCS
// stamping on (this machine's GOFLAGS turns it off), for the tests that
// must run it as a separate program: kustomize and Argo CD start it
// themselves. krender-check, which krender runs for check and fn, is built
// beside it. -short skips them. Call Main from TestMain to remove them.
func Krender(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIP: -short: builds the krender binary")
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "krender-bin-"); buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "krender")
		// go test puts its own GOROOT/bin first on PATH: "go" is the toolchain running the tests.
		cmd := exec.Command("go", "build", "-buildvcs=true", "-o", buildDir+string(filepath.Separator),
			"github.com/krender/krender/cmd/krender", "github.com/krender/krender/cmd/krender-check")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building krender: %v\n%s", buildErr, buildOut)
	}
	return buildPath
}

// Main runs the tests and removes what Krender built.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Cleanup removes what Krender built, for a TestMain of its own.
func Cleanup() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}
