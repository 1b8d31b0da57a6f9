package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action/diff"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/gitfs"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/userfs"
)

// diffCmd is `krender diff`: flags into a diff.Diff over the working tree
// and the base (a git revision, or a second checkout), its Result printed
// as text, markdown or JSON; exit 1 when anything changes. Verdicts need
// the API server's code: where krender-check is installed, the command
// runs in it from the start; without it, krender diffs alone as far as
// the fields settle.
func diffCmd(h *host) *cobra.Command {
	d := &diff.Diff{Head: h.fsys, Validator: h.validator}
	var ref, dir, format string
	var rf *rootFlags
	c := &cobra.Command{
		Use:   "diff --base REF | --base-dir DIR -p PROFILE [-p PROFILE]... [-t TENANT]... [--set NAME=VALUE]... [--shard i/n] [-o text|markdown|json] PATH...",
		Short: "Say what applying the working tree's render over a base's does: which workloads roll where, and why",
		Example: `  # What the working tree's edits do to every tenant of dev and prod (in CI: --base origin/main)
  krender diff --base HEAD -p profiles/dev.yaml -p profiles/prod.yaml templates/

  # As a pull request comment (markdown), one tenant
  krender diff --base HEAD -p profiles/prod.yaml -t tenant-b -o markdown templates/

  # As JSON, against a second checkout of the base
  krender diff --base-dir ../main -p profiles/prod.yaml -o json templates/`,
		RunE: func(c *cobra.Command, args []string) (err error) {
			if err := checkDiffArgs(format, args); err != nil {
				return err
			}
			h.setGCPercent(diffGCPercent)
			if h.validator == nil && (len(d.CRDs) > 0 || h.hasCheckBinary()) {
				// CRDs' transition rules need the API server's code, and
				// nearly every diff that changes a workload does: where
				// krender-check is there, it runs the whole diff at once
				// rather than after krender rendered both sides in vain.
				return h.delegate()
			}
			ctx, stop := h.interruptible()
			defer func() { err = stop(err) }()
			release, err := h.diffBase(ctx, d, ref, dir)
			if err != nil {
				return err
			}
			defer release()
			if err := diffRoots(d, rf, h.fsys); err != nil {
				return err
			}
			d.Paths, d.Diffs = args, format == "markdown"
			res, err := d.Run(ctx)
			if h.needsValidator(err) {
				return h.delegate()
			}
			if err != nil {
				return err
			}
			out := h.masked(h.stdout) // read in CI logs and pull requests
			if err := writeDiff(out, format, res); err != nil {
				return err
			}
			if err := out.Flush(); err != nil {
				return err
			}
			if len(res.Changes) > 0 {
				return errFindings
			}
			return nil
		},
	}
	rf = runFlags(c, &d.Options, h)
	c.Flags().StringArrayVarP(&d.Profiles, "profile", "p", nil, "profile file, read on both sides (required, repeatable)")
	c.Flags().StringVar(&ref, "base", "", "the git revision to compare with (origin/main, a tag, a commit), read from git without touching the work tree, index or refs")
	c.Flags().StringVar(&dir, "base-dir", "", "compare with a second checkout in DIR instead of a git revision (the same paths, read from DIR)")
	c.Flags().StringVarP(&format, "output", "o", "text", "output format: text, markdown (a pull request comment) or json (see docs/diff.md)")
	return c
}

// diffGCPercent is diff's GOGC where the user sets none: the heap grows to
// five times the live heap rather than render's three (tuneGC). A diff's
// live heap is both sides' tenants in flight beside krender-check's own
// (the API server's schemes and conversions), which every collection
// marks again, so fewer collections pay. Measured on the bench fleet
// (hack/bench -diff-only), the binaries alternately: at 1,000 tenants
// GOGC 200, 300, 400 and 600 took 3.86, 3.53, 3.42 and 3.24 s of CPU at a
// peak RSS of 166, 205, 250 and 308 MB; at 100 tenants 200, 400, 600 and
// 1000 took 0.52, 0.46, 0.47 and 0.48 s at 128, 158, 211 and 265 MB. 400
// is the least CPU at 100 tenants and most of the gain at 1,000 for a
// third more memory; the soft limit (both engines', diff.Diff) still
// bounds the heap.
const diffGCPercent = 400

// checkDiffArgs refuses an unknown output format, and standard input as a
// path: diff reads its templates on both sides.
func checkDiffArgs(format string, args []string) error {
	if !slices.Contains([]string{"text", "markdown", "json"}, format) {
		return fmt.Errorf("-o %s: want text, markdown or json", format)
	}
	if slices.Contains(args, loader.StdinPath) {
		return fmt.Errorf("diff reads its templates on both sides: %s (standard input) is no path here", loader.StdinPath)
	}
	return nil
}

// diffBase opens the base: a revision's tree read from git, or a second
// checkout; release lets it go.
func (h *host) diffBase(ctx context.Context, d *diff.Diff, ref, dir string) (release func(), err error) {
	switch {
	case ref != "" && dir != "":
		return nil, errors.New("--base and --base-dir go alone: give one")
	case dir != "":
		abs, err := userfs.Abs(h.fsys, dir)
		if err != nil {
			return nil, err
		}
		if st, err := userfs.Stat(h.fsys, dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--base-dir %s: not a directory", dir)
		}
		d.Base, d.BaseName = filesys.Dir(abs), dir
		return func() {}, nil
	case ref == "":
		return nil, errors.New("a base is required: --base REF (a git revision) or --base-dir DIR")
	}
	bin, ok := lookPath(h.env, "git")
	if !ok {
		return nil, fmt.Errorf("--base %s: git is not on PATH", ref)
	}
	wd, err := userfs.Abs(h.fsys, ".")
	if err != nil {
		return nil, err
	}
	g, err := gitfs.Open(ctx, gitRunner{bin: bin, env: h.environ, dir: wd}, ref)
	if err != nil {
		return nil, err
	}
	d.Base, d.BaseName = g, ref
	return func() { g.Close() }, nil
}

// diffRoots finds each side's load root: outside any work tree, the one
// holding the first profile (see loadroot.New).
func diffRoots(d *diff.Diff, rf *rootFlags, head filesys.Reader) (err error) {
	first := ""
	if len(d.Profiles) > 0 {
		first = d.Profiles[0]
	}
	if d.Root, err = rf.resolve(head, first); err != nil {
		return err
	}
	d.BaseRoot, err = rf.resolve(d.Base, first)
	return err
}
