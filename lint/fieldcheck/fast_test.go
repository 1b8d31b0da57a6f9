package fieldcheck_test

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/kube/kubescheme"
	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/lint/fieldcheck/fastpath"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/workload"
)

// target is a tree the linter decodes strictly: an object of a built-in
// kind, or the pod template of a custom workload.
type target struct {
	name string
	o    *manifest.Object
	path []string // the pod template's; nil: the whole object
	typ  reflect.Type
}

// root and a new value to decode it into.
func (tg target) root() (*yaml.Node, any) {
	if tg.path != nil {
		return manifest.Lookup(tg.o.Node, tg.path...), &corev1.PodTemplateSpec{}
	}
	return tg.o.Node, reflect.New(tg.typ).Interface()
}

func targetsOf(name string, objs []*manifest.Object) []target {
	var out []target
	for i, o := range objs {
		n := fmt.Sprintf("%s#%d", name, i)
		gv, _ := schema.ParseGroupVersion(o.APIVersion())
		if typ, ok := fieldcheck.Type(gv.WithKind(o.Kind())); ok {
			out = append(out, target{n, o, nil, typ})
		}
		if p := workload.TemplatePath(o.Kind(), o.Group()); len(p) > 0 {
			if t := manifest.Lookup(o.Node, p...); t != nil && t.Kind == yaml.MappingNode {
				out = append(out, target{n + " template", o, p, nil})
			}
		}
	}
	return out
}

// corpus is every built-in object in the repository's YAML (templates,
// test data, examples) and the bench fleet as rendered.
func corpus(t testing.TB) []target {
	t.Helper()
	var out []target
	for _, f := range objectFiles(t) {
		out = append(out, targetsOf(f.name, f.objs)...)
	}
	return out
}

type objectFile struct {
	name string
	objs []*manifest.Object
}

