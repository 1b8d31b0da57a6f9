package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action/gc"
)

// exitMissing is gc's status when it did its work but what is applied
// names a hashed ConfigMap or Secret the cluster lacks (docs/gc.md).
const exitMissing = 3

// gcCmd is `krender gc`: flags into a gc.Collect, its Run, the report and
// its warnings printed. The flags are checked here, before anything else:
// the work needs client-go, which only krender-check links, so krender
// hands the command line over as check does with --crds.
func gcCmd(h *host) *cobra.Command {
	g := &gc.Collect{FS: h.fsys}
	o := &g.Options
	var rf rootFlags
	c := &cobra.Command{
		Use:   "gc [-n NAMESPACE | -A] [--dry-run] [--kubeconfig FILE] [--context NAME] [-o text|json] [-p PROFILE]",
		Short: "Give hashed ConfigMaps and Secrets the owners that can still start pods from them, so that Kubernetes deletes old versions after their last revision",
		Example: `  # After kubectl apply: let Kubernetes delete versions no revision can use
  krender render -p profiles/prod.yaml templates/ | kubectl apply -f -
  krender gc -n shop

  # What it would change, in every namespace, as JSON
  krender gc -A --dry-run -o json

  # With the profile's own reference fields (custom workloads)
  krender gc -n shop -p profiles/prod.yaml --context prod`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) (err error) {
			g.RootDir, g.LoadRestrictor = rf.dir, rf.mode // --root goes with -p alone
			if err := g.Check(); err != nil {
				return err
			}
			if h.collector == nil {
				return h.delegate() // client-go lives in krender-check; signals are passed on to it
			}
			ctx, stop := h.interruptible() // a signal stops the run between requests
			defer func() { err = stop(err) }()
			g.Env, g.Collector = h.env, h.collector
			res, err := g.Run(ctx)
			if err != nil {
				return err
			}
			if err := res.Report.Write(h.stdout, g.Output); err != nil {
				return err
			}
			for _, m := range res.Report.Missing {
				fmt.Fprintf(h.stderr, "krender: warning: %s\n", m)
			}
			if len(res.Report.Missing) > 0 {
				return exitStatus(exitMissing)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVarP(&o.Namespace, "namespace", "n", "", "the namespace (default: the kubeconfig context's)")
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "every namespace")
	f.BoolVar(&o.DryRun, "dry-run", false, "print what would change and change nothing")
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	f.StringVar(&o.Context, "context", "", "kubeconfig context (default: the current one)")
	f.StringVarP(&g.Output, "output", "o", "text", "text (one line per object, then a summary) or json")
	f.StringVarP(&g.Profile, "profile", "p", "", "the profile whose hash.references name custom workloads' reference fields (default: the built-in ones only)")
	rf.register(c)
	return c
}
