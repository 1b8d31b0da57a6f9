package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/krender/krender/action"
	"github.com/krender/krender/krm"
)

// Linter runs the commands whose reports come from check's linter: check,
// and fn (its results carry the findings). Validating custom resources as
// the API server does links k8s.io/apiextensions-apiserver, with CEL, gRPC,
// OpenTelemetry and Prometheus behind it: 170 more packages to initialise
// and 20 MB more to map on every start (BENCHMARKS.md, "Start-up"). So the
// krender binary links no Linter and runs check and fn in krender-check,
// which is the same command line with one (internal/linter).
type Linter interface {
	// ValidFormat refuses an unknown --format before anything is read.
	ValidFormat(format string) error
	// Check renders in memory with the linter as the last stage, writes
	// the findings to w in format, and says whether any is an error.
	Check(w io.Writer, format string, fsys fs.FS, o action.Options, verbose bool) (errors bool, err error)
	// KRM is the linter krender fn adds to its render for the results.
	KRM() krm.Linter
}

// CheckBinary is the program krender runs for check and fn.
const CheckBinary = "krender-check"

// parentEnv tells krender-check which krender ran it, so that a helper
// from another release is refused rather than trusted.
const parentEnv = "KRENDER_PARENT_VERSION"

// exitStatus is a delegated command's exit status, passed on as it is.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// delegate runs this command line in krender-check, with krender's
// standard streams and environment, and exits as it does.
func (h *host) delegate() error {
	bin, err := findCheckBinary()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, h.args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = h.stdin, h.stdout, h.rawStderr
	cmd.Env = append(os.Environ(), parentEnv+"="+buildVersion())
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return exitStatus(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", bin, err)
	}
	return nil
}

// findCheckBinary looks beside the running krender (links followed: a
// package manager's bin directory), then on PATH.
func findCheckBinary() (string, error) {
	self, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		beside := filepath.Join(filepath.Dir(self), CheckBinary)
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(CheckBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("check and fn run in %s, which is neither beside %s nor on PATH: install it from the same release as krender (go install github.com/krender/krender/cmd/%s@%s, or make build)", CheckBinary, self, CheckBinary, moduleVersion())
}

// checkParent refuses to run for a krender of another build: the two
// binaries must parse the same flags and profiles.
func checkParent(env LookupEnv) error {
	parent, ok := env(parentEnv)
	if !ok || parent == buildVersion() {
		return nil
	}
	return fmt.Errorf("%s is %q but the krender that ran it is %q: install both from the same release", CheckBinary, buildVersion(), parent)
}
