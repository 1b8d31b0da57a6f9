// Command krender renders Kubernetes manifests from templates and a
// per-environment profile, substituting only the profile's variables.
package main

import (
	"os"

	"github.com/krender/krender/internal/cli"
)

func main() { os.Exit(cli.Main()) }
