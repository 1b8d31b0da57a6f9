package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	gcplan "github.com/krender/krender/cluster/gc"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/lint/validator"
)

// The token stands for a secret of the CI runner's: it must never reach
// stdout or stderr unless the check is off.
const outsideToken = "outside-token-0123456789"

const cmTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
  annotations:
    krender.io/hash: "off"
data:
  mode: plain
`

func cm(name string) string { return strings.Replace(cmTemplate, "%s", name, 1) }

// rootTree lays out base/outside (the runner's files) and base/repo, a git
// work tree (.git a directory, a file as in a linked worktree, or none),
// and returns the directory krender runs in: base/repo/app.
func rootTree(t *testing.T, git string) (base, app string) {
	t.Helper()
	base = t.TempDir()
	testtool.WriteFiles(t, base, map[string]string{
		"outside/secret.yaml":        "token: " + outsideToken + "\n",
		"outside/secret-cm.yaml":     cm("leaked") + "  token: " + outsideToken + "\n",
		"outside/profile.yaml":       "vars: {}\n",
		"outside/crds/w.yaml":        widgetCRD,
		"repo/shared/frag.yaml":      "token: shared-in-repo\n",
		"repo/shared/cm.yaml":        cm("shared"),
		"repo/app/templates/cm.yaml": cm("app"),
	})
	switch git {
	case "dir":
		testtool.WriteFiles(t, base, map[string]string{"repo/.git/HEAD": "ref: refs/heads/main\n"})
	case "file":
		testtool.WriteFiles(t, base, map[string]string{"repo/.git": "gitdir: /elsewhere/.git/worktrees/repo\n"})
	}
	return base, filepath.Join(base, "repo", "app")
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`

func fragmentProfile(fragment string) string {
	return "vars: {}\ninject:\n  - name: token\n    fragment: " + fragment + "\n    where: .kind == \"ConfigMap\"\n    into: .data\n"
}

// wantRefused: exit 2, nothing on stdout, and a message naming the path,
// the root and both flags, with no byte of the file read.
func wantRefused(t *testing.T, out, errs string, code int, path, root string) {
	t.Helper()
	if code != 2 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q: want exit 2 and nothing on stdout", code, out, errs)
	}
	for _, w := range []string{path, "outside the", "root " + root, "--root DIR", "--load-restrictor none"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr does not name %q:\n%s", w, errs)
		}
	}
	if strings.Contains(errs, outsideToken) {
		t.Errorf("stderr shows the file's content:\n%s", errs)
	}
}

func TestRootDefaultIsGitTop(t *testing.T) {
	for _, git := range []string{"dir", "file"} {
		t.Run(".git "+git, func(t *testing.T) {
			_, app := rootTree(t, git)
			testtool.WriteFiles(t, app, map[string]string{
				"profiles/in-repo.yaml": fragmentProfile("../../shared/frag.yaml"),
				"profiles/leak.yaml":    fragmentProfile("../../../outside/secret.yaml"),
				"profiles/abs.yaml":     fragmentProfile(filepath.Join(filepath.Dir(filepath.Dir(app)), "..", "outside", "secret.yaml")),
			})
			out, errs, code := runIn(t, app, "render", "-p", "profiles/in-repo.yaml", "templates")
			if code != 0 || !strings.Contains(out, "token: shared-in-repo") {
				t.Fatalf("a fragment elsewhere in the repository: exit %d, stderr %q\n%s", code, errs, out)
			}
			out, errs, code = runIn(t, app, "render", "-p", "profiles/leak.yaml", "templates")
			wantRefused(t, out, errs, code, "profiles/leak.yaml:4:15: fragment ../../outside/secret.yaml", "..")
			out, errs, code = runIn(t, app, "render", "-p", "profiles/abs.yaml", "templates")
			wantRefused(t, out, errs, code, "fragment /", "..")
			// vars and check read the profile the same way.
			for _, cmd := range []string{"vars", "check"} {
				out, errs, code = runIn(t, app, cmd, "-p", "profiles/leak.yaml", "templates")
				wantRefused(t, out, errs, code, "fragment ../../outside/secret.yaml", "..")
			}
			// --root widens; --load-restrictor none turns the check off.
			out, errs, code = runIn(t, app, "render", "--root", "../..", "-p", "profiles/leak.yaml", "templates")
			if code != 0 || !strings.Contains(out, outsideToken) {
				t.Fatalf("--root ../..: exit %d, stderr %q", code, errs)
			}
			for _, none := range []string{"none", "LoadRestrictionsNone"} {
				out, errs, code = runIn(t, app, "render", "--load-restrictor", none, "-p", "profiles/leak.yaml", "templates")
				if code != 0 || !strings.Contains(out, outsideToken) {
					t.Fatalf("--load-restrictor %s: exit %d, stderr %q", none, code, errs)
				}
			}
			for _, only := range []string{"rootOnly", "LoadRestrictionsRootOnly"} {
				out, errs, code = runIn(t, app, "render", "--load-restrictor", only, "-p", "profiles/leak.yaml", "templates")
				wantRefused(t, out, errs, code, "fragment ../../outside/secret.yaml", "..")
			}
		})
	}
}

