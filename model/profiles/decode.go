// Package profiles is the per-environment profile: the deploy-time variables
// that krender may substitute, the tenants, and the settings of each stage,
// and reading one profile file into it (Decode, Apply). Following a file's
// extends chain is the files layer's (files/loader).
package profiles

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
)

// File is one profile file as written, before it is applied to a Profile:
// what Decode reads and what the JSON Schema describes.
type File struct {
	Extends    Str         `yaml:"extends"`
	Namespace  Str         `yaml:"namespace"`
	Vars       yaml.Node   `yaml:"vars"`
	Tenants    yaml.Node   `yaml:"tenants"`
	Inject     []yaml.Node `yaml:"inject"`
	Zones      yaml.Node   `yaml:"zones"`
	ZoneHosts  *ZoneHosts  `yaml:"zoneHosts"`
	Hash       *Hash       `yaml:"hash"`
	Check      *Check      `yaml:"check"`
	IstioGuard *bool       `yaml:"istioGuard"`
	Limits     yaml.Node   `yaml:"limits"`

	Substitution *Substitution `yaml:"substitution"`
	KubeVersion  Str           `yaml:"kubeVersion"`
}

// TenantDoc is a tenant's entry in File.Tenants.
type TenantDoc struct {
	Vars yaml.Node `yaml:"vars"`
}

// ZoneDoc is a zone's entry in File.Zones.
type ZoneDoc struct {
	HostAliases []HostAlias `yaml:"hostAliases"`
}

// VarNamePattern and TenantNamePattern are the names Apply accepts, for
// the schema to state them too.
const (
	VarNamePattern    = `^[A-Za-z_][A-Za-z0-9_]*$`
	TenantNamePattern = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
)

var (
	varName    = regexp.MustCompile(VarNamePattern)
	tenantName = regexp.MustCompile(TenantNamePattern)
)

// New is a profile before any file is applied to it: the defaults.
func New() *Profile { return &Profile{IstioGuard: true} }

// Guard refuses a file a profile names (what is "extends", "fragment" or
// "CRD file"; at is where it is named) before anything reads it: Apply
// asks it about the fragments and CRD files, the loader about extends
// (see package loadroot).
type Guard func(what, path string, at filepos.Pos) error

// CheckUnused refuses a substitution.unused entry that names no variable
// of the chain: a misspelt entry would mark nothing. The loader calls it
// once the whole chain is applied.
func (p *Profile) CheckUnused() error {
	defined := map[string]bool{}
	for _, d := range p.Defs {
		defined[d.Name] = true
	}
	var errs filepos.List
	for _, u := range p.Substitution.Unused {
		if !defined[u.Value] {
			errs = append(errs, filepos.Errorf(u.Pos, "substitution.unused names %q, which no profile of the chain defines%s", u.Value, suggest.Hint(u.Value, p.Defs.Names())))
		}
	}
	return errs.Err()
}

// Decode reads one profile file: held to the default limits (a profile is
// read before any profile could raise them), one YAML document, a mapping
// of known keys, each position naming path.
func Decode(path string, text []byte) (*File, error) {
	src := manifest.NewSource(path, text)
	if _, err := src.Limits.CheckText(src.LimitsFile()); err != nil {
		return nil, err // profiles are read with the default limits
	}
	var root yaml.Node
	if err := yaml.Load(text, &root); err != nil {
		if strings.Contains(err.Error(), "no documents in stream") {
			return &File{}, nil // empty, as a file of comments is
		}
		if strings.Contains(err.Error(), "expected single document") {
			return nil, filepos.Errorf(secondDocument(src), "a profile is one YAML document; another one starts here")
		}
		return nil, loadError(src, nil, nil, err)
	}
	if err := src.Limits.NodeChecker(src.LimitsFile().NodePos).Document(body(&root), 0); err != nil {
		return nil, err
	}
	if err := manifest.CheckDuplicateKeys(src, &root); err != nil {
		return nil, err
	}
	doc := &File{}
	if root.Kind == 0 {
		return doc, nil // an empty profile
	}
	if n := body(&root); n.Kind != yaml.MappingNode {
		return nil, filepos.Errorf(filepos.Pos{File: path, Line: n.Line, Col: n.Column}, "a profile must be a mapping")
	}
	if err := root.Load(doc, yaml.WithKnownFields()); err != nil {
		return nil, loadError(manifest.NewSource(path, nil), &root, doc, err)
	}
	if k, _ := manifest.KeyValue(body(&root), "zoneHosts"); k != nil && doc.ZoneHosts != nil {
		doc.ZoneHosts.Pos = at(path, k)
	}
	setFile(reflect.ValueOf(doc), path)
	return doc, nil
}

