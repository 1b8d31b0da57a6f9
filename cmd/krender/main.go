// Command krender renders Kubernetes manifests from templates and a
// per-environment profile, substituting only the profile's variables.
package main

import (
	"os"

	"github.com/krender/krender/cmd/internal/cli"
)

// nil: a check or fn that needs the API server's validation runs in
// krender-check (see verdict.Validator).
func main() { os.Exit(cli.Main(nil)) }
