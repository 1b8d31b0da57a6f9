package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
)

// buildVersion is this binary's version line (action.Version), for
// --version.
func buildVersion() string {
	v, _ := (&action.Version{}).Run(context.Background()) // only a context that is done fails it
	return v.Line
}

// versionCmd is `krender version`: action.Version's line printed.
func versionCmd(h *host) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print krender's module version and VCS revision",
		Example: `  krender version
  krender --version`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) (err error) {
			ctx, stop := h.interruptible()
			defer func() { err = stop(err) }()
			v, err := (&action.Version{}).Run(ctx)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(h.stdout, v.Line)
			return err
		},
	}
}
