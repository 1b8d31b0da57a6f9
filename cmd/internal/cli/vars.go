package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
)

// varsCmd is `krender vars`: flags into an action.Vars, its Run, the rows
// printed as a table, masked here because people read it.
func varsCmd(h *host) *cobra.Command {
	v := &action.Vars{FS: h.fsys}
	c := &cobra.Command{
		Use:   "vars -p PROFILE [-t TENANT]... PATH... (- reads stdin)",
		Short: "List every variable reference and whether krender substitutes it or leaves it for run time",
		Example: `  krender vars -p profiles/prod.yaml templates/
  krender vars -p profiles/dev.yaml -t tenant-a templates/billing-api`,
		RunE: func(c *cobra.Command, args []string) (err error) {
			ctx, stop := h.interruptible()
			defer func() { err = stop(err) }()
			v.Paths, v.Stdin = args, h.stdin
			res, err := v.Run(ctx)
			if err != nil {
				return err
			}
			stdout := h.masked(h.stdout)
			fmt.Fprintf(stdout, "substitution.dialect: %s\n", res.Dialect)
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "LOCATION\tTENANT\tREFERENCE\tREADER\tACTION")
			for _, r := range res.Rows {
				tenant := r.Tenant
				if tenant == "" {
					tenant = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Location, tenant, r.Reference, r.Reader, r.Action)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return stdout.Flush()
		},
	}
	renderFlags(c, &v.Options, h)
	return c
}
