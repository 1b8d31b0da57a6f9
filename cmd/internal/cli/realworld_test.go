package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/testing/testtool"
)

// The real-world tier: testdata/realworld/<style>/ holds manifests written in
// the style of a well-known project (manifests/), a profile that defines none
// of their variables (profile.yaml) and what hashing must rename
// (expect.yaml). Rendering such manifests must change nothing their authors
// wrote, except the content-hash names krender exists to add.

// realworldCase is one fixture directory.
type realworldCase struct {
	name, dir string
	renamed   []string // Kind/name of the objects hashing renames, sorted
}

func realworldCases(t *testing.T) []realworldCase {
	t.Helper()
	dirs, err := filepath.Glob("../../../testdata/realworld/*/profile.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no fixtures under testdata/realworld/")
	}
	var cases []realworldCase
	for _, p := range dirs {
		dir := filepath.Dir(p)
		c := realworldCase{name: filepath.Base(dir), dir: dir}
		text, err := os.ReadFile(filepath.Join(dir, "expect.yaml"))
		if err != nil {
			t.Fatalf("%s: every fixture says what hashing renames in expect.yaml: %v", c.name, err)
		}
		var exp struct {
			Renamed []string `yaml:"renamed"`
		}
		if err := yaml.Unmarshal(text, &exp); err != nil {
			t.Fatalf("%s/expect.yaml: %v", c.name, err)
		}
		c.renamed = append([]string{}, exp.Renamed...)
		sort.Strings(c.renamed)
		cases = append(cases, c)
	}
	return cases
}

// TestRealWorldRender renders each fixture with its profile and holds the
// output to the input, read as Kubernetes and as go-yaml read it.
//
// The profile keeps hashing on, as users run it, and the test takes the
// renames back out before comparing: a profile with hashing off would hide
// the very defect this tier guards against, a ConfigMap that software reads
// by name getting a new one. expect.yaml lists what must be renamed.
func TestRealWorldRender(t *testing.T) {
	for _, c := range realworldCases(t) {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runIn(t, c.dir, "render", "-p", "profile.yaml", "manifests")
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, errs)
			}
			if errs != "" {
				t.Logf("stderr:\n%s", errs)
			}
			in := readManifests(t, filepath.Join(c.dir, "manifests"))
			compareRender(t, c, in, []byte(out))
		})
	}
}

// TestRealWorldCheck: `krender check` finds nothing wrong with manifests
// that are right as written.
func TestRealWorldCheck(t *testing.T) {
	for _, c := range realworldCases(t) {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runIn(t, c.dir, "check", "-p", "profile.yaml", "--format", "json", "manifests")
			if code != 0 {
				t.Fatalf("exit %d:\n%s%s", code, out, errs)
			}
			var findings []struct{ Rule, Severity, File, Message string }
			if err := json.Unmarshal([]byte(out), &findings); err != nil {
				t.Fatalf("check --format json: %v\n%s", err, out)
			}
			for _, f := range findings {
				if f.Severity == "error" {
					t.Errorf("%s: %s [%s]", f.File, f.Message, f.Rule)
				}
			}
		})
	}
}

// TestRealWorldRenderAndCheckAgree: check reports an error exactly when
// render fails, and both pass, on every fixture.
func TestRealWorldRenderAndCheckAgree(t *testing.T) {
	for _, c := range realworldCases(t) {
		t.Run(c.name, func(t *testing.T) {
			_, renderErrs, renderCode := runIn(t, c.dir, "render", "-p", "profile.yaml", "manifests")
			checkOut, checkErrs, checkCode := runIn(t, c.dir, "check", "-p", "profile.yaml", "manifests")
			if (renderCode == 0) != (checkCode == 0) {
				t.Fatalf("render exits %d, check %d:\nrender:\n%s\ncheck:\n%s%s", renderCode, checkCode, renderErrs, checkOut, checkErrs)
			}
			if renderCode != 0 {
				t.Fatalf("both fail: render exits %d, check %d:\n%s%s", renderCode, checkCode, checkOut, checkErrs)
			}
		})
	}
}

