// Command krender renders Kubernetes manifests from templates and a
// per-environment profile, substituting only the profile's variables.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/lint"
	"github.com/krender/krender/output"
	"github.com/krender/krender/redact"
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
	os.Exit(runWith(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, render.OSFS{}, afero.NewOsFs(), os.LookupEnv))
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
	if limitMemory {
		// Until the engine knows its units: parsing a hostile file near the
		// limits would otherwise grow to eleven times its live heap.
		debug.SetMemoryLimit(128 << 20)
	}
}

// limitMemory: the engine may set the soft memory limit unless the user did.
var limitMemory = os.Getenv("GOMEMLIMIT") == ""

// errFindings makes a command exit 1 without printing anything more.
var errFindings = errors.New("findings")

// run is the whole CLI with empty standard input and an empty environment;
// tests call it in-process. Templates and profiles are read from fsys; -o
// DIR, --check DIR and the spool of a large stream go through outFS.
func run(args []string, stdout, stderr io.Writer, fsys render.FS, outFS afero.Fs) int {
	return runWith(args, strings.NewReader(""), stdout, stderr, fsys, outFS, noEnv)
}

func noEnv(string) (string, bool) { return "", false }

// host is what the commands use of the process: files, streams, the
// environment (only --set-env reads it), and the mask for secret values.
type host struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	fsys           render.FS
	outFS          afero.Fs
	env            LookupEnv
	mask           *masker
}

// masked holds w's output back until the command is done and masks the
// secret values in it: for text people read, never for manifests.
func (h *host) masked(w io.Writer) *redact.Writer { return redact.NewWriter(w, h.mask.get) }

// secrets reads --set-env and --set-file into o, and from then on every
// masked output hides their values.
func (h *host) secrets(o *render.Options, f *secretFlags) error {
	s, err := f.resolve(h.fsys, h.env)
	if err != nil {
		return err
	}
	o.Secrets = s
	h.mask.add(s)
	return nil
}

// runWith is run with standard input (krender fn) and the environment
// lookup (--set-env) injected. A panic below it is an internal error.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer, fsys render.FS, outFS afero.Fs, env LookupEnv) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = internalError(stderr, &render.InternalError{Value: r, Stack: debug.Stack()})
		}
	}()
	h := &host{stdin: stdin, stdout: stdout, fsys: fsys, outFS: outFS, env: env, mask: &masker{}}
	errw := h.masked(stderr)
	defer errw.Flush()
	h.stderr = errw
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
	root.SetErr(errw)
	root.AddCommand(renderCmd(h), varsCmd(h), checkCmd(h), versionCmd(stdout), schemaCmd(stdout), fnCmd(h))
	err := root.Execute()
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	case errors.As(err, new(*render.InternalError)):
		return internalError(stderr, err)
	}
	if filepos.IsInput(err) {
		fmt.Fprintln(errw, err) // already "file:line:col: message" per line
	} else {
		fmt.Fprintf(errw, "krender: %v\n", err)
	}
	return exitError
}

// internalError reports a bug (a panic anywhere below main) without the
// stack a user cannot act on, and exits 2 like any refused input.
func internalError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "krender: internal error: %v\n", err)
	fmt.Fprintln(stderr, "krender: this is a bug in krender; please report it at https://github.com/krender/krender/issues with the command and the files it read")
	var ie *render.InternalError
	if errors.As(err, &ie) && os.Getenv("KRENDER_DEBUG") != "" {
		stderr.Write(ie.Stack)
	}
	return exitError
}

func renderFlags(c *cobra.Command, o *render.Options, h *host) {
	o.LimitMemory = limitMemory
	o.Once = true // each command renders once
	var sf secretFlags
	sf.register(c)
	c.PreRunE = func(*cobra.Command, []string) error { return h.secrets(o, &sf) }
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

func renderCmd(h *host) *cobra.Command {
	stdout, stderr, fsys, outFS := h.stdout, h.stderr, h.fsys, h.outFS
	var o render.Options
	var out, check string
	var update bool
	c := &cobra.Command{
		Use:   "render -p PROFILE [-t TENANT]... [--set NAME=VALUE]... [--set-env NAME[=ENVVAR]]... [--set-file NAME=PATH]... [--redact] [-o DIR|-] [--check DIR [--update]] PATH...",
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
			w := output.Writer{FS: outFS}
			var res *render.Result
			switch {
			case check != "" && update:
				res, err = w.WriteDir(e, check)
			case check != "":
				var d *output.Diff
				if d, res, err = w.Compare(e, check); err == nil {
					printNotes(stderr, res)
					if !d.Empty() {
						diff := h.masked(stdout) // a diff is read in CI logs
						d.Write(diff, check, isTerminal(stdout))
						if err := diff.Flush(); err != nil {
							return err
						}
						return errFindings
					}
					return nil
				}
			case out == "" || out == "-":
				res, err = w.WriteStream(e, stdout)
			default:
				res, err = w.WriteDir(e, out)
			}
			if err != nil {
				return err
			}
			printNotes(stderr, res)
			return nil
		},
	}
	renderFlags(c, &o, h)
	c.Flags().BoolVar(&o.Redact, "redact", false, "write every Secret's data and stringData values as digests (krender:sha256:<hex>), for goldens that must not hold secrets")
	c.Flags().StringVarP(&out, "output", "o", "-", "write one file per object under DIR (replaced atomically), or - for stdout")
	c.Flags().StringVar(&check, "check", "", "compare the render with DIR (as written by -o DIR): print a diff and exit 1 if they differ")
	c.Flags().BoolVar(&update, "update", false, "with --check: rewrite DIR (atomically) instead of comparing")
	return c
}

func checkCmd(h *host) *cobra.Command {
	stderr, fsys := h.stderr, h.fsys
	var o render.Options
	var format string
	var cfg lint.Config
	c := &cobra.Command{
		Use:   "check -p PROFILE [-t TENANT]... [--crds PATH]... [--format text|json|sarif] PATH...",
		Short: "Render in memory and report manifests that will misbehave at run time",
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			if err := lint.Write(io.Discard, format, nil); err != nil {
				return err
			}
			fs, res, err := lint.Run(fsys, o, cfg)
			if err != nil {
				return err
			}
			printNotes(stderr, res)
			stdout := h.masked(h.stdout)
			if err := lint.Write(stdout, format, fs); err != nil {
				return err
			}
			if err := stdout.Flush(); err != nil {
				return err
			}
			if lint.HasErrors(fs) {
				return errFindings
			}
			return nil
		},
	}
	renderFlags(c, &o, h)
	c.Flags().StringVar(&format, "format", "text", "output format: text, json or sarif (SARIF 2.1.0, for GitHub code scanning)")
	c.Flags().StringArrayVar(&cfg.CRDs, "crds", nil, "a file or directory of CustomResourceDefinitions to check custom resources against, besides those rendered (repeatable)")
	return c
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func varsCmd(h *host) *cobra.Command {
	var o render.Options
	c := &cobra.Command{
		Use:   "vars -p PROFILE [-t TENANT]... PATH...",
		Short: "List every variable reference and whether krender substitutes it or leaves it for run time",
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			e, err := render.New(h.fsys, o)
			if err != nil {
				return err
			}
			stdout := h.masked(h.stdout)
			if err := e.WriteVars(stdout); err != nil {
				return err
			}
			return stdout.Flush()
		},
	}
	renderFlags(c, &o, h)
	return c
}

func printNotes(w io.Writer, res *render.Result) {
	for _, n := range res.Notes {
		fmt.Fprintln(w, n.String())
	}
}
