package handover

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/krender/krender/action"
	"github.com/krender/krender/lint/rule"
)

// build is what krender and krender-check tell each other of themselves
// at a hand-over: where each came from, and what each reads. What the
// build is comes from action.Version; its contract is a digest of the
// command tree (every command and flag), which only the command line sees
// whole and hands in, and of check's rules.
type build struct {
	// Version is action.Version's line, for messages.
	Version string `json:"version"`
	// Source names the source a build came from: "revision <commit>" of a
	// clean checkout, or "version <v>" of `go install module@v`; "" when
	// the build does not know (-buildvcs=false, a worktree or tarball, a
	// modified checkout).
	Source string `json:"source,omitempty"`
	// Contract is a digest of what the two must read alike (Contract).
	Contract string `json:"contract"`
}

// protocol numbers the way krender hands a command to krender-check (the
// environment it sets, standard input as read, the arguments as given).
// Raise it when that changes: the contract changes with it.
const protocol = 1

// Contract is a digest of what krender and krender-check must read alike
// for krender-check to run what krender hands it: every command and flag
// of the command tree root (name, shorthand, type, default), the profile
// format (krender schema), check's rules (ids, severities) and the
// hand-over (protocol). Each binary computes it from its own code, so two
// builds of one source agree on it however each was built.
func Contract(root *cobra.Command) string {
	h := sha256.New()
	fmt.Fprintf(h, "hand-over %d\n", protocol)
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
	schema, err := (&action.Schema{Rules: rule.IDs()}).Run(context.Background())
	if err != nil {
		panic(err) // the types are krender's own: a bug, which the tests meet first
	}
	h.Write(schema.JSON)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// thisBuild is this binary's build, tree its command tree.
func thisBuild(tree func() *cobra.Command) build {
	v := version()
	return build{Version: v.Line, Source: v.Source, Contract: Contract(tree())}
}

// version is which build this binary is (action.Version).
func version() *action.VersionResult {
	v, _ := (&action.Version{}).Run(context.Background()) // only a context that is done fails it
	return v
}

// CheckParent is krender-check's first step: it refuses to run for a
// krender of another build (sameBuild), since the two binaries must parse
// the same flags and profiles. env is the environment main handed the
// command line, which tells the build of the krender that ran this one,
// if any; tree is this binary's command tree. A krender of an earlier
// release sets legacyParentEnv alone.
func CheckParent(env func(name string) (string, bool), tree func() *cobra.Command) error {
	if raw, ok := env(parentEnv); ok {
		var parent build
		if err := json.Unmarshal([]byte(raw), &parent); err != nil || parent.Contract == "" {
			return fmt.Errorf("%s: the krender that ran %s says %q of its build, which this release does not read: install both from the same release", parentEnv, Binary, raw)
		}
		return sameBuild(parent, thisBuild(tree))
	}
	if parent, ok := env(legacyParentEnv); ok {
		return fmt.Errorf("%s is %q but the krender that ran it is %q: install both from the same release", Binary, version().Line, parent)
	}
	return nil
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
				Binary, self.Version, parent.Version, kind(self.Source))
		}
	}
	if parent.Contract != self.Contract {
		return fmt.Errorf("%s is %q but the krender that ran it is %q, and they read other flags, profiles or rules: install both from the same release",
			Binary, self.Version, parent.Version)
	}
	return nil
}

// kind is "revision" or "version", the kind of a build.Source.
func kind(source string) string {
	k, _, _ := strings.Cut(source, " ")
	return k
}
