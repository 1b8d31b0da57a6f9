package cli

import (
	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
)

// varsCmd is `krender vars`: the listing is action.Vars', masked here
// because people read it.
func varsCmd(h *host) *cobra.Command {
	var o action.Options
	c := &cobra.Command{
		Use:   "vars -p PROFILE [-t TENANT]... PATH... (- reads stdin)",
		Short: "List every variable reference and whether krender substitutes it or leaves it for run time",
		Example: `  krender vars -p profiles/prod.yaml templates/
  krender vars -p profiles/dev.yaml -t tenant-a templates/billing-api`,
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths, o.Stdin = args, h.stdin
			stdout := h.masked(h.stdout)
			if err := action.Vars(h.fsys, o, stdout); err != nil {
				return err
			}
			return stdout.Flush()
		},
	}
	renderFlags(c, &o, h)
	return c
}
