// Package cli is krender's command line: the commands, their flags and
// exit statuses, over the engine and the actions.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/krender/krender/action"
	"github.com/krender/krender/action/gc"
	"github.com/krender/krender/cmd/internal/handover"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/internal/bug"
	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
)

// Exit statuses, as kubectl-adjacent linters use them.
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// Main is the program: it settles the process's own settings (the
// collector, through p; yqlib's switches are the actions', see
// yqexpr.Settle), runs the command line and returns the exit status, which
// only main gives. v is the API server's validation for check and fn, c
// runs gc against a cluster; krender passes nil for both and runs
// krender-check where a command needs them (see verdict.Validator,
// gc.Collector). p is the process's environment and settings, which only
// main reads and sets.
func Main(v verdict.Validator, c gc.Collector, p Process) int {
	env := Env(p.Environ).Lookup
	tuned := p.tuneGC(env)
	if v != nil {
		if err := handover.CheckParent(env, contractTree); err != nil {
			fmt.Fprintf(os.Stderr, "krender: %v\n", err)
			return exitError
		}
	}
	h := newHost(v, nil, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, filesys.OS, env)
	h.environ, h.memoryLimit, h.gcPercent, h.gogc = p.Environ, tuned.memoryLimit, tuned.gcPercent, tuned.gogc
	h.collector, h.signals = c, true
	return h.execute()
}

// errFindings makes a command exit 1 without printing anything more.
var errFindings = errors.New("findings")

// host is what the commands use of the process: files, streams, the
// environment (LookupEnv), and the mask for secret values.
type host struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	fsys           filesys.FileSystem
	env            LookupEnv
	mask           *masker
	verbose        int // -v: info notes too (kubectl's -v raises verbosity)
	// validator is the API server's validation; nil: krender-check's
	// (delegate).
	validator verdict.Validator
	// collector runs gc; nil: krender-check's (delegate).
	collector gc.Collector
	// args and rawStderr are the command line and the unmasked standard
	// error, which a delegated command gets as they are.
	args      []string
	rawStderr io.Writer
	// held is standard input as read before a delegation (holdStdin).
	held []byte
	// afterStage sees every stage's output (tests; action.Options).
	afterStage func(stage string, s *manifest.Set)
	// ctx is the run's context (tests cancel it); signals: commands that
	// write cancel it on SIGINT and SIGTERM (interruptible), which only
	// the process's own run does.
	ctx     context.Context
	signals bool
	// environ is the whole environment, which a delegated command gets
	// (Process.Environ); memoryLimit sets the process's soft memory limit
	// as the actions learn what a run needs, and gcPercent GOGC for a
	// command that wants its own (collector); nil: the user's, or a test's.
	environ     []string
	memoryLimit func(int64)
	gcPercent   func(int)
	// gogc is the GOGC the command runs with where the user set none,
	// which krender-check is handed too (childEnviron); 0: the user's.
	gogc int
}

// setGCPercent gives the command GOGC n where the user set none.
func (h *host) setGCPercent(n int) {
	if h.gcPercent != nil {
		h.gcPercent(n)
	}
	if h.gogc != 0 {
		h.gogc = n
	}
}

// masked holds w's output back until the command is done and masks the
// secret values in it: for text people read, never for manifests.
func (h *host) masked(w io.Writer) *maskWriter { return newMaskWriter(w, h.mask.get) }

// secrets reads --set-env and --set-file into o, and from then on every
// masked output hides their values.
func (h *host) secrets(o *action.Options, f *secretFlags) error {
	s, err := f.resolve(h.fsys, h.env, o.Root)
	if err != nil {
		return err
	}
	o.Secrets = s
	h.mask.add(s)
	return nil
}

// execute runs one command line. Every file goes through fsys: templates and
// profiles read, -o DIR, --check DIR and the spool of a large stream
// written; env is what --set-env reads. A panic below it is an internal
// error.
func execute(v verdict.Validator, after func(string, *manifest.Set), args []string, stdin io.Reader, stdout, stderr io.Writer, fsys filesys.FileSystem, env LookupEnv) int {
	return newHost(v, after, args, stdin, stdout, stderr, fsys, env).execute()
}

