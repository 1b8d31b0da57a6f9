package cli

import (
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/validator"
)

// run is the whole CLI with empty standard input and an empty environment,
// in-process, with the linter krender-check links; -o DIR, --check DIR and
// the spool of a large stream go through outFS.
func run(args []string, stdout, stderr io.Writer, fsys fs.FS, outFS filesys.FileSystem) int {
	return runWith(args, strings.NewReader(""), stdout, stderr, fsys, outFS, noEnv)
}

// runWith is run with standard input (krender fn) and the environment
// lookup (--set-env) injected.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer, fsys fs.FS, outFS filesys.FileSystem, env LookupEnv) int {
	return execute(validator.APIServer{}, nil, args, stdin, stdout, stderr, fsys, outFS, env)
}

// runChecked is runWith with every stage of every render held to
// manifest.CheckPositions (positionsChecked).
func runChecked(t *testing.T, args []string, stdin io.Reader, stdout, stderr io.Writer, fsys fs.FS, outFS filesys.FileSystem, env LookupEnv) int {
	return execute(validator.APIServer{}, positionsChecked(t), args, stdin, stdout, stderr, fsys, outFS, env)
}

func noEnv(string) (string, bool) { return "", false }
