// Command krender renders Kubernetes manifests from templates and a
// per-environment profile, substituting only the profile's variables.
package main

import (
	"os"

	"github.com/krender/krender/internal/cli"
)

// nil: check and fn run in krender-check (see cli.Linter).
func main() { os.Exit(cli.Main(nil)) }
