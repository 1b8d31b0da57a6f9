// Package linter runs check, and fn's findings, in this process, for
// krender-check and for the command line's tests. krender does not link it: the linter's
// custom-resource validation brings the API server's code (see
// cli.Linter).
package linter

import (
	"io"
	"io/fs"

	"github.com/krender/krender/action"
	"github.com/krender/krender/check"
	"github.com/krender/krender/krm"
	"github.com/krender/krender/loadroot"
	"github.com/krender/krender/render"
)

// InProcess is a cli.Linter that lints here.
type InProcess struct{}

func (InProcess) ValidFormat(format string) error { return check.Write(io.Discard, format, nil) }

func (InProcess) Check(w io.Writer, format string, fsys fs.FS, o action.Options, verbose bool) (bool, error) {
	fs, err := check.Run(fsys, o, check.Config{Verbose: verbose, CRDs: o.CRDs})
	if err != nil {
		return false, err
	}
	return check.HasErrors(fs), check.Write(w, format, fs)
}

// KRM is check's linter for krender fn's results.
func (InProcess) KRM() krm.Linter { return krmLinter }

func krmLinter(in *action.Inputs, fsys fs.FS, root *loadroot.Root) (render.Stage, func() []check.Finding, error) {
	l, err := check.New(in.Profile, check.Config{FS: fsys, Root: root})
	if err != nil {
		return nil, nil, err
	}
	return l, l.Findings, nil
}
