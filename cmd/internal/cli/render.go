package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/render"
)

// renderCmd is `krender render`: flags into an action.Render, its Run under
// the context signals cancel, then the notes and --check's diff printed.
func renderCmd(h *host) *cobra.Command {
	r := &action.Render{FS: h.fsys, Stdout: h.stdout}
	c := &cobra.Command{
		Use:   "render -p PROFILE [-t TENANT]... [--set NAME=VALUE]... [--set-env NAME[=ENVVAR]]... [--set-file NAME=PATH]... [--redact] [-o DIR|- | --check DIR [--update]] PATH... (- reads stdin)",
		Short: "Render templates for a profile to stdout or to a directory",
		Example: `  # Every tenant of the prod profile, to stdout
  krender render -p profiles/prod.yaml templates/

  # One file per object under rendered/prod (replaced atomically)
  krender render -p profiles/prod.yaml -o rendered/prod templates/

  # In CI: fail when the committed rendered/prod is out of date; then refresh it
  krender render -p profiles/prod.yaml --check rendered/prod templates/
  krender render -p profiles/prod.yaml --check rendered/prod --update templates/

  # One tenant into namespace shop, with a variable set and a CI secret (never printed)
  krender render -p profiles/prod.yaml -t tenant-a -n shop --set LOG_LEVEL=debug --set-env IMAGE_TAG templates/ | kubectl apply -f -`,
		RunE: func(c *cobra.Command, args []string) (err error) {
			ctx, stop := h.interruptible()
			defer func() { err = stop(err) }()
			r.Paths, r.Stdin = args, h.stdin
			r.OutputGiven = c.Flags().Changed("output")
			res, err := r.Run(ctx)
			if err != nil {
				return err
			}
			h.printNotes(h.stderr, res.Result)
			if res.Diff != nil {
				return h.printDiff(res.Diff, r.Check)
			}
			return nil
		},
	}
	renderFlags(c, &r.Options, h)
	c.Flags().BoolVar(&r.Redact, "redact", false, "write every Secret's data and stringData values as digests (krender:sha256:<hex>), for goldens that must not hold secrets")
	c.Flags().StringVarP(&r.Output, "output", "o", "-", "write one file per object under DIR (replaced atomically; only a new or empty DIR, or one krender wrote: see docs/output.md), or - for stdout")
	c.Flags().StringVar(&r.Check, "check", "", "compare the render with DIR (as written by -o DIR): print a diff and exit 1 if they differ")
	c.Flags().BoolVar(&r.Update, "update", false, "with --check: rewrite DIR (atomically) instead of comparing")
	return c
}

// printDiff is render --check DIR's verdict: a diff on stdout and findings
// when the render differs from DIR.
func (h *host) printDiff(d *output.Diff, dir string) error {
	if d.Empty() {
		return nil
	}
	diff := h.masked(h.stdout) // a diff is read in CI logs
	d.Write(diff, dir, isTerminal(h.stdout))
	if err := diff.Flush(); err != nil {
		return err
	}
	return errFindings
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// printNotes prints the stages' warnings, and their info notes with -v.
func (h *host) printNotes(w io.Writer, res *render.Result) {
	for _, n := range res.Notes {
		if n.Severity > filepos.Info || h.verbose > 0 {
			fmt.Fprintln(w, n.String())
		}
	}
}
