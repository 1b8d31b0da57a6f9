// Command krender-check is krender with check and fn: the commands whose
// linter validates custom resources with the API server's own code. krender
// runs it for them; it also runs every other command, as krender does.
package main

import (
	"os"

	"github.com/krender/krender/internal/cli"
	"github.com/krender/krender/internal/linter"
)

func main() { os.Exit(cli.Main(linter.InProcess{})) }
