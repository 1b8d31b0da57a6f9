// Command krender renders Kubernetes manifests from templates and a
// per-environment profile, substituting only the profile's variables.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/lint"
	"github.com/krender/krender/render"
)

// Exit statuses, as kubectl-adjacent linters use them.
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

func main() {
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, render.OSFS{}))
}

// tuneGC trades memory for CPU time. A render lasts seconds and the YAML
// encoder allocates tens of kilobytes per object that die at once, while the
// live heap stays small (a few tenants and the held-back output): collecting
// at eleven times the live heap, or at the soft limit when that comes first,
// leaves the collector little to do (at 100 tenants of the bench fleet, 6
// collections instead of 12 and about 8% less CPU). The engine sets the limit
// from the tenants it holds at once (render.Options.LimitMemory). GOGC and
// GOMEMLIMIT, when set, are the user's.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(1000)
	}
}

// limitMemory: the engine may set the soft memory limit unless the user did.
var limitMemory = os.Getenv("GOMEMLIMIT") == ""

// errFindings makes a command exit 1 without printing anything more.
var errFindings = errors.New("findings")

// run is the whole CLI; tests call it in-process.
func run(args []string, stdout, stderr io.Writer, fsys render.FS) int {
	root := &cobra.Command{
		Use:           "krender",
		Short:         "Render Kubernetes manifests from templates and a profile, substituting only the profile's variables",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(renderCmd(stdout, stderr, fsys), varsCmd(stdout, fsys), checkCmd(stdout, stderr, fsys), versionCmd(stdout))
	err := root.Execute()
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	}
	if filepos.IsInput(err) {
		fmt.Fprintln(stderr, err) // already "file:line:col: message" per line
	} else {
		fmt.Fprintf(stderr, "krender: %v\n", err)
	}
	return exitError
}

func renderFlags(c *cobra.Command, o *render.Options) {
	o.LimitMemory = limitMemory
	c.Flags().StringVarP(&o.Profile, "profile", "p", "", "profile file (required)")
	c.Flags().StringArrayVarP(&o.Tenants, "tenant", "t", nil, "render only this tenant (repeatable)")
	c.Flags().StringArrayVar(&o.Set, "set", nil, "NAME=VALUE: set a deploy-time variable (repeatable; overrides the profile)")
	c.Flags().StringVar(&o.Namespace, "namespace", "", "namespace of objects that name none (default: the profile's, else \"default\")")
	c.Flags().Var(shardFlag{&o.Shard}, "shard", "render only the i-th of n balanced slices of the tenants (one per CI job)")
}

// shardFlag reads --shard i/n.
type shardFlag struct{ s *render.Shard }

func (f shardFlag) String() string { return f.s.String() }
func (f shardFlag) Type() string   { return "i/n" }
func (f shardFlag) Set(v string) (err error) {
	*f.s, err = render.ParseShard(v)
	return err
}

func renderCmd(stdout, stderr io.Writer, fsys render.FS) *cobra.Command {
	var o render.Options
	var out, check string
	var update bool
	c := &cobra.Command{
		Use:   "render -p PROFILE [-t TENANT]... [--set NAME=VALUE]... [-o DIR|-] [--check DIR [--update]] PATH...",
		Short: "Render templates for a profile to stdout or to a directory",
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			if update && check == "" {
				return fmt.Errorf("--update goes with --check DIR")
			}
			e, err := render.New(fsys, o)
			if err != nil {
				return err
			}
			var res *render.Result
			switch {
			case check != "" && update:
				res, err = e.WriteDir(check)
			case check != "":
				var d *render.Diff
				if d, res, err = e.Compare(check); err == nil {
					printNotes(stderr, res)
					if !d.Empty() {
						d.Write(stdout, check, isTerminal(stdout))
						return errFindings
					}
					return nil
				}
			case out == "" || out == "-":
				res, err = e.WriteStream(stdout)
			default:
				res, err = e.WriteDir(out)
			}
			if err != nil {
				return err
			}
			printNotes(stderr, res)
			return nil
		},
	}
	renderFlags(c, &o)
	c.Flags().StringVarP(&out, "output", "o", "-", "write one file per object under DIR (replaced atomically), or - for stdout")
	c.Flags().StringVar(&check, "check", "", "compare the render with DIR (as written by -o DIR): print a diff and exit 1 if they differ")
	c.Flags().BoolVar(&update, "update", false, "with --check: rewrite DIR (atomically) instead of comparing")
	return c
}

func checkCmd(stdout, stderr io.Writer, fsys render.FS) *cobra.Command {
	var o render.Options
	var format string
	c := &cobra.Command{
		Use:   "check -p PROFILE [-t TENANT]... [--format text|json|sarif] PATH...",
		Short: "Render in memory and report manifests that will misbehave at run time",
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			if err := lint.Write(io.Discard, format, nil); err != nil {
				return err
			}
			fs, res, err := lint.Run(fsys, o)
			if err != nil {
				return err
			}
			printNotes(stderr, res)
			if err := lint.Write(stdout, format, fs); err != nil {
				return err
			}
			if lint.HasErrors(fs) {
				return errFindings
			}
			return nil
		},
	}
	renderFlags(c, &o)
	c.Flags().StringVar(&format, "format", "text", "output format: text, json or sarif (SARIF 2.1.0, for GitHub code scanning)")
	return c
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func varsCmd(stdout io.Writer, fsys render.FS) *cobra.Command {
	var o render.Options
	c := &cobra.Command{
		Use:   "vars -p PROFILE [-t TENANT]... PATH...",
		Short: "List every variable reference and whether krender substitutes it or leaves it for run time",
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			e, err := render.New(fsys, o)
			if err != nil {
				return err
			}
			return e.WriteVars(stdout)
		},
	}
	renderFlags(c, &o)
	return c
}

func printNotes(w io.Writer, res *render.Result) {
	for _, n := range res.Notes {
		fmt.Fprintln(w, n.String())
	}
}
