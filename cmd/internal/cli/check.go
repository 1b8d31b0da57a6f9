package cli

import (
	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
	"github.com/krender/krender/lint/report"
)

// checkCmd is `krender check`: flags into an action.Check, its Run, the
// findings printed; the command holds the hand-over to krender-check where
// it lacks the validator.
func checkCmd(h *host) *cobra.Command {
	k := &action.Check{FS: h.fsys}
	c := &cobra.Command{
		Use:   "check -p PROFILE [-t TENANT]... [--crds PATH]... [--format text|json|sarif] PATH... (- reads stdin)",
		Short: "Render in memory and report manifests that will misbehave at run time",
		Example: `  # Findings as file:line:col, exit 1 on errors
  krender check -p profiles/prod.yaml templates/

  # One tenant, as SARIF for GitHub code scanning
  krender check -p profiles/prod.yaml -t tenant-b --format sarif templates/ > krender.sarif`,
		RunE: func(c *cobra.Command, args []string) error {
			k.Paths, k.Verbose, k.Validator = args, h.verbose > 0, h.validator
			// An unknown --format is refused before anything is read, and
			// --crds goes to krender-check at once.
			if err := k.Refuse(); h.needsValidator(err) {
				return h.delegate() // CRDs need the API server's code
			} else if err != nil {
				return err
			}
			if err := h.holdStdin(args); err != nil {
				return err
			}
			k.Stdin = h.stdin
			ctx, stop := h.interruptible()
			res, err := k.Run(ctx)
			if err = stop(err); h.needsValidator(err) {
				return h.delegate()
			}
			if err != nil {
				return err
			}
			stdout := h.masked(h.stdout)
			if err := report.Write(stdout, res.Format, res.Findings); err != nil {
				return err
			}
			if err := stdout.Flush(); err != nil {
				return err
			}
			if res.HasErrors() {
				return errFindings
			}
			return nil
		},
	}
	renderFlags(c, &k.Options, h)
	c.Flags().StringVar(&k.Format, "format", "text", "output format: text, json or sarif (SARIF 2.1.0, for GitHub code scanning)")
	return c
}