// secondDocument is where a second document of src starts: the first
// `---` after anything but comments, or the second `---`.
func secondDocument(src *manifest.Source) filepos.Pos {
	markers, content := 0, false
	for i, line := range strings.SplitAfter(string(src.Text), "\n") {
		t := strings.TrimRight(line, "\r\n")
		switch {
		case t == "---" || t == "..." || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "... "):
			if markers++; content || markers > 1 {
				return filepos.Pos{File: src.Path, Line: i + 1, Col: 1}
			}
		case strings.TrimSpace(t) != "" && !strings.HasPrefix(strings.TrimSpace(t), "#"):
			content = true
		}
	}
	return filepos.Pos{File: src.Path, Line: 1, Col: 1}
}

func body(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return n.Content[0]
	}
	return n
}

// Apply layers one decoded file over p: later files override earlier
// ones, section by section (docs/profiles.md). Paths the file names are
// resolved beside it and passed by guard.
func (p *Profile) Apply(path string, doc *File, guard Guard) error {
	p.Files = append(p.Files, path)
	if doc.Namespace.Value != "" {
		p.Namespace = doc.Namespace
	}
	if kv := doc.KubeVersion; kv.Value != "" {
		v, err := kubeapi.ParseVersion(kv.Value)
		if err != nil {
			return filepos.Errorf(kv.Pos, "kubeVersion %v", err)
		}
		p.KubeVersion = KubeVersion{Str: kv, Version: v}
	}
	vars, err := decodeVars(path, &doc.Vars)
	if err != nil {
		return err
	}
	p.Vars = p.Vars.Merge(vars)
	p.Defs = append(p.Defs, vars...)
	if err := p.applyTenants(path, &doc.Tenants); err != nil {
		return err
	}
	if err := p.applyInjects(path, doc.Inject, guard); err != nil {
		return err
	}
	if err := p.applyZones(path, &doc.Zones); err != nil {
		return err
	}
	if doc.ZoneHosts != nil {
		p.ZoneHosts = p.ZoneHosts.merge(doc.ZoneHosts)
	}
	if doc.Hash != nil {
		p.Hash = p.Hash.Merge(*doc.Hash)
	}
	if doc.Check != nil {
		if err := p.applyCheck(path, doc.Check, guard); err != nil {
			return err
		}
	}
	if doc.Substitution != nil {
		if err := doc.Substitution.check(); err != nil {
			return err
		}
		p.Substitution = p.Substitution.Merge(*doc.Substitution)
	}
	if doc.IstioGuard != nil {
		p.IstioGuard = *doc.IstioGuard
	}
	lim, err := decodeLimits(path, &doc.Limits)
	p.Limits = p.Limits.Merge(lim)
	return err
}

// applyInjects decodes the file's inject entries, each naming the file its
// positions are in, and adds them.
func (p *Profile) applyInjects(path string, entries []yaml.Node, guard Guard) error {
	for i := range entries {
		n := &entries[i]
		var in Inject
		if err := n.Load(&in, yaml.WithKnownFields()); err != nil {
			return loadError(manifest.NewSource(path, nil), n, &in, err)
		}
		setFile(reflect.ValueOf(&in), path)
		in.Pos = at(path, n)
		if err := p.applyInject(path, in, guard); err != nil {
			return err
		}
	}
	return nil
}