// executeWith is execute with gc's collector.
func executeWith(v verdict.Validator, c gc.Collector, after func(string, *manifest.Set), args []string, stdin io.Reader, stdout, stderr io.Writer, fsys filesys.FileSystem, env LookupEnv) int {
	h := newHost(v, after, args, stdin, stdout, stderr, fsys, env)
	h.collector = c
	return h.execute()
}

// newHost is the host of one command line, in the background context and
// without signal handling.
func newHost(v verdict.Validator, after func(string, *manifest.Set), args []string, stdin io.Reader, stdout, stderr io.Writer, fsys filesys.FileSystem, env LookupEnv) *host {
	return &host{stdin: stdin, stdout: stdout, fsys: fsys, env: env, mask: &masker{}, validator: v, args: args, rawStderr: stderr, afterStage: after, ctx: context.Background()}
}

// execute runs h's command line and returns its exit status.
func (h *host) execute() (code int) {
	stderr := h.rawStderr
	defer func() {
		if r := recover(); r != nil {
			code = internalError(stderr, &bug.Error{Value: r, Stack: debug.Stack()}, h.env)
		}
	}()
	errw := h.masked(stderr)
	defer errw.Flush()
	h.stderr = errw
	root := newRoot(h)
	root.SetArgs(h.args)
	err := root.Execute()
	var status exitStatus // a delegated command's
	var stop interrupted
	switch {
	case errors.As(err, &stop):
		fmt.Fprintf(errw, "krender: %v\n", stop)
		return stop.status()
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, new(*bug.Error)):
		return internalError(stderr, err, h.env)
	}
	if filepos.IsInput(err) {
		fmt.Fprintln(errw, err) // already "file:line:col: message" per line
	} else {
		fmt.Fprintf(errw, "krender: %v\n", err)
	}
	return exitError
}

// newRoot is the command tree; tests walk it (every command has examples).
func newRoot(h *host) *cobra.Command {
	root := &cobra.Command{
		Use:           "krender",
		Short:         "Render Kubernetes manifests from templates and a profile, substituting only the profile's variables",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
		Example: `  # Render the prod profile's templates and apply them
  krender render -p profiles/prod.yaml templates/ | kubectl apply -f -

  # Report what would misbehave at run time (exit 1 on errors)
  krender check -p profiles/prod.yaml templates/`,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	// Taking -v here leaves cobra's --version long-only.
	root.PersistentFlags().CountVarP(&h.verbose, "verbose", "v", verboseUsage())
	root.SetOut(h.stdout)
	root.SetErr(h.stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(renderCmd(h), varsCmd(h), checkCmd(h), diffCmd(h), versionCmd(h), schemaCmd(h), fnCmd(h), tenantsCmd(h), gcCmd(h))
	// Cobra adds these at Execute; add them now to give them examples.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  krender help render"
		case "completion":
			c.Example = "  # Complete krender's commands and flags in this bash session\n  source <(krender completion bash)"
			for _, sh := range c.Commands() {
				sh.Example = fmt.Sprintf("  krender completion %s > krender-completion.%s", sh.Name(), sh.Name())
			}
		}
	}
	return root
}

// verboseUsage says what -v adds to each command: check reports info
// notes without it, but not the findings only a reviewer asks for.
func verboseUsage() string {
	var only []string
	for _, r := range rule.All() {
		if r.VerboseOnly {
			only = append(only, r.ID)
		}
	}
	return "render: print info notes as well as warnings; check (which reports info notes without it): add the " +
		strings.Join(only, ", ") + " findings"
}

// flagError adds a did-you-mean to an unknown flag (cobra suggests
// commands, not flags): --namepsace, --profle.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	add := func(f *pflag.Flag) { names = append(names, f.Name) }
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	if s := suggest.Closest(name, names); s != "" {
		return fmt.Errorf("%s (did you mean --%s?)", msg, s)
	}
	return err
}

