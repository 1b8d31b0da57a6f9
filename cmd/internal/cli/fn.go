package cli

import (
	"bytes"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/render"
)

// fnCmd is `krender fn`: flags into an action.Fn, its Run over the list held
// for a hand-over, the notes and the list printed.
func fnCmd(h *host) *cobra.Command {
	var sf secretFlags
	var rf rootFlags
	var o action.Options
	c := &cobra.Command{
		Use:   "fn [--set-env NAME[=ENVVAR]]... [--set-file NAME=PATH]...",
		Short: "Run as a KRM function: render a ResourceList's items (stdin to stdout), for kustomize and kpt",
		Long: `Run as a KRM function (the kustomize functions spec): read a ResourceList on
standard input, render its items through the same stages as krender render,
and write the ResourceList, with krender check's findings in results, to
standard output. functionConfig is apiVersion: krender.io/v1alpha1,
kind: Render, with spec.profile (a path from the directory the function runs
in), spec.tenant and spec.set. The profile and every file it names must lie
within the root (--root; by default the git work tree holding the directory
the function runs in; see docs/security.md). On an error nothing is written
to standard output.`,
		Example: `  # kustomize runs it through a wrapper script (its exec spec takes no
  # arguments; see docs/integrations.md):
  #   kustomize build --enable-alpha-plugins --enable-exec apps/shop
  # By hand, with a ResourceList whose functionConfig names spec.profile:
  krender fn --set-env IMAGE_TAG < resource-list.yaml`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			root, err := rf.resolve(h.fsys, "") // spec.profile comes from the repository: the root must hold it
			if err != nil {
				return err
			}
			o.Root = root
			if err := h.secrets(&o, &sf); err != nil {
				return err
			}
			// The list is read here first: one that needs the API server's
			// validation then goes to krender-check whole.
			list, err := h.hold()
			if err != nil {
				return err
			}
			var out bytes.Buffer
			fn := action.Fn{In: bytes.NewReader(list), Out: &out, FS: h.fsys, Secrets: o.Secrets, Root: root, Linter: check.KRMLinter(h.validator)}
			notes, err := fn.Run()
			if h.needsValidator(err) {
				return h.delegate()
			}
			if err != nil {
				return err
			}
			h.printNotes(h.stderr, &render.Result{Notes: notes})
			_, err = out.WriteTo(h.stdout)
			return err
		},
	}
	sf.register(c)
	rf.register(c)
	return c
}
