package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/validator"
)

// run is the whole CLI with empty standard input and an empty environment,
// in-process, with the linter krender-check links; every file, read or
// written, goes through fsys.
func run(args []string, stdout, stderr io.Writer, fsys filesys.FileSystem) int {
	return runWith(args, strings.NewReader(""), stdout, stderr, fsys, noEnv)
}

// inTree is dir's files read where they are, every write refused: a test
// that only reads never writes into the source tree.
func inTree(dir string) filesys.FileSystem { return filesys.ReadOnly(filesys.Dir(dir)) }

// runWith is run with standard input (krender fn) and the environment
// lookup (--set-env) injected.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer, fsys filesys.FileSystem, env LookupEnv) int {
	return execute(validator.APIServer{}, nil, args, stdin, stdout, stderr, fsys, env)
}

// runChecked is runWith with every stage of every render held to
// manifest.CheckPositions (positionsChecked).
func runChecked(t *testing.T, args []string, stdin io.Reader, stdout, stderr io.Writer, fsys filesys.FileSystem, env LookupEnv) int {
	return execute(validator.APIServer{}, positionsChecked(t), args, stdin, stdout, stderr, fsys, env)
}

func noEnv(string) (string, bool) { return "", false }