// internalError reports a bug (a panic anywhere below main) without the
// stack a user cannot act on (KRENDER_DEBUG in env shows it), and exits 2
// like any refused input.
func internalError(stderr io.Writer, err error, env LookupEnv) int {
	fmt.Fprintf(stderr, "krender: internal error: %v\n", err)
	fmt.Fprintln(stderr, "krender: this is a bug in krender; please report it at https://github.com/krender/krender/issues with the command and the files it read")
	var ie *bug.Error
	if errors.As(err, &ie) && debugging(env) {
		stderr.Write(ie.Stack)
	}
	return exitError
}

// debugging reports whether KRENDER_DEBUG asks for an internal error's
// stack.
func debugging(env LookupEnv) bool {
	if env == nil {
		return false
	}
	v, _ := env("KRENDER_DEBUG")
	return v != ""
}

func renderFlags(c *cobra.Command, o *action.Options, h *host) {
	runFlags(c, o, h)
	c.Flags().StringVarP(&o.Profile, "profile", "p", "", "profile file (required)")
}

// runFlags are renderFlags but -p, which diff repeats; the root flags are
// returned for a second file system (diff's base).
func runFlags(c *cobra.Command, o *action.Options, h *host) *rootFlags {
	o.MemoryLimit = h.memoryLimit
	o.Once = true // each command renders once
	o.AfterStage = h.afterStage
	var sf secretFlags
	sf.register(c)
	var rf rootFlags
	rf.register(c)
	c.PreRunE = func(*cobra.Command, []string) (err error) {
		if o.Root, err = rf.resolve(h.fsys, o.Profile); err != nil {
			return err
		}
		return h.secrets(o, &sf)
	}
	c.Flags().StringArrayVarP(&o.Tenants, "tenant", "t", nil, "render only this tenant (repeatable)")
	c.Flags().StringArrayVar(&o.Set, "set", nil, "NAME=VALUE: set a deploy-time variable (repeatable; overrides the profile)")
	c.Flags().StringVarP(&o.Namespace, "namespace", "n", "", "namespace written into objects that name none (overrides the profile's namespace:; see docs/namespace.md)")
	c.Flags().StringArrayVar(&o.CRDs, "crds", nil, "a file or directory of CustomResourceDefinitions for custom resources (their field types and scope; check validates against them), besides those rendered (repeatable)")
	c.Flags().BoolVar(&o.Strict, "strict", false, "an undefined ${NAME} in a custom resource's string or an annotation value is an error, as in a field Kubernetes reads (the profile's substitution.strict)")
	c.Flags().Var(shardFlag{&o.Shard}, "shard", "render only the i-th of n balanced slices of the tenants (one per CI job)")
	return &rf
}

// rootFlags are --root and --load-restrictor: where the files a profile
// names must lie (see package loadroot and docs/security.md).
type rootFlags struct{ dir, mode string }

func (f *rootFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.dir, "root", "", "the directory every file a profile names must lie within (default: the top of the git work tree holding the current directory, else the one holding the profile, else the current directory)")
	c.Flags().StringVar(&f.mode, "load-restrictor", "rootOnly", "rootOnly: files a profile names and links in template directories must lie within --root; none: no check (kustomize's LoadRestrictionsRootOnly and LoadRestrictionsNone are accepted too)")
}

// resolve finds the root; profile is the run's -p (see loadroot.New), ""
// when the root must hold the profile rather than follow it (krender fn).
func (f *rootFlags) resolve(fsys filesys.Reader, profile string) (*loadroot.Root, error) {
	mode, err := loadroot.ParseMode(f.mode)
	if err != nil {
		return nil, err
	}
	return loadroot.New(fsys, f.dir, mode, profile)
}

// shardFlag reads --shard i/n.
type shardFlag struct{ s *action.Shard }

func (f shardFlag) String() string { return f.s.String() }
func (f shardFlag) Type() string   { return "i/n" }
func (f shardFlag) Set(v string) (err error) {
	*f.s, err = action.ParseShard(v)
	return err
}
