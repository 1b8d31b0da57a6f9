// Package handover is how krender hands a command line to krender-check,
// the binary that links what krender does not (the API server's
// validation, a cluster client), and how the two builds recognise each
// other. krender runs krender-check with the same arguments, standard
// streams and environment, and exits as it does (Command.Run);
// krender-check refuses a krender of another build (CheckParent): two
// builds that know their source must name the same one, and where either
// does not, both must read the same command line, profiles, rules and
// hand-over (Contract).
//
// The command line calls it. It reads no variable of the process's own:
// the environment, the streams and the command tree come from the command
// line, which has them from main.
package handover

import (
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

	"github.com/spf13/cobra"
)

// Binary is the program krender runs for a command that needs what only
// it links: the API server's validation (verdict.Validator), or a cluster
// client (gc.Collector).
const Binary = "krender-check"

// parentEnv tells krender-check which krender ran it (its build, as
// JSON), so that a helper of another release is refused rather than
// trusted. legacyParentEnv carries the version line alone, which is what
// a krender-check of an earlier release compares (and then refuses).
const (
	parentEnv       = "KRENDER_PARENT_BUILD"
	legacyParentEnv = "KRENDER_PARENT_VERSION"
)

// Command is a command line that krender hands to krender-check, with the
// streams and environment that main handed the command line.
type Command struct {
	// Args is the command line as given, the command's name first.
	Args []string
	// Stdin is standard input as krender read it: the bytes a command held
	// before it handed over, else the process's, unread.
	Stdin io.Reader
	// Stdout and Stderr are the process's streams, unmasked.
	Stdout, Stderr io.Writer
	// Environ is the whole environment, which krender-check gets, with
	// this build's word added (parentEnv).
	Environ []string
	// LookPath finds a program on Environ's PATH: krender-check, where it
	// is not beside the running krender.
	LookPath func(name string) (string, bool)
	// Signals passes the SIGINT and SIGTERM krender gets on to
	// krender-check, which only the process's own run does.
	Signals bool
	// Tree is the command tree, whose contract krender-check compares with
	// its own (Contract).
	Tree func() *cobra.Command
}

// Run runs c in krender-check and returns its exit status; an error when
// krender-check cannot be found or run, or ends without a status (a signal
// killed it).
func (c Command) Run() (int, error) {
	bin, err := c.find()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(bin, c.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	self := thisBuild(c.Tree)
	word, err := json.Marshal(self)
	if err != nil {
		return 0, err
	}
	cmd.Env = append(slices.Clip(c.Environ), parentEnv+"="+string(word), legacyParentEnv+"="+self.Version)
	err = c.runPassingSignals(cmd)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("running %s: %w", bin, err)
	}
	return 0, nil
}

// runPassingSignals runs cmd; in the process's own run, a SIGINT or
// SIGTERM that krender gets is passed on to it, which stops as its
// command does and exits as the signal says (a terminal's Ctrl-C reaches
// both; the command takes the first).
func (c Command) runPassingSignals(cmd *exec.Cmd) error {
	if !c.Signals {
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

// Found reports whether there is a krender-check to run, where Run would
// look for it.
func (c Command) Found() bool {
	_, err := c.find()
	return err == nil
}

// find looks beside the running krender (links followed: a package
// manager's bin directory), then on the PATH of c's environment.
func (c Command) find() (string, error) {
	self, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		beside := filepath.Join(filepath.Dir(self), Binary)
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			return beside, nil
		}
	}
	if c.LookPath != nil {
		if p, ok := c.LookPath(Binary); ok {
			return p, nil
		}
	}
	name := ""
	if len(c.Args) > 0 {
		name = c.Args[0]
	}
	needs := "the API server's validation (CRDs, or fields krender's tables cannot settle)"
	switch name {
	case "gc":
		needs = "a cluster client (client-go)"
	case "diff":
		needs = "the API server's validation (its defaults and update validation, for what the fields alone cannot settle)"
	}
	return "", fmt.Errorf("this %s needs %s, which %s runs; it is neither beside %s nor on PATH: install it from the same release as krender (go install github.com/krender/krender/cmd/%s@%s, or make build)", name, needs, Binary, self, Binary, version().Module)
}
