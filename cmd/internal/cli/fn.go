package cli

import (
	"bytes"
	"context"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
	"github.com/krender/krender/cmd/internal/krm"
	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/render"
)

// fnCmd is `krender fn`: flags into an action.Fn, its Run over the list held
// for a hand-over (read and written back by package krm, the KRM
// function's protocol), the notes and the list printed.
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
			text, err := h.hold()
			if err != nil {
				return err
			}
			fn := &action.Fn{FS: h.fsys, Secrets: o.Secrets, Root: root, Validator: h.validator}
			ctx, stop := h.interruptible()
			notes, out, err := krmFunction(ctx, text, h.fsys, fn)
			if err = stop(err); h.needsValidator(err) {
				return h.delegate()
			}
			if err != nil {
				return err
			}
			h.printNotes(h.stderr, &render.Result{Notes: notes})
			_, err = h.stdout.Write(out)
			return err
		},
	}
	sf.register(c)
	rf.register(c)
	return c
}

// krmFunction is the KRM function over the ResourceList text: the list
// read (package krm), its items and functionConfig handed to fn, and the
// list written from its Result, check's findings as results with secret
// values masked; the notes and errors located in the files the items came
// from (fsys holds them).
func krmFunction(ctx context.Context, text []byte, fsys fs.FS, fn *action.Fn) ([]filepos.Note, []byte, error) {
	list, err := krm.Read(bytes.NewReader(text), fsys)
	if err != nil {
		return nil, nil, err
	}
	res, err := runFnOn(ctx, list, fn)
	if err != nil {
		return nil, nil, list.Errors(err)
	}
	results := list.Results(res.Objects, res.Findings, mask.NewText(action.SecretValues(fn.Secrets)))
	var out bytes.Buffer
	if err := list.Write(&out, res.Objects, results); err != nil {
		return nil, nil, list.Errors(err)
	}
	return list.Notes(res.Notes), out.Bytes(), nil
}

// runFnOn hands fn the list's functionConfig and items, and runs it.
func runFnOn(ctx context.Context, list *krm.List, fn *action.Fn) (action.FnResult, error) {
	cfg, err := list.Config()
	if err != nil {
		return action.FnResult{}, err
	}
	items, err := list.Items()
	if err != nil {
		return action.FnResult{}, err
	}
	fn.Items, fn.Profile, fn.ProfileAt = items, cfg.Profile, list.ProfilePos()
	fn.Tenant, fn.Set, fn.NoCheck = cfg.Tenant, cfg.Set, cfg.Check != nil && !*cfg.Check
	return fn.Run(ctx)
}
