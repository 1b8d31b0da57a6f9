package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/lint/check"
)

// needsValidator reports whether err asks for the API server's validation,
// which this process lacks: krender then runs the command in krender-check.
func (h *host) needsValidator(err error) bool {
	return h.validator == nil && errors.Is(err, check.ErrNeedsValidator)
}

// CheckBinary is the program krender runs for a check or fn that needs
// the API server's validation (verdict.Validator).
const CheckBinary = "krender-check"

// parentEnv tells krender-check which krender ran it (its build, as
// JSON), so that a helper of another release is refused rather than
// trusted. legacyParentEnv carries the version line alone, which is what
// a krender-check of an earlier release compares (and then refuses).
const (
	parentEnv       = "KRENDER_PARENT_BUILD"
	legacyParentEnv = "KRENDER_PARENT_VERSION"
)

// exitStatus is a delegated command's exit status, passed on as it is.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// delegate runs this command line in krender-check, with krender's
// standard streams and environment, and exits as it does.
func (h *host) delegate() error {
	bin, err := h.findCheckBinary()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, h.args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = h.stdin, h.stdout, h.rawStderr
	if h.held != nil {
		cmd.Stdin = bytes.NewReader(h.held)
	}
	self, err := json.Marshal(thisBuild())
	if err != nil {
		return err
	}
	cmd.Env = append(slices.Clip(h.environ), parentEnv+"="+string(self), legacyParentEnv+"="+buildVersion())
	err = h.runPassingSignals(cmd)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return exitStatus(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", bin, err)
	}
	return nil
}

// runPassingSignals runs cmd; in the process's own run, a SIGINT or
// SIGTERM that krender gets is passed on to it, which stops as its
// command does and exits as the signal says (a terminal's Ctrl-C reaches
// both; the command takes the first).
func (h *host) runPassingSignals(cmd *exec.Cmd) error {
	if !h.signals {
		return cmd.Run()
	}
	caught := make(chan os.Signal, 1)
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(caught)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case sig := <-caught:
				cmd.Process.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	return cmd.Wait()
}

// hasCheckBinary reports whether findCheckBinary finds krender-check.
func (h *host) hasCheckBinary() bool {
	_, err := h.findCheckBinary()
	return err == nil
}

// findCheckBinary looks beside the running krender (links followed: a
// package manager's bin directory), then on the PATH of h's environment.
func (h *host) findCheckBinary() (string, error) {
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
	if p, ok := lookPath(h.env, CheckBinary); ok {
		return p, nil
	}
	needs := "the API server's validation (CRDs, or fields krender's tables cannot settle)"
	if len(h.args) > 0 && h.args[0] == "gc" {
		needs = "a cluster client (client-go)"
	}
	if len(h.args) > 0 && h.args[0] == "diff" {
		needs = "the API server's validation (its defaults and update validation, for what the fields alone cannot settle)"
	}
	return "", fmt.Errorf("this %s needs %s, which %s runs; it is neither beside %s nor on PATH: install it from the same release as krender (go install github.com/krender/krender/cmd/%s@%s, or make build)", h.args[0], needs, CheckBinary, self, CheckBinary, moduleVersion())
}

// checkParent refuses to run for a krender of another build (sameBuild):
// the two binaries must parse the same flags and profiles. A krender of
// an earlier release sets legacyParentEnv alone.
func checkParent(env LookupEnv) error {
	if raw, ok := env(parentEnv); ok {
		var parent build
		if err := json.Unmarshal([]byte(raw), &parent); err != nil || parent.Contract == "" {
			return fmt.Errorf("%s: the krender that ran %s says %q of its build, which this release does not read: install both from the same release", parentEnv, CheckBinary, raw)
		}
		return sameBuild(parent, thisBuild())
	}
	if parent, ok := env(legacyParentEnv); ok {
		return fmt.Errorf("%s is %q but the krender that ran it is %q: install both from the same release", CheckBinary, buildVersion(), parent)
	}
	return nil
}

// holdStdin reads standard input into memory when a check reads it (a
// PATH of -) and has no Validator: a check delegated half-way then gives
// krender-check the same bytes.
func (h *host) holdStdin(paths []string) error {
	if h.validator != nil || !slices.Contains(paths, loader.StdinPath) {
		return nil
	}
	_, err := h.hold()
	return err
}

// hold reads standard input whole, once, and keeps it for a delegation
// (delegate); the command reads it from memory.
func (h *host) hold() ([]byte, error) {
	if h.held == nil {
		b, err := io.ReadAll(h.stdin)
		if err != nil {
			return nil, err
		}
		h.held = b
	}
	h.stdin = bytes.NewReader(h.held)
	return h.held, nil
}
