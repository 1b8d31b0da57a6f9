package cli

import (
	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
	"github.com/krender/krender/lint/rule"
)

// schemaCmd is `krender schema`: an action.Schema with check's rule ids,
// its Run, the bytes printed.
func schemaCmd(h *host) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the profile format as a JSON Schema (draft-07), for editors: # yaml-language-server: $schema=...",
		Example: `  # Then start a profile with: # yaml-language-server: $schema=krender-profile.schema.json
  krender schema > krender-profile.schema.json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) (err error) {
			ctx, stop := h.interruptible()
			defer func() { err = stop(err) }()
			s, err := (&action.Schema{Rules: rule.IDs()}).Run(ctx)
			if err != nil {
				return err
			}
			_, err = h.stdout.Write(s.JSON)
			return err
		},
	}
}
