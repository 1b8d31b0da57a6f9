// Command krender-check is krender with the API server's own validation:
// strict decoding of built-in kinds and custom resources against their
// CRDs, and with client-go for gc. krender runs it for a check or fn that
// needs them and for gc; it also runs every other command, as krender does.
package main

import (
	"os"
	"runtime/debug"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/krender/krender/cluster/client"
	"github.com/krender/krender/cmd/internal/cli"
	"github.com/krender/krender/lint/validator"
)

// The environment and the collector's settings are read and set here
// alone (cli.Process).
func main() {
	// client-go logs through klog to stderr, for instance a request that gc
	// cancels once another has failed: gc prints its one error instead.
	klog.SetLogger(logr.Discard())
	os.Exit(cli.Main(validator.APIServer{}, client.Run, cli.Process{
		Environ:        os.Environ(),
		SetGCPercent:   debug.SetGCPercent,
		SetMemoryLimit: debug.SetMemoryLimit,
	}))
}
