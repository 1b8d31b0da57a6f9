package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/krender/krender/action"
	"github.com/krender/krender/lint/rule"
)

// buildVersion is this binary's version line (action.Version).
func buildVersion() string { return (&action.Version{}).Run() }

// moduleVersion is what `go install ...@VERSION` takes for this build.
func moduleVersion() string { return (&action.Version{}).Module() }

// versionCmd is `krender version`: action.Version's line printed.
func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print krender's module version and VCS revision",
		Example: `  krender version
  krender --version`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(stdout, (&action.Version{}).Run())
			return err
		},
	}
}

// build is what krender and krender-check tell each other of themselves
// at a hand-over: where each came from, and what each reads. The hand-over
// stays in the command line rather than in action.Version: its contract is
// a digest of the cobra command tree (every command and flag) and of
// check's rules, which only this layer sees whole; what the build is comes
// from action.Version.
type build struct {
	// Version is action.Version's line, for messages.
	Version string `json:"version"`
	// Source names the source a build came from: "revision <commit>" of a
	// clean checkout, or "version <v>" of `go install module@v`; "" when
	// the build does not know (-buildvcs=false, a worktree or tarball, a
	// modified checkout).
	Source string `json:"source,omitempty"`
	// Contract is a digest of what the two must read alike (contract).
	Contract string `json:"contract"`
}

// handoverProtocol numbers the way krender hands a command to
// krender-check (the environment it sets, standard input as read, the
// arguments as given). Raise it when that changes: the contract changes
// with it.
const handoverProtocol = 1

// contract is a digest of what krender and krender-check must read alike
// for krender-check to run what krender hands it: every command and flag
// (name, shorthand, type, default), the profile format (krender schema),
// check's rules (ids, severities) and the hand-over (handoverProtocol).
// Each binary computes it from its own code, so two builds of one source
// agree on it however each was built.
func contract() string {
	contractOnce.Do(func() { contractSum = contractOf(newRoot(&host{mask: &masker{}})) })
	return contractSum
}

var (
	contractOnce sync.Once
	contractSum  string
)

// contractOf is contract for the command tree root.
func contractOf(root *cobra.Command) string {
	h := sha256.New()
	fmt.Fprintf(h, "hand-over %d\n", handoverProtocol)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		fmt.Fprintf(h, "command %q\n", c.CommandPath())
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			fmt.Fprintf(h, "flag %q %q %q %q\n", f.Name, f.Shorthand, f.Value.Type(), f.DefValue)
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, r := range rule.All() {
		fmt.Fprintf(h, "rule %q %d\n", r.ID, r.Severity)
	}
	schema, err := (&action.Schema{Rules: rule.IDs()}).Run()
	if err != nil {
		panic(err) // the types are krender's own: a bug, which the tests meet first
	}
	h.Write(schema)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// thisBuild is this binary's build.
func thisBuild() build {
	return build{Version: buildVersion(), Source: (&action.Version{}).Source(), Contract: contract()}
}

// sameBuild says why a krender-check of build self must not run what a
// krender of build parent hands it, or returns nil. Two builds of one
// source agree; where either does not know its source, they must read the
// same command line, profiles and rules (the contract), however each was
// built (make build, go install, -buildvcs=false).
func sameBuild(parent, self build) error {
	if parent.Source != "" && self.Source != "" {
		if parent.Source == self.Source {
			return nil
		}
		if kind(parent.Source) == kind(self.Source) {
			return fmt.Errorf("%s is %q but the krender that ran it is %q, of another %s: install both from the same release",
				CheckBinary, self.Version, parent.Version, kind(self.Source))
		}
	}
	if parent.Contract != self.Contract {
		return fmt.Errorf("%s is %q but the krender that ran it is %q, and they read other flags, profiles or rules: install both from the same release",
			CheckBinary, self.Version, parent.Version)
	}
	return nil
}

// kind is "revision" or "version", the kind of a build.Source.
func kind(source string) string {
	k, _, _ := strings.Cut(source, " ")
	return k
}
