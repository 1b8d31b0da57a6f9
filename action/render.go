package action

import (
	"context"
	"fmt"
	"io"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/render"
)

// Render is `krender render`: the run rendered to a stream or to a
// directory (-o DIR), or compared with a directory rendered before
// (--check DIR, rewritten with --update). It owns the output's rules (which
// flags go together, what a directory write must not replace), so that a
// program gets the command's output without its command line.
type Render struct {
	Options
	// FS is the one file system the render reads its templates and
	// profiles from and writes -o DIR, --update and the spool of a large
	// stream to, paths as users type them (see package userfs): filesys.OS
	// in the binaries.
	FS filesys.FileSystem
	// Stdout receives the stream (-o -).
	Stdout io.Writer
	// Output is -o: DIR, a format word, or "-" (or "") for Stdout.
	Output string
	// OutputGiven says -o was given: -o - said aloud goes with --check.
	OutputGiven bool
	// Check is --check DIR; Update rewrites DIR instead of comparing.
	Check  string
	Update bool
}

// RenderResult is what a render leaves to print: the stages' notes and,
// for --check DIR, how the render differs from DIR.
type RenderResult struct {
	*render.Result
	// Diff is --check DIR's comparison (without --update); nil otherwise.
	// Empty: DIR is up to date.
	Diff *output.Diff
}

// Run renders and writes (or compares); ctx (the CLI cancels it on SIGINT
// and SIGTERM) stops the reading, every stage and the write within a
// document or an object, and what the write created is removed.
func (r *Render) Run(ctx context.Context) (*RenderResult, error) {
	w := output.Writer{FS: r.FS, Context: ctx}
	r.Options.Context = ctx
	if err := r.checkOutputFlags(&w); err != nil {
		return nil, err
	}
	e, err := Engine(r.FS, r.Options)
	if err != nil {
		return nil, err
	}
	w.Guard = r.guard(e)
	w.Guard.Profile = r.Profile
	var res RenderResult
	switch {
	case r.Check != "" && r.Update:
		res.Result, err = w.WriteDir(e, r.Check)
	case r.Check != "":
		res.Diff, res.Result, err = w.Compare(e, r.Check)
	case r.Output == "" || r.Output == "-":
		res.Result, err = w.WriteStream(e, r.Stdout)
	default:
		res.Result, err = w.WriteDir(e, r.Output)
	}
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// checkOutputFlags rejects -o, --check and --update given together in a
// way that has no meaning, and an unknown -o format word, before anything
// is read.
func (r *Render) checkOutputFlags(w *output.Writer) error {
	out, check := r.Output, r.Check
	if r.Update && check == "" {
		return fmt.Errorf("--update goes with --check DIR")
	}
	if check != "" && r.OutputGiven && out != "-" { // -o -, the default, said aloud
		return fmt.Errorf("-o %s goes without --check: --check DIR compares the render with DIR and writes nothing (--check DIR --update rewrites DIR)", out)
	}
	if check == "" && out != "-" { // "" is never a format word
		return w.CheckFormatWord(out)
	}
	return nil
}

// guard is what -o DIR and --update must not replace: the current directory
// and every file the render reads, on the file system it writes to.
func (r *Render) guard(e *render.Engine) output.Guard {
	var g output.Guard
	add := func(name, what string, dir bool) {
		g.Inputs = append(g.Inputs, output.Input{Name: name, What: what, Dir: dir})
	}
	for _, p := range r.Paths {
		if p == loader.StdinPath {
			continue
		}
		fi, err := userfs.Stat(r.FS, p)
		add(p, "template", err == nil && fi.IsDir())
	}
	for _, p := range e.Profile.Files {
		add(p, "profile", false)
	}
	for _, in := range e.Profile.Inject {
		if in.FragmentPath != "" {
			add(in.FragmentPath, "fragment", false)
		}
	}
	return g
}
