package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/model/profiles/schema"
)

func schemaCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the profile format as a JSON Schema (draft-07), for editors: # yaml-language-server: $schema=...",
		Example: `  # Then start a profile with: # yaml-language-server: $schema=krender-profile.schema.json
  krender schema > krender-profile.schema.json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			b, err := schema.Generate(rule.IDs())
			if err != nil {
				return err
			}
			_, err = stdout.Write(b)
			return err
		},
	}
}
