// Command krender-check is krender with the API server's own validation:
// strict decoding of built-in kinds and custom resources against their
// CRDs. krender runs it for a check or fn that needs them; it also runs
// every other command, as krender does.
package main

import (
	"os"
	"runtime/debug"

	"github.com/krender/krender/cmd/internal/cli"
	"github.com/krender/krender/lint/validator"
)

// The environment and the collector's settings are read and set here
// alone (cli.Process).
func main() {
	os.Exit(cli.Main(validator.APIServer{}, cli.Process{
		Environ:        os.Environ(),
		SetGCPercent:   debug.SetGCPercent,
		SetMemoryLimit: debug.SetMemoryLimit,
	}))
}
