package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
)

// tenantsCmd is `krender tenants`: -p into an action.Tenants, its Run, the
// names printed one a line; so that a script can tell a tenant profile from
// a plain one without parsing a render's messages: the Argo CD plugin
// refuses to put every tenant into one Application, and a CI job can build
// its matrix from it.
func tenantsCmd(h *host) *cobra.Command {
	t := &action.Tenants{FS: h.fsys}
	c := &cobra.Command{
		Use:   "tenants -p PROFILE",
		Short: "List the profile's tenants, one a line, in profile order (nothing for a profile without tenants)",
		Example: `  krender tenants -p profiles/prod.yaml
  # one CI job per tenant
  for t in $(krender tenants -p profiles/prod.yaml); do krender render -p profiles/prod.yaml -t "$t" templates -o "rendered/$t"; done`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) (err error) {
			ctx, stop := h.interruptible()
			defer func() { err = stop(err) }()
			res, err := t.Run(ctx)
			if err != nil {
				return err
			}
			for _, name := range res.Names {
				if _, err := fmt.Fprintln(h.stdout, name); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().StringVarP(&t.Profile, "profile", "p", "", "profile file (required)")
	return c
}
