// Package krm runs krender as a KRM function, per the kustomize functions
// spec: a ResourceList on standard input, its items rendered through the
// same pipeline as `krender render` (substitution, injection, zones,
// hashing), the ResourceList on standard output with check findings in
// results. kustomize runs it as an exec transformer; see docs/integrations.md.
package krm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render"
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

// Linter builds krender check's linter for a loaded profile: the stage the
// engine runs last, and what it found once the render is done
// (check.KRMLinter). krm does not import check, so that a caller that only
// renders links no linter.
type Linter func(p *profiles.Profile, fsys fs.FS, root *loadroot.Root) (render.Stage, func() []rule.Finding, error)

// ErrNeedsLinter is Run's answer, before it renders anything, to a
// functionConfig that asks for check's findings when the caller gave no
// Linter.
var ErrNeedsLinter = errors.New("krender fn: functionConfig asks for check's findings, which krender-check gives")

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

// Fn is `krender fn`, the action: it renders the ResourceList read from In
// and writes the result to Out, only when everything succeeded: an
// orchestrator must never mistake half a list for the output.
type Fn struct {
	In  io.Reader
	Out io.Writer
	// FS holds the profile and the files it names, paths as users type
	// them (see package userfs).
	FS fs.FS
	// Secrets are CI's secrets (--set-env, --set-file), as in
	// action.Options.
	Secrets []action.Secret
	// Root is where the profile, named by functionConfig (a file of the
	// repository like any other), and the files it names must lie; nil:
	// the default root of FS (the git work tree holding the directory the
	// function runs in).
	Root *loadroot.Root
	// Linter adds check's findings to the results, unless functionConfig
	// says spec.check: false; without one, Run returns ErrNeedsLinter for
	// a functionConfig that asks for them.
	Linter Linter
}

// Run renders and writes; the notes are the stages' messages, for stderr.
func (f *Fn) Run() ([]filepos.Note, error) {
	text, err := io.ReadAll(f.In)
	if err != nil {
		return nil, err
	}
	src := manifest.NewSource(Source, text)
	list, err := readList(src)
	if err != nil {
		return nil, err
	}
	loc := newLocator(src, f.FS, list)
	notes, err := run(src, list, loc, f.Out, f.FS, f.Secrets, f.Root, f.Linter)
	return loc.notes(notes), loc.errors(err)
}

// options are what functionConfig asks of the render action.
func options(cfg Config, items []*manifest.Object, secrets []action.Secret, root *loadroot.Root) action.Options {
	opts := action.Options{Profile: cfg.Profile, Templates: items, Secrets: secrets, Root: root}
	if cfg.Tenant != "" {
		opts.Tenants = []string{cfg.Tenant}
	}
	names := make([]string, 0, len(cfg.Set))
	for name := range cfg.Set {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		opts.Set = append(opts.Set, name+"="+cfg.Set[name])
	}
	return opts
}

func run(src *manifest.Source, list *yaml.Node, loc *locator, out io.Writer, fsys fs.FS, secrets []action.Secret, root *loadroot.Root, lint Linter) ([]filepos.Note, error) {
	fc, cfg, err := readConfig(src, list)
	if err != nil {
		return nil, err
	}
	if cfg.Check != nil && !*cfg.Check {
		lint = nil
	} else if lint == nil {
		return nil, ErrNeedsLinter
	}
	items, err := readItems(src, list)
	if err != nil {
		return nil, err
	}

	if root, err = loader.DefaultRoot(fsys, root); err != nil {
		return nil, err
	}
	n := manifest.Value(manifest.Value(fc, "spec"), "profile")
	if err := root.Check("the profile", cfg.Profile, filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column}); err != nil {
		return nil, err
	}
	in, err := action.Load(fsys, options(cfg, items, secrets, root))
	if err != nil {
		return nil, err
	}
	stage, found, err := linterFor(lint, in, fsys, root)
	if err != nil {
		return nil, err
	}
	e, err := in.Engine(stage)
	if err != nil {
		return nil, err
	}
	if err := oneUnit(e, cfg.Profile); err != nil {
		return nil, err
	}
	var set *manifest.Set
	res, err := e.Each(func(s *manifest.Set) error { set = s; return nil })
	if err != nil {
		return nil, err
	}
	results, err := findings(loc, set, found(), mask.NewText(action.SecretValues(secrets)))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := writeList(&b, manifest.ScalarAt(list, "apiVersion"), set.Objects, fc, results); err != nil {
		return nil, err
	}
	_, err = b.WriteTo(out)
	return res.Notes, err
}

// oneUnit refuses a profile with tenants when functionConfig names none:
// a function returns one set of objects, and two tenants' would collide.
func oneUnit(e *render.Engine, profile string) error {
	if len(e.Units) == 1 {
		return nil
	}
	var tenants []string
	for _, u := range e.Units {
		tenants = append(tenants, u.Tenant)
	}
	return fmt.Errorf("functionConfig: profile %s has tenants (%s): name one in spec.tenant", profile, strings.Join(tenants, ", "))
}

// linterFor is lint's stage and findings, or none: spec.check: false.
func linterFor(lint Linter, in *action.Inputs, fsys fs.FS, root *loadroot.Root) (render.Stage, func() []rule.Finding, error) {
	if lint == nil {
		return nil, func() []rule.Finding { return nil }, nil
	}
	return lint(in.Profile, fsys, root)
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
