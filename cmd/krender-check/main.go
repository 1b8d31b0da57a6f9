// Command krender-check is krender with the API server's own validation:
// strict decoding of built-in kinds and custom resources against their
// CRDs, and with client-go for gc. krender runs it for a check or fn that
// needs them and for gc; it also runs every other command, as krender does.
package main

import (
	"os"

	"github.com/krender/krender/gc/cluster"
	"github.com/krender/krender/internal/cli"
	"github.com/krender/krender/internal/validator"
)

func main() { os.Exit(cli.Main(validator.APIServer{}, cluster.Run)) }
