package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	gcplan "github.com/krender/krender/cluster/gc"
	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/lint/validator"
)

// resourceList is what the fn example's resource-list.yaml stands for.
const resourceList = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings}
    data: {tag: "${IMAGE_TAG}"}
functionConfig:
  apiVersion: krender.io/v1alpha1
  kind: Render
  spec: {profile: profiles/prod.yaml, tenant: tenant-a}
`

// TestEveryCommandHasExamples: each command's --help shows an Examples
// section, and every krender invocation in it runs and succeeds against
// the repository's own profiles and templates, in the order written (an
// -o DIR example writes what a later --check DIR reads).
func TestEveryCommandHasExamples(t *testing.T) {
	h := &host{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, fsys: inTree("../../.."),
		env: noEnv, mask: &masker{}}
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(h))
	if len(all) < 8 {
		t.Fatalf("only %d commands found", len(all))
	}
	repo := newScratchFS(t, "../../..") // -o DIR and --update write in memory
	env := (&fakeEnv{vars: map[string]string{"IMAGE_TAG": "1.43.0"}}).get
	for _, c := range all {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no Example", c.CommandPath())
			continue
		}
		var help bytes.Buffer
		if code := run(append(strings.Fields(c.CommandPath())[1:], "--help"), &help, io.Discard, repo); code != 0 || !strings.Contains(help.String(), "Examples:\n") {
			t.Errorf("%s --help: exit %d, no Examples section:\n%s", c.CommandPath(), code, help.String())
		}
		ran := 0
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			i := strings.Index(line, "krender ")
			if strings.HasPrefix(line, "#") || i < 0 {
				continue
			}
			cmd := line[i:]
			stdin := ""
			for _, stop := range []string{" |", " >", ")", " <"} {
				if j := strings.Index(cmd, stop); j >= 0 {
					if stop == " <" {
						stdin = resourceList
					}
					cmd = cmd[:j]
				}
			}
			var out, errb bytes.Buffer
			code := runWith(strings.Fields(cmd)[1:], strings.NewReader(stdin), &out, &errb, repo, env)
			if strings.HasPrefix(cmd, "krender diff") {
				cmd = diffExample(t, cmd)
				code = runWith(strings.Fields(cmd)[1:], strings.NewReader(""), &out, &errb, repo, withGit(t, env))
				if code == exitFindings { // the working tree's own edits
					code = 0
				}
			}
			if strings.HasPrefix(cmd, "krender gc") { // no cluster here: gc's flags and profile reach a collector that says what it got
				code = executeWith(validator.APIServer{}, reportOptions, nil, strings.Fields(cmd)[1:], strings.NewReader(""), &out, &errb, repo, env)
			}
			if code != 0 || out.Len() == 0 && !strings.Contains(cmd, " -o ") && !strings.Contains(cmd, "--check") {
				t.Errorf("example %q: exit %d, %d bytes out, stderr:\n%s", line, code, out.Len(), errb.String())
			}
			ran++
		}
		if ran == 0 {
			t.Errorf("%q: no krender invocation among its examples", c.CommandPath())
		}
	}
}

// TestUnknownFlagSuggests: cobra suggests commands, krender flags too.
func TestUnknownFlagSuggests(t *testing.T) {
	for args, want := range map[string]string{
		"render --namepsace x -p p.yaml a.yaml": "krender: unknown flag: --namepsace (did you mean --namespace?)\n",
		"check --fromat json":                   "krender: unknown flag: --fromat (did you mean --format?)\n",
		"render --profle p.yaml":                "krender: unknown flag: --profle (did you mean --profile?)\n",
		"render --zzzzzz":                       "krender: unknown flag: --zzzzzz\n",
		"rendr":                                 "Did you mean this?\n\trender",
	} {
		var out, errb bytes.Buffer
		code := run(strings.Fields(args), &out, &errb, inTree(t.TempDir()))
		if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", args, code, out.String(), errb.String(), want)
		}
	}
}

// TestVerboseUsageNamesWhatItAdds: -v's usage, shown by every command's
// --help, names each finding check reports only under -v, and does not
// claim that check reports every info note without it.
func TestVerboseUsageNamesWhatItAdds(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"check", "--help"}, &out, io.Discard, inTree("../../..")); code != 0 {
		t.Fatalf("check --help: exit %d", code)
	}
	var usage string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "--verbose") {
			usage = line
		}
	}
	n := 0
	for _, r := range rule.All() {
		if r.VerboseOnly {
			n++
			if !strings.Contains(usage, r.ID) {
				t.Errorf("check --help: %q does not name %s, which check reports only with -v", usage, r.ID)
			}
		}
	}
	if n == 0 {
		t.Fatal("no rule is reported only under -v: the test no longer tests anything")
	}
	if strings.Contains(usage, "always reports") {
		t.Errorf("check --help: %q says check always reports its info notes", usage)
	}
}

// reportOptions is a gc.Collector that reports what the command line gave
// it: an empty report of its namespace and --dry-run, with a table.
func reportOptions(_ context.Context, o gcplan.Options) (*gcplan.Report, error) {
	if o.Table == nil {
		return nil, fmt.Errorf("no reference table")
	}
	return &gcplan.Report{DryRun: o.DryRun, Namespace: o.Namespace, Objects: []gcplan.ReportObject{}}, nil
}

// diffExample is a diff example as the test runs it: a second checkout
// is the repository itself.
func diffExample(t *testing.T, cmd string) string {
	t.Helper()
	return strings.Replace(cmd, "--base-dir ../main", "--base-dir .", 1)
}

// withGit is env with a PATH that finds git, which diff --base runs.
func withGit(t *testing.T, env LookupEnv) LookupEnv {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("diff --base needs git:", err)
	}
	return func(name string) (string, bool) {
		if name == "PATH" {
			return filepath.Dir(git), true
		}
		return env(name)
	}
}