// readManifests concatenates the files under dir as krender walks them:
// *.yaml and *.yml, recursively, in lexical order.
func readManifests(t *testing.T, dir string) []byte {
	t.Helper()
	var b bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if b.Len() > 0 {
			b.WriteString("\n---\n")
		}
		b.Write(text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func compareRender(t *testing.T, c realworldCase, in, out []byte) {
	t.Helper()
	for _, reader := range []struct {
		name string
		read func([]byte) ([]any, error)
	}{
		{"go.yaml.in/yaml/v4", readGoYAML},
		{"sigs.k8s.io/yaml", readKubernetes},
	} {
		inObjs, err := reader.read(in)
		if err != nil {
			t.Fatalf("%s reads the input: %v", reader.name, err)
		}
		outObjs, err := reader.read(out)
		if err != nil {
			t.Fatalf("%s reads the output: %v", reader.name, err)
		}
		inObjs, outObjs = flattenLists(inObjs), flattenLists(outObjs)
		if len(inObjs) != len(outObjs) {
			t.Fatalf("%s: %d objects in, %d out", reader.name, len(inObjs), len(outObjs))
		}
		renames, got := hashRenames(t, inObjs, outObjs)
		if !slices.Equal(got, c.renamed) {
			t.Errorf("%s: hashing renamed %v, want %v (expect.yaml)", reader.name, got, c.renamed)
		}
		danglingRefs(t, inObjs, outObjs)
		for i := range inObjs {
			restored := withoutNameLabel(unrename(outObjs[i], renames), renames)
			if d := firstDiff("", inObjs[i], restored); d != "" {
				t.Errorf("%s: %s changed: %s", reader.name, objectID(inObjs[i]), d)
			}
		}
	}
	if inD, outD := dollarScalars(t, in), dollarScalars(t, out); !reflect.DeepEqual(inD, outD) {
		for i := 0; i < len(inD) || i < len(outD); i++ {
			var a, b string
			if i < len(inD) {
				a = inD[i]
			}
			if i < len(outD) {
				b = outD[i]
			}
			if a != b {
				t.Errorf("scalar %d with `$` differs:\n  in:  %q\n  out: %q", i+1, a, b)
				break
			}
		}
	}
}

// readGoYAML decodes every document into `any`, as a Go program using
// go-yaml would; empty documents (a trailing `---`) are no objects.
func readGoYAML(text []byte) ([]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var docs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if v != nil {
			docs = append(docs, v)
		}
	}
}

// readKubernetes splits and converts documents as kubectl does: YAML 1.1
// resolution through sigs.k8s.io/yaml, then JSON.
func readKubernetes(text []byte) ([]any, error) {
	js, err := testtool.KubectlDocs(text)
	if err != nil {
		return nil, err
	}
	var docs []any
	for _, j := range js {
		var v any
		if err := json.Unmarshal(j, &v); err != nil {
			return nil, err
		}
		docs = append(docs, v)
	}
	return docs, nil
}

// flattenLists replaces each List (List, ConfigMapList, ...) by its items, so
// that wrapped and unwrapped output compare alike, item by item.
func flattenLists(docs []any) []any {
	var out []any
	for _, d := range docs {
		m, _ := d.(map[string]any)
		kind, _ := m["kind"].(string)
		items, ok := m["items"].([]any)
		if strings.HasSuffix(kind, "List") && ok {
			out = append(out, flattenLists(items)...)
			continue
		}
		out = append(out, d)
	}
	return out
}

var hashSuffix = regexp.MustCompile(`^-[a-z0-9]{10}$`)

// hashRenames pairs objects by position and returns each content-hash rename
// (new name to old) and the Kind/name list of the renamed objects. A
// ConfigMap or Secret may only gain a hash suffix; nothing else is renamed.
func hashRenames(t *testing.T, in, out []any) (map[string]string, []string) {
	t.Helper()
	renames := map[string]string{}
	var renamed []string
	for i := range in {
		kind, oldName, _ := meta(in[i])
		_, newName, _ := meta(out[i])
		if oldName == newName {
			continue
		}
		if (kind != "ConfigMap" && kind != "Secret") || !strings.HasPrefix(newName, oldName) || !hashSuffix.MatchString(newName[len(oldName):]) {
			t.Errorf("%s is renamed %q, which is not a content-hash suffix", objectID(in[i]), newName)
			continue
		}
		renames[newName] = oldName
		renamed = append(renamed, kind+"/"+oldName)
	}
	sort.Strings(renamed)
	return renames, renamed
}

// danglingRefs: a pod's reference to a ConfigMap or Secret of the input
// names one of the output, so a rename reached its references.
func danglingRefs(t *testing.T, in, out []any) {
	t.Helper()
	names := func(objs []any) map[string]bool {
		set := map[string]bool{}
		for _, o := range objs {
			kind, name, _ := meta(o)
			set[kind+"/"+name] = true
		}
		return set
	}
	had, has := names(in), names(out)
	for _, o := range out {
		walkMaps(o, func(m map[string]any) {
			for field, ref := range map[string][2]string{
				"configMap": {"ConfigMap", "name"}, "configMapRef": {"ConfigMap", "name"}, "configMapKeyRef": {"ConfigMap", "name"},
				"secret": {"Secret", "secretName"}, "secretRef": {"Secret", "name"}, "secretKeyRef": {"Secret", "name"},
			} {
				sub, _ := m[field].(map[string]any)
				name, _ := sub[ref[1]].(string)
				key := ref[0] + "/" + name
				if name != "" && !has[key] && (had[key] || hashedFrom(key, had)) {
					t.Errorf("%s: %s names %s %q, which the output does not hold", objectID(o), field, ref[0], name)
				}
			}
		})
	}
}

// hashedFrom: key is a content-hash name of an object of the input.
func hashedFrom(key string, had map[string]bool) bool {
	for old := range had {
		if strings.HasPrefix(key, old) && hashSuffix.MatchString(key[len(old):]) {
			return true
		}
	}
	return false
}

func walkMaps(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, c := range x {
			walkMaps(c, f)
		}
	case []any:
		for _, c := range x {
			walkMaps(c, f)
		}
	}
}

