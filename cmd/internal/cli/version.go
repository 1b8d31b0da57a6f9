package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
)

// buildVersion is this binary's version line (action.Version).
func buildVersion() string { return (&action.Version{}).Run() }

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
