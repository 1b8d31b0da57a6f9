package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
)

// tenantsCmd lists a profile's tenants, so that a script can tell a tenant
// profile from a plain one without parsing a render's messages: the Argo CD
// plugin refuses to put every tenant into one Application, and a CI job can
// build its matrix from it.
func tenantsCmd(h *host) *cobra.Command {
	var profile string
	c := &cobra.Command{
		Use:   "tenants -p PROFILE",
		Short: "List the profile's tenants, one a line, in profile order (nothing for a profile without tenants)",
		Example: `  krender tenants -p profiles/prod.yaml
  # one CI job per tenant
  for t in $(krender tenants -p profiles/prod.yaml); do krender render -p profiles/prod.yaml -t "$t" templates -o "rendered/$t"; done`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			names, err := action.Tenants(h.fsys, profile)
			if err != nil {
				return err
			}
			for _, t := range names {
				if _, err := fmt.Fprintln(h.stdout, t); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().StringVarP(&profile, "profile", "p", "", "profile file (required)")
	return c
}