// objectFiles are the objects of every YAML file of the repository that
// parses, and of the bench fleet (custom resources included) as rendered
// for two tenants.
func objectFiles(t testing.TB) []objectFile {
	t.Helper()
	var out []objectFile
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".cache" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return nil
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if objs, err := manifest.Parse(manifest.NewSource(p, text)); err == nil { // else a test's bad input
			out = append(out, objectFile{p, objs})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f := fleetgen.Fleet{Apps: 20, Tenants: 2}
	fsys := f.FS()
	e, err := action.Engine(filesys.NewMem(fsys), action.Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir, fleetgen.CustomDir}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Each(func(s *manifest.Set) error {
		out = append(out, objectFile{"fleet " + s.Tenant, s.Objects})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// agree checks the promise of the fast path: where it says clean, strict
// decoding through JSON finds nothing. It reports whether it was clean.
func agree(t testing.TB, tg target, what string) bool {
	t.Helper()
	root, obj := tg.root()
	if err := tg.o.CheckNodes(); err != nil {
		return false
	}
	var fast bool
	if tg.path != nil {
		fast = fastpath.PodTemplate(tg.o, tg.path)
		root = fieldcheck.PrintedIn(tg.o.Node, tg.path, root)
	} else {
		// A mutation may have changed the kind: judge by the kind now written.
		judged, clean := fastpath.Object(tg.o)
		if known := fieldcheck.Known(tg.o); judged != known {
			t.Errorf("%s (%s): fastpath judges %s %s %v, fieldcheck.Known says %v", tg.name, what, tg.o.APIVersion(), tg.o.Kind(), judged, known)
		}
		gv, _ := schema.ParseGroupVersion(tg.o.APIVersion())
		typ, ok := fieldcheck.Type(gv.WithKind(tg.o.Kind()))
		if !ok {
			return false
		}
		fast, obj = clean, reflect.New(typ).Interface()
	}
	slow := fieldcheck.DecodeJSON(root, obj, "", "x")
	if fast && len(slow) > 0 {
		text, _ := yaml.Marshal(root)
		t.Errorf("%s (%s): the fast path finds it clean, the JSON path finds %q in\n%s", tg.name, what, slow[0].Msg, text)
	}
	return fast
}

// TestFastPathAgrees: over every built-in object of the repository and
// the rendered fleet, decodeStrict's findings are the JSON path's, and
// nearly all take the fast path.
func TestFastPathAgrees(t *testing.T) {
	targets := corpus(t)
	fast := 0
	for _, tg := range targets {
		if agree(t, tg, "as written") {
			fast++
		}
	}
	t.Logf("%d of %d trees clean by the fast path", fast, len(targets))
	if len(targets) < 300 || fast < len(targets)*3/4 {
		t.Errorf("%d of %d trees took the fast path: want most of at least 300", fast, len(targets))
	}
}

// TestFastPathMutations: random mutations of real objects (misspelled
// keys, values of other types and YAML 1.1 readings, nulls, overflowing
// numbers, quantities, duplicates, aliases, tags) never make the fast
// path call clean what the JSON path rejects.
func TestFastPathMutations(t *testing.T) {
	targets := corpus(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	n := 6000
	if testing.Short() {
		n = 1000
	}
	fast, mutated := 0, 0
	for range n {
		tg := targets[rnd.IntN(len(targets))]
		tg.o = tg.o.Clone()
		root, _ := tg.root()
		if root == nil || root.Kind != yaml.MappingNode {
			continue // an earlier pick's template path no longer leads to a mapping
		}
		what := mutate(root, rnd)
		if what == "" {
			continue
		}
		mutated++
		if agree(t, tg, what) {
			fast++
		}
	}
	t.Logf("%d mutations, %d still clean by the fast path", mutated, fast)
	if fast == 0 || fast == mutated {
		t.Errorf("%d of %d mutated trees clean: the mutations should keep some clean and break others", fast, mutated)
	}
}

// FuzzFastPath is TestFastPathMutations and TestValueAgrees driven by the
// fuzzer: the seed picks the object and the mutations.
func FuzzFastPath(f *testing.F) {
	targets := corpus(f)
	for i := range uint64(20) {
		f.Add(i, uint64(i*7+1), uint8(1+i%3))
	}
	f.Fuzz(func(t *testing.T, pick, seed uint64, times uint8) {
		rnd := rand.New(rand.NewPCG(pick, seed))
		tg := targets[pick%uint64(len(targets))]
		tg.o = tg.o.Clone()
		root, _ := tg.root()
		if root == nil || root.Kind != yaml.MappingNode {
			t.Skip()
		}
		var what []string
		for range 1 + times%4 {
			what = append(what, mutate(root, rnd))
		}
		agree(t, tg, strings.Join(what, "; "))
		sameValue(t, tg.name, strings.Join(what, "; "), tg.o)
	})
}

// values are scalars that read differently in YAML 1.1 and 1.2, or fit one
// Go type and not another.
var values = []string{
	"yes", "no", "on", "off", "y", "n", "Yes", "NO", "true", "false", "True", "null", "~", "", "Null",
	"0", "1", "-1", "12", "0777", "0o17", "0x1F", "1_000", "+5", "1e3", "1.5", "0.5", ".5", ".inf", "-.inf", ".nan",
	"2147483647", "2147483648", "-2147483649", "9223372036854775807", "99999999999999999999",
	"100m", "1Gi", "1.5Gi", "2e3", "1Ki", "-1", "abc", "nginx:1.27", "aGVsbG8=", "aGVsbG8", "not base64!",
	"2024-01-01T00:00:00Z", "2024-01-01", "<<", "a: b", "x #y", "TCP", "IfNotPresent", "\t", "é", "a\"b", "<x>",
	"a\n", "a\n\n", "\na", " lead", "trail ", "x\n  y\n", "a\u2028b", "a\u0085b", "#x", "- x", "a\r\nb", "\ufeffa", "a  b", "",
}

// addedKeys are keys a mutation adds to a mapping: unknown ones, a merge
// key, one in other case, and strategic-merge directives, which the JSON
// path drops from its unknown fields unless their name holds a path.
var addedKeys = []string{"extra", "<<", "Name", "image", "on", "$patch", "$retainKeys", "$setElementOrder/containers",
	"$setElementOrder/a.b", "$deleteFromPrimitiveList/args", "$patch[0]"}

// nodes lists every node of the tree under n with its parent.
func nodes(n *yaml.Node) (all, parents []*yaml.Node) {
	var walk func(n, p *yaml.Node)
	walk = func(n, p *yaml.Node) {
		all, parents = append(all, n), append(parents, p)
		for _, c := range n.Content {
			walk(c, n)
		}
	}
	walk(n, nil)
	return all, parents
}

func scalar(rnd *rand.Rand) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: values[rnd.IntN(len(values))]}
	switch rnd.IntN(6) {
	case 0:
		n.Style = yaml.DoubleQuotedStyle
	case 1:
		n.Style = yaml.SingleQuotedStyle
	case 2:
		n.Style = yaml.LiteralStyle
	case 3:
		n.Tag = []string{"!!str", "!!int", "!!float", "!!bool", "!!null", "!custom", "!!binary", "!!timestamp"}[rnd.IntN(8)]
	}
	if n.Tag == "" {
		n.Tag = n.ShortTag()
	}
	return n
}

// mutate changes one random node under root and says how; "" if it found
// nothing to change.
func mutate(root *yaml.Node, rnd *rand.Rand) string {
	all, parents := nodes(root)
	i := rnd.IntN(len(all))
	n, p := all[i], parents[i]
	isKey := p != nil && p.Kind == yaml.MappingNode && indexOf(p, n)%2 == 0
	switch k := rnd.IntN(12); {
	case isKey && k < 4:
		return misspell(n, rnd)
	case isKey && k < 6 && p != nil:
		p.Content = append(p.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: n.Value}, scalar(rnd))
		return "duplicate key " + n.Value
	case isKey:
		*n = *scalar(rnd)
		return "key " + n.Value
	case k < 5:
		s := scalar(rnd)
		*n = *s
		return fmt.Sprintf("value %q %s style %d", s.Value, s.Tag, s.Style)
	case k < 6:
		*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		return "null"
	case k < 7 && n.Kind == yaml.MappingNode:
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: addedKeys[rnd.IntN(len(addedKeys))]}, scalar(rnd))
		return "added key"
	case k < 8:
		kinds := []yaml.Kind{yaml.MappingNode, yaml.SequenceNode}
		*n = yaml.Node{Kind: kinds[rnd.IntN(2)], Tag: []string{"!!map", "!!seq"}[rnd.IntN(2)]}
		if rnd.IntN(2) == 0 {
			n.Content = []*yaml.Node{scalar(rnd)}
			if n.Kind == yaml.MappingNode {
				n.Content = append([]*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "k"}}, n.Content...)
			}
		}
		return "collection"
	case k < 9 && p != nil && len(all) > 1:
		other := all[rnd.IntN(len(all))]
		if other == n || other == root {
			return ""
		}
		other.Anchor = "a"
		*n = yaml.Node{Kind: yaml.AliasNode, Value: "a", Alias: other}
		return "alias"
	case k < 10 && n.Kind == yaml.ScalarNode:
		n.Tag = []string{"!!str", "!!int", "!!float", "!!bool", "!!null", "!x"}[rnd.IntN(6)]
		n.Style |= yaml.TaggedStyle
		return "tag " + n.Tag
	case k < 11 && n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		n.Content = append(n.Content, n.Content[0]) // the same node twice
		return "item twice"
	case n.Kind == yaml.ScalarNode:
		n.Style = []yaml.Style{0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle}[rnd.IntN(5)]
		return "style"
	}
	return ""
}

