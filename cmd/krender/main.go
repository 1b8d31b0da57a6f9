// Command krender renders Kubernetes manifests from templates and a
// per-environment profile, substituting only the profile's variables.
package main

import (
	"os"

	"github.com/krender/krender/internal/cli"
)

// nil, nil: a check or fn that needs the API server's validation, and gc,
// which talks to a cluster through client-go, run in krender-check (see
// verdict.Validator and gc.Collector).
func main() { os.Exit(cli.Main(nil, nil)) }
