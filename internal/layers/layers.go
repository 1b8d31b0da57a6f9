// Package layers is krender's layer table: the order docs/architecture.md
// draws, written once where a test can hold the code to it. A package may
// import its own layer and those below it; an import that runs up the table
// fails TestImportsRunDown, and so does a package the table does not place.
package layers

import (
	"slices"
	"strings"
)

// Module is krender's module path.
const Module = "github.com/krender/krender"

// A Layer is a row of the table: its name, what it does, and the folders
// (relative to the module root) whose packages stand on it. A folder holds
// the packages below it too, unless a longer folder of another row names
// them (render is the engine, render/subst a stage).
type Layer struct {
	Name    string
	Does    string
	Folders []string
}

// Table is the order, top first: a layer imports only itself and the layers
// after it.
var Table = []Layer{
	{"main", "`os.Exit(cli.Main(...))` with the process's environment and collector settings (`cli.Process`), which nothing else reads or sets; the benchmark program",
		[]string{"cmd/krender", "cmd/krender-check", "hack"}},
	{"command line", "commands, flags, exit statuses, what is printed; the process's settings, through main's hooks; CI secrets from `--set-env`/`--set-file`; the hand-over to `krender-check` (`cmd/internal/handover`); the KRM function's protocol (`cmd/internal/krm`: the ResourceList read, its items located, results, the list written), which `fn` reads its input with and writes its Result in",
		[]string{"cmd/internal/cli", "cmd/internal/handover", "cmd/internal/krm"}},
	{"actions", "what each command does over the engine: inputs loaded, `--set`, CI secrets and `--shard` turned into units, yqlib's process switches set (`yqexpr.Settle`, so that a library caller gets the CLI's yq), the engine run; `check` with the linter as the engine's check stage (`action.Check`), and `fn` so over a KRM function's items (`action.Fn`); `render`'s output (`-o`, `--check DIR`, the output guard: `action.Render`); `krender gc` (`action/gc`: the profile's reference fields into the hash stage's table, then the cluster's owners)",
		[]string{"action"}},
	{"cluster", "talking to a live cluster, with no engine: `krender gc`'s planner (`cluster/gc`: which workloads and revisions own each hashed ConfigMap and Secret, from a snapshot of the cluster) and its client-go access (`cluster/client`: the kubeconfig as kubectl reads it, the lists and patches; linked by `krender-check` alone)",
		[]string{"cluster"}},
	{"linting", "the linter that `check` and `fn` hand the engine as its check stage, its rules and formats; the API server's validation behind `verdict.Validator`, which only `krender-check` links",
		[]string{"lint"}},
	{"files", "every file krender reads or writes: the one file system (`files/filesys`: its OS implementation is the only place besides `cmd` that calls `os` for files), paths as users type them, the load root, the loader (templates, CRDs, a profile and its `extends` chain), the output",
		[]string{"files"}},
	{"engine", "the stage list, built once; units rendered in parallel and handed on in order; reads no file, knows no flag",
		[]string{"render"}},
	{"stages", "one package per stage of the list in `render/stages.go`",
		[]string{"render/subst", "render/namespace", "render/inject", "render/istio", "render/zones", "render/contenthash", "render/redact"}},
	{"model", "what every stage reads: documents, the limits policy, the profile (one file read into it) and its JSON Schema, positions, the printer, where workloads keep their pods, the rule ids",
		[]string{"model"}},
	{"Kubernetes", "facts about Kubernetes' own APIs: generated tables, the scheme, API lifecycles",
		[]string{"kube"}},
	{"ground", "helpers that import nothing of krender: internal errors, did-you-mean, secret masking, this table",
		[]string{"internal/bug", "internal/suggest", "internal/mask", "internal/layers"}},
	{"test support", "end-to-end tests, and the packages only tests and `hack` import",
		[]string{"internal/testing", "e2e"}},
}

// Of is the index in Table of the layer of the package at path (relative to
// the module root, or a full import path), and whether the table places it.
func Of(path string) (int, bool) {
	path = strings.TrimPrefix(strings.TrimPrefix(path, Module), "/")
	best, at := -1, -1
	for i, l := range Table {
		for _, f := range l.Folders {
			if (path == f || strings.HasPrefix(path, f+"/")) && len(f) > best {
				best, at = len(f), i
			}
		}
	}
	return at, at >= 0
}

// TestSupport is the index of the test-support row: packages that only tests
// and hack may import, whatever their place.
var TestSupport = slices.IndexFunc(Table, func(l Layer) bool { return l.Name == "test support" })

// Markdown is Table as docs/architecture.md prints it.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Layer | Folders | Does |\n|---|---|---|\n")
	for _, l := range Table {
		b.WriteString("| " + l.Name + " | `" + strings.Join(l.Folders, "`, `") + "` | " + l.Does + " |\n")
	}
	return b.String()
}