// applyCheck merges the file's check section; its CRD files are read
// beside the file and must pass the guard.
func (p *Profile) applyCheck(path string, c *Check, guard Guard) error {
	for i := range c.CRDs {
		crd := &c.CRDs[i]
		crd.Value = BesideFile(path, crd.Value)
		if err := guard("CRD file", crd.Value, crd.Pos); err != nil {
			return err
		}
	}
	p.Check = p.Check.merge(*c)
	return nil
}

// decodeLimits reads the limits section: each a whole number, at most its
// maximum, so that a profile can make room for a large input but not make
// the work unbounded.
func decodeLimits(path string, n *yaml.Node) (limits.Limits, error) {
	var lim limits.Limits
	err := eachEntry(path, n, "limits", func(key, val *yaml.Node) error {
		f := lim.Field(key.Value)
		if f == nil {
			return filepos.Errorf(at(path, key), "unknown limit %q%s (limits: %s)", key.Value, suggest.Hint(key.Value, limits.Keys()), strings.Join(limits.Keys(), ", "))
		}
		mx := limits.Max()
		maxV := *mx.Field(key.Value)
		v, err := strconv.Atoi(val.Value)
		if val.Kind != yaml.ScalarNode || val.Tag != "!!int" || err != nil || v < 1 || v > maxV {
			return filepos.Errorf(at(path, val), "limits.%s must be a whole number from 1 to %d", key.Value, maxV)
		}
		*f = v
		return nil
	})
	return lim, err
}

// check splits every runtime field's path, so a bad entry fails where it
// was written rather than when the first object is rendered.
func (s *Substitution) check() error {
	var errs filepos.List
	if d := s.Dialect; d.Pos.IsKnown() && !slices.Contains(Dialects(), d.Value) {
		errs = append(errs, filepos.Errorf(d.Pos, "substitution.dialect %q is none of %s%s", d.Value, strings.Join(Dialects(), ", "), suggest.Hint(d.Value, Dialects())))
	}
	for i := range s.RuntimeFields {
		f := &s.RuntimeFields[i]
		switch {
		case f.Kind.Value == "":
			errs = append(errs, filepos.Errorf(f.Pos, "runtime field needs a kind (the kind of the object holding the field)"))
		case f.Path.Value == "":
			errs = append(errs, filepos.Errorf(f.Pos, "runtime field needs a path (like spec/scripts/body)"))
		default:
			keys, err := manifest.SplitPath(f.Path.Value)
			if err != nil {
				errs = append(errs, filepos.Errorf(f.Path.Pos, "%v", err))
			}
			f.Keys = keys
		}
	}
	return errs.Err()
}

func (p *Profile) applyTenants(path string, n *yaml.Node) error {
	return eachEntry(path, n, "tenants", func(key, val *yaml.Node) error {
		pos := at(path, key)
		if !tenantName.MatchString(key.Value) {
			return filepos.Errorf(pos, "tenant name %q must be a DNS label (lower-case letters, digits, '-')", key.Value)
		}
		var td TenantDoc
		if val.Tag != "!!null" {
			if err := val.Load(&td, yaml.WithKnownFields()); err != nil {
				return loadError(manifest.NewSource(path, nil), val, &td, err)
			}
		}
		vars, err := decodeVars(path, &td.Vars)
		if err != nil {
			return err
		}
		p.Defs = append(p.Defs, vars...)
		for i := range p.Tenants {
			if p.Tenants[i].Name == key.Value {
				p.Tenants[i].Vars = p.Tenants[i].Vars.Merge(vars)
				return nil
			}
		}
		p.Tenants = append(p.Tenants, Tenant{Name: key.Value, Pos: pos, Vars: vars})
		return nil
	})
}

func (p *Profile) applyInject(path string, in Inject, guard Guard) error {
	in.File = path
	if in.Name.Value == "" {
		return filepos.Errorf(in.Pos, "inject entry needs a name")
	}
	if in.Fragment.Value != "" {
		in.FragmentPath = BesideFile(path, in.Fragment.Value)
		if err := guard("fragment", in.FragmentPath, in.Fragment.Pos); err != nil {
			return err
		}
	}
	for i := range p.Inject {
		if p.Inject[i].Name.Value == in.Name.Value {
			p.Inject[i] = in
			return nil
		}
	}
	p.Inject = append(p.Inject, in)
	return nil
}

