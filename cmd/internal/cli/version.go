package cli

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionString says which build this is: the module version `go install
// module@version` stamps, or for a local build "(devel)" and the commit it
// was built from, so a CI log ties rendered output to a revision.
func versionString(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "krender (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	out := "krender " + v
	switch {
	case rev != "":
		out += " revision " + rev
		if modified {
			out += " (modified)"
		}
	case v == "(devel)":
		// A worktree, a tarball or -buildvcs=false: go stamps no revision.
		out += " revision unknown"
	}
	return out + " " + bi.GoVersion
}

func buildVersion() string { return versionString(debug.ReadBuildInfo()) }

// moduleVersion is what `go install ...@VERSION` takes for this build:
// its module version, or latest for a local build.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "latest"
}

func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print krender's module version and VCS revision",
		Example: `  krender version
  krender --version`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(stdout, buildVersion())
			return err
		},
	}
}