// unrename copies v with every string that is a new (hashed) name replaced
// by the name as written. Hashed names are unique enough that no other
// string can equal one.
func unrename(v any, renames map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, c := range x {
			m[k] = unrename(c, renames)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, c := range x {
			l[i] = unrename(c, renames)
		}
		return l
	case string:
		if old, ok := renames[x]; ok {
			return old
		}
	}
	return v
}

// withoutNameLabel removes the krender.io/name label that a hash rename adds
// (the name as written, for cleaning up old versions), and a labels map it
// leaves empty: like the suffix, it is what krender exists to add.
func withoutNameLabel(o any, renames map[string]string) any {
	m, _ := o.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	name, _ := md["name"].(string)
	if labels == nil || labels["krender.io/name"] != name || !slices.Contains(slices.Collect(maps.Values(renames)), name) {
		return o
	}
	delete(labels, "krender.io/name")
	if len(labels) == 0 {
		delete(md, "labels")
	}
	return o
}

func meta(o any) (kind, name, namespace string) {
	m, _ := o.(map[string]any)
	kind, _ = m["kind"].(string)
	md, _ := m["metadata"].(map[string]any)
	name, _ = md["name"].(string)
	if name == "" {
		name, _ = md["generateName"].(string)
	}
	namespace, _ = md["namespace"].(string)
	return kind, name, namespace
}

func objectID(o any) string {
	kind, name, _ := meta(o)
	return kind + "/" + name
}

// firstDiff says where a and b first differ ("" if they are equal).
func firstDiff(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %T became %T", path, a, b)
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			xv, inX := x[k]
			yv, inY := y[k]
			switch {
			case !inY:
				return fmt.Sprintf("%s.%s removed", path, k)
			case !inX:
				return fmt.Sprintf("%s.%s added", path, k)
			}
			if d := firstDiff(path+"."+k, xv, yv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v became %v", path, a, b)
		}
		for i := range x {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %#v became %#v", path, a, b)
	}
	return ""
}

// dollarScalars lists every scalar (keys included) that holds a `$`, in
// document order, with its style: each must come out byte for byte.
func dollarScalars(t *testing.T, text []byte) []string {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "$") {
			out = append(out, fmt.Sprintf("%s (style %d)", n.Value, n.Style))
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		walk(&n)
	}
}
