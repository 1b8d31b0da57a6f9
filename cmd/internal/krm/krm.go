// Package krm is the KRM function's protocol, per the kustomize functions
// spec: the ResourceList read from standard input and its functionConfig,
// where its items came from (so that a message names the user's file),
// check findings as results, the ResourceList written back. `krender fn`
// reads its input with it, hands action.Fn the items and functionConfig
// (the action renders them through the same pipeline as `krender render`)
// and writes the list from the action's Result: the protocol is the
// command's format, and stands with the entry points. kustomize runs it
// as an exec transformer; see docs/integrations.md.
package krm

import (
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
)

// The functionConfig krender takes, and the ResourceList versions it reads.
const (
	ConfigAPIVersion = "krender.io/v1alpha1"
	ConfigKind       = "Render"
	ListKind         = "ResourceList"
)

var listVersions = []string{"config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"}

// Source is what errors call standard input: positions are lines of the
// ResourceList as the orchestrator sent it.
const Source = "stdin"

// Config is functionConfig's spec.
type Config struct {
	// Profile is a path, resolved from the directory the orchestrator runs
	// the function in (kustomize: the kustomization's).
	Profile string `yaml:"profile"`
	// Tenant chooses one tenant of a profile that has tenants: a function
	// returns one set of objects, and two tenants' would collide by name.
	Tenant string `yaml:"tenant"`
	// Set is --set NAME=VALUE.
	Set map[string]string `yaml:"set"`
	// Check (default true) adds krender check's findings to the results;
	// false renders only, as krender render does.
	Check *bool `yaml:"check"`
}

// Result is one entry of ResourceList.results, as the functions spec and
// kyaml's framework.Result write it.
type Result struct {
	Message     string            `yaml:"message"`
	Severity    string            `yaml:"severity"`
	ResourceRef *ResourceRef      `yaml:"resourceRef,omitempty"`
	Field       *Field            `yaml:"field,omitempty"`
	File        *File             `yaml:"file,omitempty"`
	Tags        map[string]string `yaml:"tags,omitempty"`
}

type ResourceRef struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Name       string `yaml:"name"`
	Namespace  string `yaml:"namespace,omitempty"`
}

type Field struct {
	Path string `yaml:"path"`
}

type File struct {
	Path  string `yaml:"path"`
	Index int    `yaml:"index,omitempty"`
}

// A List is the ResourceList a function reads: its text, for positions,
// and the locator that turns those positions into the files, objects and
// fields the orchestrator read its items from.
type List struct {
	src  *manifest.Source
	node *yaml.Node
	loc  *locator
	fc   *yaml.Node // functionConfig, once Config has read it
}

// Read reads the ResourceList from in; fsys holds the files its items'
// annotations name, read only to locate a message.
func Read(in io.Reader, fsys fs.FS) (*List, error) {
	text, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	src := manifest.NewSource(Source, text)
	node, err := readList(src)
	if err != nil {
		return nil, err
	}
	return &List{src: src, node: node, loc: newLocator(src, fsys, node)}, nil
}

// Config reads functionConfig's spec.
func (l *List) Config() (Config, error) {
	fc, cfg, err := readConfig(l.src, l.node)
	l.fc = fc
	return cfg, err
}

// ProfilePos is where functionConfig names the profile; Config must have
// read it.
func (l *List) ProfilePos() filepos.Pos {
	n := manifest.Value(manifest.Value(l.fc, "spec"), "profile")
	return filepos.Pos{File: l.src.Path, Line: n.Line, Col: n.Column}
}

// Items are the list's items, as templates: their positions are lines of
// the list.
func (l *List) Items() ([]*manifest.Object, error) {
	return readItems(l.src, l.node)
}

// Results are check's findings on the rendered objects as the list's
// results, secret values masked.
func (l *List) Results(objs []*manifest.Object, found []rule.Finding, m *mask.Text) []Result {
	return findings(l.loc, objs, found, m)
}

// Write writes the list back with objs as its items, functionConfig as
// given and results, laid out as krender writes manifests.
func (l *List) Write(w io.Writer, objs []*manifest.Object, results []Result) error {
	return writeList(w, manifest.ScalarAt(l.node, "apiVersion"), objs, l.fc, results)
}

// Notes are ns, the stages' messages, located in the files the items came
// from.
func (l *List) Notes(ns []filepos.Note) []filepos.Note {
	return l.loc.notes(ns)
}

// Errors is err with the positions of its input errors located in the
// files the items came from.
func (l *List) Errors(err error) error {
	return l.loc.errors(err)
}

func readList(src *manifest.Source) (*yaml.Node, error) {
	var list *yaml.Node
	err := manifest.Decode(src, yqlib.NewDefaultYamlPreferences(), func(doc int, n *yaml.Node, _ string) error {
		if list != nil {
			return filepos.Errorf(filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column}, "a second document: a KRM function reads one %s", ListKind)
		}
		list = n
		return nil
	})
	if err != nil {
		return nil, err
	}
	if list == nil {
		return nil, fmt.Errorf("%s: no input: a KRM function reads a %s (run by kustomize, kpt, or krender fn < list.yaml)", Source, ListKind)
	}
	pos := filepos.Pos{File: src.Path, Line: list.Line, Col: list.Column}
	if list.Kind != yaml.MappingNode || manifest.ScalarAt(list, "kind") != ListKind || !contains(listVersions, manifest.ScalarAt(list, "apiVersion")) {
		return nil, filepos.Errorf(pos, "want a %s of apiVersion %s", ListKind, strings.Join(listVersions, " or "))
	}
	return list, nil
}

// configKeys are functionConfig spec's keys, as Config's yaml tags say.
var configKeys = []string{"profile", "tenant", "set", "check"}

