package cli

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/krender/krender/files/output"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/model/limits"
)

// Golden cases under testdata/hostile/ and testdata/output/ run in a
// temporary copy of their directory, as the working directory, so that `-o DIR` writes there and
// inputs too large (or too binary) to commit are generated first. Each
// must write nothing unless written.golden lists what it writes.

const cmHead = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"

func aliasBomb() string {
	var b strings.Builder
	b.WriteString(cmHead + "  labels:\n    a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		fmt.Fprintf(&b, "    %c: &%c [%s*%s]\n", c, c, strings.Repeat("*"+prev+",", 8), prev)
		prev = string(c)
	}
	b.WriteString("data:\n  k: *i\n")
	return b.String()
}

// oddYAML is valid YAML that looks little like what people write, and
// that yq prints back in its own way: CRLF and BOM cases reuse it.
const oddYAML = `%YAML 1.2
# a directive, then comments
---
apiVersion: v1
kind: ConfigMap
metadata: {name: odd, labels: &l {app: odd, "quoted key": 'single ''quoted'''}}
data:
  folded: >-
    one
    two

  literal: |+
    keep

  plain: multi
    line plain
  ? explicit
  : key
  "tagged": !!str 123
  flow: "{a: [1, 2]}"
  empty: ""
...
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: odd2
  labels:
    <<: *l
    extra: "yes"
data: {}
`