// Outside any git work tree the root is the current directory.
func TestRootWithoutGitIsCurrentDirectory(t *testing.T) {
	base, app := rootTree(t, "none")
	for d := base; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("the temporary directory lies in a git work tree (%s)", d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	testtool.WriteFiles(t, app, map[string]string{"profiles/in-repo.yaml": fragmentProfile("../../shared/frag.yaml")})
	out, errs, code := runIn(t, app, "render", "-p", "profiles/in-repo.yaml", "templates")
	if code != 2 || out != "" || !strings.Contains(errs, "fragment ../shared/frag.yaml is outside the root .,") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestRootExtendsAndCRDs(t *testing.T) {
	_, app := rootTree(t, "dir")
	testtool.WriteFiles(t, app, map[string]string{
		"profiles/extends.yaml": "extends: ../../../outside/profile.yaml\n",
		"profiles/crds.yaml":    "vars: {}\ncheck: {crds: [../../../outside/crds]}\n",
	})
	out, errs, code := runIn(t, app, "render", "-p", "profiles/extends.yaml", "templates")
	wantRefused(t, out, errs, code, "profiles/extends.yaml:1:10: extends ../../outside/profile.yaml", "..")
	out, errs, code = runIn(t, app, "check", "-p", "profiles/crds.yaml", "templates")
	wantRefused(t, out, errs, code, "profiles/crds.yaml:2:16: CRD file ../../outside/crds", "..")
	// The same directory on the command line is the caller's choice.
	testtool.WriteFiles(t, app, map[string]string{"profiles/plain.yaml": "vars: {TOKEN: ~}\n"}) // --set-file gives TOKEN
	if out, errs, code = runIn(t, app, "check", "-p", "../../outside/profile.yaml", "--crds", "../../outside/crds", "templates"); code != 0 {
		t.Fatalf("command-line paths outside the root: exit %d, stderr %q\n%s", code, errs, out)
	}
}

func TestRootSymlinks(t *testing.T) {
	base, app := rootTree(t, "dir")
	outside := filepath.Join(base, "outside")
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(app, name)); err != nil {
			t.Fatal(err)
		}
	}
	testtool.WriteFiles(t, app, map[string]string{"profiles/plain.yaml": "vars: {TOKEN: ~}\n", "templates/local.txt": cm("local")})

	// Links in the templates directory: within it, or within the root, are fine.
	link("local.txt", "templates/same-dir.yaml")
	link("../../shared/cm.yaml", "templates/in-repo.yaml")
	out, errs, code := runIn(t, app, "render", "-p", "profiles/plain.yaml", "templates")
	if code != 0 || !strings.Contains(out, "name: local") || !strings.Contains(out, "name: shared") {
		t.Fatalf("links within the root: exit %d, stderr %q\n%s", code, errs, out)
	}
	// With the root narrowed to the app, the link into the repository is
	// outside both; the one beside its target is still fine.
	out, errs, code = runIn(t, app, "render", "--root", ".", "-p", "profiles/plain.yaml", "templates")
	wantRefused(t, out, errs, code, "templates/in-repo.yaml: this template leads to "+filepath.Join(base, "repo", "shared", "cm.yaml")+", outside the directory templates", ".")

	// A link out of the repository is refused before anything is printed.
	link(filepath.Join(outside, "secret-cm.yaml"), "templates/zz-leak.yaml")
	out, errs, code = runIn(t, app, "render", "-p", "profiles/plain.yaml", "templates")
	wantRefused(t, out, errs, code, "templates/zz-leak.yaml: this template leads to "+filepath.Join(outside, "secret-cm.yaml")+", outside the directory templates", "..")
	out, errs, code = runIn(t, app, "render", "--load-restrictor", "none", "-p", "profiles/plain.yaml", "templates")
	if code != 0 || !strings.Contains(out, outsideToken) {
		t.Fatalf("--load-restrictor none: exit %d, stderr %q", code, errs)
	}
	// Named on the command line, a path outside the root is the caller's
	// choice; a link in the root is the committer's, and held to it.
	out, errs, code = runIn(t, app, "render", "-p", "profiles/plain.yaml", "../../outside/secret-cm.yaml")
	if code != 0 || !strings.Contains(out, outsideToken) {
		t.Fatalf("a template outside the root named on the command line: exit %d, stderr %q", code, errs)
	}
	out, errs, code = runIn(t, app, "render", "-p", "profiles/plain.yaml", "templates/zz-leak.yaml")
	wantRefused(t, out, errs, code, "templates/zz-leak.yaml: this template leads to "+filepath.Join(outside, "secret-cm.yaml")+", outside the root ..", "..")
	link(outside, "linked-templates")
	out, errs, code = runIn(t, app, "render", "-p", "profiles/plain.yaml", "linked-templates")
	wantRefused(t, out, errs, code, "linked-templates: this template leads to "+outside+", outside the root ..", "..")
	link(filepath.Join(outside, "profile.yaml"), "profiles/linked.yaml")
	out, errs, code = runIn(t, app, "render", "-p", "profiles/linked.yaml", "templates/cm.yaml")
	wantRefused(t, out, errs, code, "profiles/linked.yaml: this profile leads to", "..")
	link(filepath.Join(outside, "secret.yaml"), "token.txt")
	out, errs, code = runIn(t, app, "render", "--set-file", "TOKEN=token.txt", "-p", "profiles/plain.yaml", "templates/cm.yaml")
	wantRefused(t, out, errs, code, "token.txt: this file of --set-file leads to", "..")
	out, errs, code = runIn(t, app, "check", "--crds", "linked-templates/crds", "-p", "profiles/plain.yaml", "templates/cm.yaml")
	wantRefused(t, out, errs, code, "linked-templates/crds: this CRD file leads to", "..")
	for _, args := range [][]string{
		{"render", "-p", "profiles/linked.yaml", "templates/cm.yaml"},
		{"render", "--set-file", "TOKEN=token.txt", "-p", "profiles/plain.yaml", "templates/cm.yaml"},
		{"check", "--crds", "linked-templates/crds", "-p", "profiles/plain.yaml", "templates/cm.yaml"},
	} {
		if out, errs, code = runIn(t, app, append([]string{args[0], "--load-restrictor", "none"}, args[1:]...)...); code != 0 {
			t.Errorf("%v with --load-restrictor none: exit %d, stderr %q\n%s", args, code, errs, out)
		}
	}

	// A fragment that is a link out of the repository, and a fragment in a
	// linked directory that does not exist: both judged by where they lead.
	link(filepath.Join(outside, "secret.yaml"), "profiles/frag.yaml")
	link(outside, "profiles/out")
	testtool.WriteFiles(t, app, map[string]string{
		"profiles/link.yaml":    fragmentProfile("frag.yaml"),
		"profiles/missing.yaml": fragmentProfile("out/missing.yaml"),
		"profiles/crds.yaml":    "vars: {}\ncheck: {crds: [out/crds]}\n",
	})
	out, errs, code = runIn(t, app, "render", "-p", "profiles/link.yaml", "templates/cm.yaml")
	wantRefused(t, out, errs, code, "fragment profiles/frag.yaml (which leads to "+filepath.Join(outside, "secret.yaml")+")", "..")
	out, errs, code = runIn(t, app, "render", "-p", "profiles/missing.yaml", "templates/cm.yaml")
	wantRefused(t, out, errs, code, "fragment profiles/out/missing.yaml (which leads to "+filepath.Join(outside, "missing.yaml")+")", "..")
	out, errs, code = runIn(t, app, "check", "-p", "profiles/crds.yaml", "templates/cm.yaml")
	wantRefused(t, out, errs, code, "CRD file profiles/out/crds (which leads to", "..")

	// A link in a CRD directory the profile names is held to the same rule.
	testtool.WriteFiles(t, app, map[string]string{"crds/.keep": "", "profiles/crd-dir.yaml": "vars: {}\ncheck: {crds: [../crds]}\n"})
	link(filepath.Join(outside, "crds", "w.yaml"), "crds/w.yaml")
	out, errs, code = runIn(t, app, "check", "-p", "profiles/crd-dir.yaml", "templates/cm.yaml")
	wantRefused(t, out, errs, code, "crds/w.yaml: this CRD file leads to "+filepath.Join(outside, "crds", "w.yaml"), "..")
}

