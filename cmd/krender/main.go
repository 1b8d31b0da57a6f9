// Command krender renders Kubernetes manifests from templates and a
// per-environment profile, substituting only the profile's variables.
package main

import (
	"os"
	"runtime/debug"

	"github.com/krender/krender/cmd/internal/cli"
)

// nil, nil: a check or fn that needs the API server's validation, and gc,
// which talks to a cluster through client-go, run in krender-check (see
// verdict.Validator and gc.Collector). The environment and the collector's
// settings are read and set here alone (cli.Process).
func main() {
	os.Exit(cli.Main(nil, nil, cli.Process{
		Environ:        os.Environ(),
		SetGCPercent:   debug.SetGCPercent,
		SetMemoryLimit: debug.SetMemoryLimit,
	}))
}