// hostileInputs writes the generated inputs of a case into dir.
var hostileInputs = map[string]func(t *testing.T, dir string){
	"alias-bomb":       write("bomb.yaml", aliasBomb()),
	"alias-bomb-check": write("bomb.yaml", aliasBomb()),
	"alias-bomb-vars":  write("bomb.yaml", aliasBomb()),
	"deep-nesting":     write("deep.yaml", cmHead+"data:\n  k: "+strings.Repeat("[", 10_000)+strings.Repeat("]", 10_000)+"\n"),
	"flow-million":     write("flow.yaml", cmHead+"items: ["+strings.Repeat("x,", 999_999)+"x]\n"),
	"empty-documents":  write("empty.yaml", strings.Repeat("---\n", 200_000)+cmHead),
	"nul-byte":         write("nul.yaml", cmHead+"data: {k: \"a\x00b\"}\n"),
	"invalid-utf8":     write("bad.yaml", cmHead+"data: {k: caf\xe9}\n"),
	"bom":              write("bom.yaml", "\ufeff# leading comment\n"+cmHead+"data: {k: v}\n"),
	"crlf":             write("crlf.yaml", strings.ReplaceAll(oddYAML, "\n", "\r\n")),
	"tabs":             write("tabs.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n"),
	"big-scalar":       write("big.yaml", cmHead+"data:\n  k: "+strings.Repeat("x", 50<<20)+"\n"),
	"odd-yaml":         write("odd.yaml", oddYAML),
	"extends-chain": func(t *testing.T, dir string) {
		for i := range 1000 {
			write(fmt.Sprintf("p%03d.yaml", i), fmt.Sprintf("extends: p%03d.yaml\nvars: {V%d: x}\n", i+1, i))(t, dir)
		}
	},
	// testdata/output/git-dir: Git refuses to commit a .git of the fixture's own.
	"git-dir": func(t *testing.T, dir string) {
		write("out/.git/HEAD", "ref: refs/heads/main\n")(t, dir)
		write("out/"+output.Marker, "configmap-app.yaml\n")(t, dir)
		write("out/configmap-app.yaml", "kind: ConfigMap\n")(t, dir)
	},
	"output-symlink": func(t *testing.T, dir string) {
		write("elsewhere/keep", "kept\n")(t, dir)
		if err := os.Symlink("elsewhere", filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
	},
}

// renderLikeYq are the cases whose input must render exactly as `yq eval .`
// prints it (their profiles turn hashing off).
var renderLikeYq = map[string]string{"bom": "bom.yaml", "crlf": "crlf.yaml", "odd-yaml": "odd.yaml"}

func write(name, text string) func(*testing.T, string) {
	return func(t *testing.T, dir string) { testtool.WriteFiles(t, dir, map[string]string{name: text}) }
}

// hostileCase prepares testdata/hostile/<case> in a temporary directory
// and makes it the working directory. done checks afterwards that the runs
// wrote only what written.golden lists.
func hostileCase(t *testing.T, caseDir string) (runDir string, done func()) {
	t.Helper()
	runDir = t.TempDir()
	if err := os.CopyFS(runDir, os.DirFS(caseDir)); err != nil {
		t.Fatal(err)
	}
	if gen := hostileInputs[filepath.Base(caseDir)]; gen != nil {
		gen(t, runDir)
	}
	t.Chdir(runDir)
	before := tree(t, runDir)
	return runDir, func() {
		var written []string
		after := tree(t, runDir)
		for p, sum := range after {
			if before[p] != sum {
				written = append(written, p)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				written = append(written, p+" (removed)")
			}
		}
		sort.Strings(written)
		got := ""
		if len(written) > 0 {
			got = strings.Join(written, "\n") + "\n"
		}
		golden := filepath.Join(caseDir, "written.golden")
		if _, err := os.Stat(golden); err == nil || *update && got != "" {
			compareGolden(t, golden, got)
		} else if got != "" {
			t.Errorf("the run wrote what it must not:\n%s", got)
		}
	}
}

// tree maps every path under root (symbolic links as links) to a digest
// of what it is.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "link " + target
			return err
		case d.IsDir():
			out[rel+"/"] = "dir"
		default:
			b, err := os.ReadFile(p)
			out[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHostileRenderLikeYq: CRLF line ends, a byte order mark and odd but
// valid YAML come out of krender exactly as the real yq prints them.
func TestHostileRenderLikeYq(t *testing.T) {
	yq := testtool.Find(t, "KRENDER_YQ", []string{mustAbs(t, "../../../.cache/bin/yq")}, "mikefarah yq not built (run `make tools`); odd inputs not compared with yq")
	for name, input := range renderLikeYq {
		t.Run(name, func(t *testing.T) {
			dir, done := hostileCase(t, filepath.Join("../../../testdata/hostile", name))
			defer done()
			got, stderr := runCase(t, inTree(dir), []string{"render", "-p", "profile.yaml", input})
			if !strings.HasSuffix(stderr, "exit status 0\n") {
				t.Fatalf("krender failed:\n%s", stderr)
			}
			want, err := exec.Command(yq, "eval", ".", filepath.Join(dir, input)).Output()
			if err != nil {
				t.Fatalf("yq: %v", err)
			}
			if got != string(want) {
				t.Fatalf("krender prints\n%q\nyq prints\n%q", got, want)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// flowDocs is n ConfigMaps, each with a flow sequence of items ones under
// field (dense: two bytes a node), separated by `---`.
func flowDocs(field string, items ...int) string {
	var docs []string
	for i, n := range items {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n%s [%s1]\n", i, field, strings.Repeat("1,", n-1)))
	}
	return strings.Join(docs, "---\n")
}

// worstCases are too slow for the golden tests; they are the inputs that
// cost most within the default limits, written by TestWriteHostileInputs
// for docs/limits.md's measurements.
var worstCases = map[string]func(t *testing.T, dir string){
	// One document just under limits.documentBytes, as dense as YAML gets:
	// refused only after the exact count parses it.
	"worst-refused": func(t *testing.T, dir string) {
		write("args", "render -p profile.yaml dense.yaml\n")(t, dir)
		write("profile.yaml", "vars: {}\n")(t, dir)
		write("dense.yaml", flowDocs("items:", (2<<20-100)/2))(t, dir)
	},
	// limits.inputBytes in ConfigMaps of one scalar each, six tenants.
	"worst-accepted-text": func(t *testing.T, dir string) {
		write("args", "render -p profile.yaml a.yaml\n")(t, dir)
		write("profile.yaml", "tenants: {a: {}, b: {}, c: {}, d: {}, e: {}, f: {}}\n")(t, dir)
		var docs []string
		for i := range limits.Defaults().InputBytes / (2 << 20) {
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a%d}\ndata:\n  k: %s\n", i, strings.Repeat("x", 2<<20-200)))
		}
		write("a.yaml", strings.Join(docs, "---\n"))(t, dir)
	},
	// limits.inputNodes in hashed ConfigMaps near limits.nodes, six tenants.
	"worst-accepted": func(t *testing.T, dir string) {
		write("args", "render -p profile.yaml dense.yaml\n")(t, dir)
		write("profile.yaml", "tenants: {a: {}, b: {}, c: {}, d: {}, e: {}, f: {}}\n")(t, dir)
		text, _ := denseConfigMaps(limits.Defaults())
		write("dense.yaml", text)(t, dir)
	},
}

// denseConfigMaps are ConfigMaps of flow sequences, each near limits.nodes,
// up to limits.inputNodes: the accepted input that takes most memory, and
// how many documents it has.
func denseConfigMaps(d limits.Limits) (string, int) {
	var items []int
	for left := d.InputNodes - 100; left > 100; { // 13 nodes of each document are not items
		n := min(left, d.Nodes) - 20
		items, left = append(items, n), left-n-20
	}
	return flowDocs("data:\n  k:", items...), len(items)
}

// TestWriteHostileInputs writes every hostile case, inputs generated, under
// $KRENDER_HOSTILE_OUT, to run the real binary on them (docs/limits.md
// measures peak memory that way). Without it the cases go to a temporary
// directory, so that the writer runs, and is checked, on every test run.
func TestWriteHostileInputs(t *testing.T) {
	out := os.Getenv("KRENDER_HOSTILE_OUT")
	if out == "" {
		out = t.TempDir()
	}
	for name, gen := range worstCases {
		gen(t, filepath.Join(out, name))
	}
	cases, _ := filepath.Glob("../../../testdata/hostile/*")
	if len(cases) == 0 {
		t.Fatal("no case under testdata/hostile")
	}
	for _, c := range cases {
		dst := filepath.Join(out, filepath.Base(c))
		if err := os.CopyFS(dst, os.DirFS(c)); err != nil {
			t.Fatal(err)
		}
		if gen := hostileInputs[filepath.Base(c)]; gen != nil {
			gen(t, dst)
		}
	}
	written, _ := filepath.Glob(filepath.Join(out, "*", "args"))
	if want := len(worstCases) + len(cases); len(written) != want {
		t.Errorf("%d cases with an args file written, want %d", len(written), want)
	}
}