func TestRootFn(t *testing.T) {
	_, app := rootTree(t, "dir")
	testtool.WriteFiles(t, app, map[string]string{
		"profiles/plain.yaml": "vars: {}\n",
		"profiles/leak.yaml":  fragmentProfile("../../../outside/secret.yaml"),
	})
	list := func(profile string) string {
		return `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: app, annotations: {krender.io/hash: "off"}}
    data: {mode: plain}
functionConfig:
  apiVersion: krender.io/v1alpha1
  kind: Render
  spec: {profile: ` + profile + `}
`
	}
	fn := func(in string, args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := runWith(append([]string{"fn"}, args...), strings.NewReader(in), &out, &errb, inTree(app), noEnv)
		return out.String(), errb.String(), code
	}
	if out, errs, code := fn(list("profiles/plain.yaml")); code != 0 || !strings.Contains(out, "kind: ResourceList") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	out, errs, code := fn(list("../../outside/profile.yaml"))
	wantRefused(t, out, errs, code, "stdin:11:19: functionConfig spec.profile: the profile ../../outside/profile.yaml", "..")
	out, errs, code = fn(list("profiles/leak.yaml"))
	wantRefused(t, out, errs, code, "fragment ../../outside/secret.yaml", "..")
	if out, errs, code = fn(list("profiles/leak.yaml"), "--load-restrictor", "none"); code != 0 || !strings.Contains(out, outsideToken) {
		t.Fatalf("--load-restrictor none: exit %d, stderr %q", code, errs)
	}
	if out, errs, code = fn(list("profiles/leak.yaml"), "--root", "../.."); code != 0 || !strings.Contains(out, outsideToken) {
		t.Fatalf("--root ../..: exit %d, stderr %q", code, errs)
	}
}