func (p *Profile) applyZones(path string, n *yaml.Node) error {
	return eachEntry(path, n, "zones", func(key, val *yaml.Node) error {
		var zd ZoneDoc
		if val.Tag != "!!null" {
			if err := val.Load(&zd, yaml.WithKnownFields()); err != nil {
				return loadError(manifest.NewSource(path, nil), val, &zd, err)
			}
		}
		if seq := manifest.Value(val, "hostAliases"); seq != nil && len(seq.Content) == len(zd.HostAliases) {
			for i, item := range seq.Content {
				zd.HostAliases[i].Pos = at(path, item)
			}
		}
		setFile(reflect.ValueOf(&zd), path)
		z := Zone{Name: key.Value, Pos: at(path, key), HostAliases: zd.HostAliases}
		for i := range p.Zones {
			if p.Zones[i].Name == z.Name {
				p.Zones[i] = z
				return nil
			}
		}
		p.Zones = append(p.Zones, z)
		return nil
	})
}

// merge layers the keys over sets on top of z.
func (z *ZoneHosts) merge(over *ZoneHosts) *ZoneHosts {
	if z == nil {
		return over
	}
	out := *z
	for _, f := range []struct {
		dst *Str
		src Str
	}{{&out.Strategy, over.Strategy}, {&out.Zone, over.Zone}, {&out.Suffix, over.Suffix}, {&out.Label, over.Label}} {
		if f.src.Pos.IsKnown() {
			*f.dst = f.src
		}
	}
	if over.Exclude != nil {
		out.Exclude = over.Exclude
	}
	out.Pos = over.Pos
	return &out
}

func decodeVars(path string, n *yaml.Node) (Vars, error) {
	var vars Vars
	err := eachEntry(path, n, "vars", func(key, val *yaml.Node) error {
		if !varName.MatchString(key.Value) {
			return filepos.Errorf(at(path, key), "variable name %q must match [A-Za-z_][A-Za-z0-9_]*", key.Value)
		}
		if val.Kind != yaml.ScalarNode {
			return filepos.Errorf(at(path, val), "variable %s must be a string, number or boolean", key.Value)
		}
		v, declared := val.Value, val.Tag == "!!null"
		if declared {
			v = ""
		}
		vars = append(vars, Var{Name: key.Value, Value: v, Pos: at(path, val), Declared: declared})
		return nil
	})
	return vars, err
}