// readConfig reads functionConfig. Its messages follow the locator's
// "functionConfig spec.tennant: " (the field they are about).
func readConfig(src *manifest.Source, list *yaml.Node) (*yaml.Node, Config, error) {
	var cfg Config
	at := func(n *yaml.Node) filepos.Pos { return filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column} }
	fc, spec, err := configSpec(at, list)
	if err != nil {
		return nil, cfg, err
	}
	if err := readSpec(at, spec, &cfg).Err(); err != nil {
		return nil, cfg, err
	}
	if cfg.Profile == "" {
		return nil, cfg, filepos.Errorf(at(spec), "profile is required (a path from the directory the function runs in)")
	}
	return fc, cfg, nil
}

// configSpec is functionConfig and its spec, once it is known to be krender's.
func configSpec(at func(*yaml.Node) filepos.Pos, list *yaml.Node) (fc, spec *yaml.Node, err error) {
	fc = manifest.Value(list, "functionConfig")
	if fc == nil || fc.Kind != yaml.MappingNode {
		return nil, nil, filepos.Errorf(at(list), "functionConfig is missing: want apiVersion: %s, kind: %s, spec.profile", ConfigAPIVersion, ConfigKind)
	}
	if v, k := manifest.ScalarAt(fc, "apiVersion"), manifest.ScalarAt(fc, "kind"); v != ConfigAPIVersion || k != ConfigKind {
		return nil, nil, filepos.Errorf(at(fc), "apiVersion %s, kind %s is not krender's: want apiVersion: %s, kind: %s", v, k, ConfigAPIVersion, ConfigKind)
	}
	spec = manifest.Value(fc, "spec")
	if spec == nil || spec.Kind != yaml.MappingNode {
		return nil, nil, filepos.Errorf(at(fc), "spec.profile is required (a path from the directory the function runs in)")
	}
	return fc, spec, nil
}

// readSpec fills cfg from spec's keys and reports every key it cannot use.
func readSpec(at func(*yaml.Node) filepos.Pos, spec *yaml.Node, cfg *Config) filepos.List {
	var errs filepos.List
	str := func(k, v *yaml.Node) string {
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			errs = append(errs, filepos.Errorf(at(v), "want a string"))
		}
		return v.Value
	}
	for i := 0; i+1 < len(spec.Content); i += 2 {
		k, v := spec.Content[i], spec.Content[i+1]
		switch k.Value {
		case "profile":
			cfg.Profile = str(k, v)
		case "tenant":
			cfg.Tenant = str(k, v)
		case "check":
			b, ok := map[string]bool{"true": true, "false": false}[v.Value]
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || !ok {
				errs = append(errs, filepos.Errorf(at(v), "want true or false"))
			}
			cfg.Check = &b
		case "set":
			if v.Tag == "!!null" {
				continue
			}
			if v.Kind != yaml.MappingNode {
				errs = append(errs, filepos.Errorf(at(v), "want a mapping of NAME: VALUE"))
				continue
			}
			var serrs filepos.List
			cfg.Set, serrs = readSet(at, v)
			errs = append(errs, serrs...)
		default:
			msg := "unknown key" + suggest.Hint(k.Value, configKeys)
			errs = append(errs, filepos.Errorf(at(k), "%s; spec takes %s", msg, strings.Join(configKeys, ", ")))
		}
	}
	return errs
}

// readSet reads spec.set, whose values must be strings.
func readSet(at func(*yaml.Node) filepos.Pos, v *yaml.Node) (map[string]string, filepos.List) {
	var errs filepos.List
	set := map[string]string{}
	for j := 0; j+1 < len(v.Content); j += 2 {
		if name, val := v.Content[j], v.Content[j+1]; val.Kind != yaml.ScalarNode {
			errs = append(errs, filepos.Errorf(at(val), "want a string value for %s", name.Value))
		} else {
			set[name.Value] = val.Value
		}
	}
	return set, errs
}

func readItems(src *manifest.Source, list *yaml.Node) ([]*manifest.Object, error) {
	seq := manifest.Value(list, "items")
	if seq == nil || seq.Tag == "!!null" {
		return []*manifest.Object{}, nil
	}
	if seq.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(filepos.Pos{File: src.Path, Line: seq.Line, Col: seq.Column}, "items must be a list")
	}
	var errs filepos.List
	objs := make([]*manifest.Object, 0, len(seq.Content))
	for i, n := range seq.Content {
		o := &manifest.Object{Node: n, Src: src, Doc: i}
		if n.Kind != yaml.MappingNode || o.Kind() == "" || o.APIVersion() == "" {
			errs = append(errs, filepos.Errorf(o.Pos(n), "items[%d] is not a Kubernetes object: apiVersion and kind are required", i))
			continue
		}
		objs = append(objs, o)
	}
	return objs, errs.Err()
}

// writeList writes the ResourceList laid out as krender writes manifests.
func writeList(w io.Writer, apiVersion string, objs []*manifest.Object, fc *yaml.Node, results []Result) error {
	items := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, o := range objs {
		items.Content = append(items.Content, o.Node)
	}
	list := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	manifest.Put(list, "apiVersion", manifest.String(apiVersion))
	manifest.Put(list, "kind", manifest.String(ListKind))
	manifest.Put(list, "items", items)
	manifest.Put(list, "functionConfig", fc)
	if len(results) > 0 {
		var rn yaml.Node
		if err := rn.Encode(results); err != nil {
			return err
		}
		manifest.Put(list, "results", &rn)
	}
	d, err := yaml.NewDumper(w, yaml.WithV3Defaults(), yaml.WithIndent(2), yaml.WithCompactSeqIndent(false), yaml.WithLineWidth(-1))
	if err != nil {
		return err
	}
	if err := d.Dump(list); err != nil {
		return err
	}
	return d.Close()
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