// The in-memory FS has no links and nothing above its working directory.
func TestRootInMemory(t *testing.T) {
	fsys := fstest.MapFS{
		"profiles/leak.yaml": {Data: []byte(fragmentProfile("../../outside/secret.yaml"))},
		"profiles/ok.yaml":   {Data: []byte(fragmentProfile("../frag.yaml"))},
		"frag.yaml":          {Data: []byte("token: in-memory\n")},
		"app.yaml":           {Data: []byte(cm("app"))},
	}
	var out, errb bytes.Buffer
	code := run([]string{"render", "-p", "profiles/leak.yaml", "app.yaml"}, &out, &errb, filesys.NewMem(fsys))
	wantRefused(t, out.String(), errb.String(), code, "profiles/leak.yaml:4:15: fragment ../outside/secret.yaml", ".")
	out.Reset()
	errb.Reset()
	if code = run([]string{"render", "-p", "profiles/ok.yaml", "app.yaml"}, &out, &errb, filesys.NewMem(fsys)); code != 0 || !strings.Contains(out.String(), "token: in-memory") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// outsideWorkTrees skips a test whose temporary directory lies in a git
// work tree: it needs a working directory in none.
func outsideWorkTrees(t *testing.T, dir string) {
	t.Helper()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("the temporary directory lies in a git work tree (%s)", d)
		}
		if filepath.Dir(d) == d {
			return
		}
	}
}