// eachEntry walks a mapping section in order; an absent or null section is empty.
func eachEntry(path string, n *yaml.Node, section string, f func(key, val *yaml.Node) error) error {
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return filepos.Errorf(at(path, n), "%s must be a mapping", section)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := f(n.Content[i], n.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func at(path string, n *yaml.Node) filepos.Pos {
	return filepos.Pos{File: path, Line: n.Line, Col: n.Column}
}

// loadError restates go-yaml's errors in the profile's terms. root and
// into, when set, are the node that failed to load and the value it was
// loaded into, so that a field error is stated from the node and the Go
// type rather than from go-yaml's wording.
func loadError(src *manifest.Source, root *yaml.Node, into any, err error) error {
	restate := func(e *yaml.LoadError) string {
		if root != nil && e.Stage == yaml.ConstructorStage {
			if msg, ok := fieldError(root, reflect.TypeOf(into), e.Mark); ok {
				return msg
			}
		}
		msg := e.Message
		if strings.HasPrefix(msg, "did not find") || strings.HasPrefix(msg, "mapping values") || strings.Contains(msg, "found") {
			return "" // a syntax error, stated by manifest.LoadError
		}
		return msg
	}
	if le := manifest.LoadErrors(src, err, restate); le != nil {
		return le
	}
	return filepos.Errorf(filepos.Pos{File: src.Path}, "%v", err)
}

// fieldError finds what go-yaml's constructor rejected at mark, walking n
// along with t, the Go type it was loaded into: a key t has no field for,
// or a value of the wrong kind for its field.
func fieldError(n *yaml.Node, t reflect.Type, mark yaml.Mark) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	at := n.Line == mark.Line && n.Column == mark.Column
	switch {
	case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
		return fieldError(n.Content[0], t, mark)
	case at && !fits(n, t):
		return mismatch(n, t), true
	case n.Kind == yaml.MappingNode:
		return keyError(n, t, mark)
	case n.Kind == yaml.SequenceNode && fits(n, t) && t.Kind() != reflect.Interface:
		for _, e := range n.Content {
			if msg, ok := fieldError(e, t.Elem(), mark); ok {
				return msg, true
			}
		}
	}
	return "", false
}

// keyError is fieldError for mapping n of type t.
func keyError(n *yaml.Node, t reflect.Type, mark yaml.Mark) (string, bool) {
	if t.Kind() != reflect.Struct && t.Kind() != reflect.Map || t == reflect.TypeFor[yaml.Node]() {
		return "", false // a yaml.Node field holds any YAML
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ft, ok := t, true
		if t.Kind() == reflect.Map {
			ft = t.Elem()
		} else {
			ft, ok = fieldByKey(t, k.Value)
		}
		if !ok {
			if k.Line == mark.Line && k.Column == mark.Column {
				return fmt.Sprintf("unknown key %q%s", k.Value, suggest.Hint(k.Value, knownKeys()[t.String()])), true
			}
			continue
		}
		if msg, found := fieldError(v, ft, mark); found {
			return msg, true
		}
	}
	return "", false
}

// mismatch states that n cannot load into t, naming the value as go-yaml
// shows it (shortened past ten bytes).
func mismatch(n *yaml.Node, t reflect.Type) string {
	msg := fmt.Sprintf("expected %s, found %s", goTypeName(t.String()), strings.TrimPrefix(n.ShortTag(), "!!"))
	if v := n.Value; n.Kind == yaml.ScalarNode && v != "" {
		if len(v) > 10 {
			v = v[:7] + "..."
		}
		msg += fmt.Sprintf(" %q", v)
	}
	return msg
}

// fits reports whether a node of n's kind can load into t at all.
func fits(n *yaml.Node, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Struct:
		return n.Kind == yaml.MappingNode || t == reflect.TypeFor[yaml.Node]()
	case reflect.Map:
		return n.Kind == yaml.MappingNode
	case reflect.Slice, reflect.Array:
		return n.Kind == yaml.SequenceNode
	}
	return false // a scalar field: go-yaml rejected this very node
}

// fieldByKey is the type of the field of struct t that key names.
func fieldByKey(t reflect.Type, key string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name == key {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}

// knownKeys are the keys each section of a profile allows, by the Go type
// name go-yaml's unknown-field error names, for did-you-mean. Built on
// first use (a misspelt key), not at start-up.
var knownKeys = sync.OnceValue(func() map[string][]string {
	keys := map[string][]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == reflect.TypeOf(yaml.Node{}) || keys[t.String()] != nil {
			return
		}
		keys[t.String()] = []string{}
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			keys[t.String()] = append(keys[t.String()], name)
			walk(t.Field(i).Type)
		}
	}
	for _, root := range []any{File{}, TenantDoc{}, ZoneDoc{}, Inject{}} {
		walk(reflect.TypeOf(root))
	}
	return keys
})

func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "profiles."):
		return "a mapping"
	case t == "bool", t == "*bool":
		return "true or false"
	case t == "string":
		return "a string"
	}
	return t
}

// setFile fills the file name into every position decoded from one file.
func setFile(v reflect.Value, file string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			setFile(v.Elem(), file)
		}
	case reflect.Struct:
		if p, ok := v.Addr().Interface().(*filepos.Pos); ok {
			if p.File == "" && p.Line > 0 {
				p.File = file
			}
			return
		}
		if v.Type() == reflect.TypeOf(yaml.Node{}) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				setFile(v.Field(i), file)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			setFile(v.Index(i), file)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			setFile(e, file)
			v.SetMapIndex(k, e)
		}
	}
}

// BesideFile resolves a path written in the profile at path: relative to
// that file's directory, or as written when absolute.
func BesideFile(path, rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(filepath.Dir(path), rel)
}