func indexOf(p, n *yaml.Node) int {
	for i, c := range p.Content {
		if c == n {
			return i
		}
	}
	return -1
}

func misspell(n *yaml.Node, rnd *rand.Rand) string {
	v := []byte(n.Value)
	if len(v) == 0 {
		return ""
	}
	j := rnd.IntN(len(v))
	switch rnd.IntN(4) {
	case 0:
		v = append(v[:j], v[j+1:]...)
	case 1:
		v[j] ^= 0x20 // case
	case 2:
		v = append(v[:j], append([]byte{'x'}, v[j:]...)...)
	default:
		if j+1 < len(v) {
			v[j], v[j+1] = v[j+1], v[j]
		}
	}
	n.Value = string(v)
	return "misspelled " + n.Value
}

// TestKnownAgreesWithFastPath: fastpath judges exactly the kinds Known
// knows, over every kind of the scheme in each group version spelt as
// written and in other ways, and over custom resources.
func TestKnownAgreesWithFastPath(t *testing.T) {
	var pairs [][2]string
	for gvk := range kubescheme.Scheme().AllKnownTypes() {
		av := gvk.GroupVersion().String()
		pairs = append(pairs, [2]string{av, gvk.Kind}, [2]string{"/" + av, gvk.Kind}, [2]string{av + "/", gvk.Kind},
			[2]string{av, strings.ToLower(gvk.Kind)}, [2]string{strings.ToUpper(av), gvk.Kind})
	}
	pairs = append(pairs, [2]string{"argoproj.io/v1alpha1", "Rollout"}, [2]string{"", "Pod"}, [2]string{"v1", ""},
		[2]string{"apps/v1/x", "Deployment"}, [2]string{" apps/v1", "Deployment"})
	known := 0
	for _, p := range pairs {
		o := &manifest.Object{Node: &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "apiVersion"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: p[0]},
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "kind"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: p[1]},
		}}}
		judged, _ := fastpath.Object(o)
		if k := fieldcheck.Known(o); judged != k {
			t.Errorf("%q %q: fastpath judged %v, Known %v", p[0], p[1], judged, k)
		} else if k {
			known++
		}
	}
	if known < 100 {
		t.Errorf("only %d of %d spellings known", known, len(pairs))
	}
}