// Run from a directory in no git work tree, krender takes the work tree
// holding the profile as the root: the profile's own base and fragments
// are read, what lies outside that work tree is still refused with the
// --root hint, and a symbolic link inside the repository does not choose
// the root.
func TestRootOutsideAnyWorkTreeIsTheProfiles(t *testing.T) {
	for _, git := range []string{"dir", "file"} {
		t.Run(".git "+git, func(t *testing.T) {
			base, app := rootTree(t, git)
			outsideWorkTrees(t, filepath.Join(base, "outside"))
			repo := filepath.Dir(app)
			testtool.WriteFiles(t, base, map[string]string{
				"repo/profiles/base.yaml":       fragmentProfile("../shared/frag.yaml"),
				"repo/profiles/dev.yaml":        "extends: base.yaml\nvars: {ENV: dev}\n",
				"repo/profiles/leak.yaml":       "extends: ../../outside/profile.yaml\n",
				"outside/cwd/.keep":             "",
				"other/.git/HEAD":               "ref: refs/heads/main\n", // another checkout on the runner
				"other/dev.yaml":                "extends: secret.yaml\n",
				"other/secret.yaml":             fragmentProfile("secret-frag.yaml"),
				"other/secret-frag.yaml":        "token: " + outsideToken + "\n",
				"runner/other/.git/HEAD":        "ref: refs/heads/main\n",
				"runner/other/dev.yaml":         "extends: secret.yaml\n",
				"runner/other/secret.yaml":      fragmentProfile("secret-frag.yaml"),
				"runner/other/secret-frag.yaml": "token: " + outsideToken + "\n",
			})
			cwd := filepath.Join(base, "outside", "cwd")
			templates := filepath.Join(app, "templates")
			for _, profile := range []string{filepath.Join(repo, "profiles", "dev.yaml"), "../../repo/profiles/dev.yaml"} {
				for _, cmd := range []string{"render", "check", "vars"} {
					out, errs, code := runIn(t, cwd, cmd, "-p", profile, templates)
					if code != 0 || cmd == "render" && !strings.Contains(out, "token: shared-in-repo") {
						t.Errorf("%s -p %s from outside the repository: exit %d, stderr %q\n%s", cmd, profile, code, errs, out)
					}
				}
			}
			// gc reads -p for its reference fields, through the same root.
			var ran bool
			record := func(context.Context, gcplan.Options) (*gcplan.Report, error) {
				ran = true
				return &gcplan.Report{}, nil
			}
			var gcOut, gcErr bytes.Buffer
			gcCode := executeWith(validator.APIServer{}, record, nil, []string{"gc", "-n", "shop", "-p", "../../repo/profiles/dev.yaml"},
				strings.NewReader(""), &gcOut, &gcErr, inTree(cwd), noEnv)
			if gcCode != 0 || !ran {
				t.Errorf("gc -p from outside the repository: exit %d, stderr %q", gcCode, gcErr.String())
			}
			// The root is the repository, not everything above it.
			out, errs, code := runIn(t, cwd, "render", "-p", "../../repo/profiles/leak.yaml", templates)
			wantRefused(t, out, errs, code, "../../repo/profiles/leak.yaml:1:10: extends ../../outside/profile.yaml", "../../repo")
			// --root still decides when given.
			out, errs, code = runIn(t, cwd, "render", "--root", ".", "-p", "../../repo/profiles/dev.yaml", templates)
			wantRefused(t, out, errs, code, "extends ../../repo/profiles/base.yaml", ".")

			// A link committed in the repository to another checkout, or
			// to a directory holding one, leaves the root at the
			// repository, which the link leads out of.
			if err := os.Symlink(filepath.Join(base, "other"), filepath.Join(repo, "profiles", "other")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(base, "runner"), filepath.Join(repo, "runner")); err != nil {
				t.Fatal(err)
			}
			for _, profile := range []string{"../../repo/profiles/other/dev.yaml", "../../repo/runner/other/dev.yaml"} {
				out, errs, code = runIn(t, cwd, "render", "-p", profile, templates)
				wantRefused(t, out, errs, code, profile+": this profile leads to", "../../repo")
			}
		})
	}
}
