// Package subst is the first stage of every render: it puts a unit's
// deploy-time variables into the parsed templates, with the semantics of
// GNU `envsubst 'SHELL-FORMAT'` restricted to the profile's names.
//
// Why not github.com/a8m/envsubst: it cannot leave an unlisted reference
// intact (it blanks unknown names, evaluates `${X:-d}` and collapses `$$`),
// and its errors carry no position. shellformat is a small scanner with
// GNU's rules that reports where each reference is.
package subst

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/model/workload"
	"github.com/krender/krender/render/subst/shellformat"
)

// Opt-out annotations: an object carrying one with the value "disabled" is
// not substituted at all. Flux's is honoured so that manifests written for
// Flux's postBuild substitution mean the same here; it stays in the output
// (Flux reads it, as label or annotation), krender's is stripped.
const (
	Directive     = "substitute" // krender.io/substitute
	FluxDirective = "kustomize.toolkit.fluxcd.io/substitute"
	Disabled      = "disabled"
)

// RuntimeVarsDirective is krender.io/runtime-vars: names a program in the
// object reads as its own although the profile defines them (a script's
// $ENV beside the profile's ENV). They stay as written in that object.
const RuntimeVarsDirective = "runtime-vars"

// Stage substitutes each unit's variables (Set.Vars: the profile's after
// extends, the tenant layer and --set; never the environment) and records
// every reference on its object, with its reader and verdict.
type Stage struct {
	// AllowUnresolved keeps going past undefined variables, leaving them in
	// the objects' Refs for a checker to report as findings.
	AllowUnresolved bool
	// Strict reads strings of unknown readers as Kubernetes reads names
	// (the profile's substitution.strict, or --strict).
	Strict bool

	places  []workload.Place // the profile's runtime fields
	drone   bool             // the flux or clusterctl dialect: drone/envsubst's grammar
	ruleOff bool             // the profile's check.disable names ruleid.UnresolvedVar
	crds    crdIndex
	defs    definitions // the profile's variables, for unused-var
	plans   plans       // by template, made on first use
	memos   *memos
	once    sync.Once // makes memos for a Stage built without New
}

// memo is the stage's memos, made on first use.
func (st *Stage) memo() *memos {
	st.once.Do(func() { st.memos = newMemos() })
	return st.memos
}

// New builds the stage for a profile; check is set for `krender check`.
// templates are the parsed templates: their CRDs tell which fields of a
// custom resource the API server reads as numbers or booleans.
func New(p *profiles.Profile, check bool, templates []*manifest.Object) *Stage {
	st := &Stage{AllowUnresolved: check, crds: indexCRDs(templates), defs: newDefinitions(unusedVars(p)),
		drone: p.Substitution.DialectOf() != profiles.DialectEnvsubst}
	if p.Substitution.Strict != nil {
		st.Strict = *p.Substitution.Strict
	}
	for _, f := range p.Substitution.RuntimeFields {
		st.places = append(st.places, workload.Place{Kind: f.Kind.Value, Group: f.Group.Value, Keys: f.Keys, Label: workload.ProfileField})
	}
	for _, d := range p.Check.Disable {
		if d.Value == ruleid.UnresolvedVar {
			st.ruleOff = true
		}
	}
	return st
}

// AddCRDs makes more CRDs (check's --crds) known; call before Apply.
func (st *Stage) AddCRDs(objs []*manifest.Object) {
	for k, v := range indexCRDs(objs) {
		if _, ok := st.crds[k]; !ok {
			st.crds[k] = v
		}
	}
}

func (st *Stage) Apply(s *manifest.Set) error {
	var errs filepos.List
	for _, o := range s.Objects {
		refs, err := st.substitute(s.Stopped, o, s.Vars, s.Missing)
		if stop := s.Stopped(); stop != nil {
			return stop
		}
		if err != nil {
			errs = filepos.Append(errs, err)
			continue
		}
		o.Refs = refs
		errs = append(errs, st.names(s, o)...)
		if st.AllowUnresolved {
			continue
		}
		errs = append(errs, Unresolved(o.Refs)...)
		if !s.Wants(ruleid.UnresolvedVar) {
			continue
		}
		if w, pos := questioned(o); w != "" {
			s.Note(o, ruleid.UnresolvedVar, filepos.Warning, pos, w)
		}
	}
	if len(errs) == 0 && s.Wants(ruleid.UnusedVar) {
		st.unused(s)
	}
	return errs.Err()
}

// names refuses a name or namespace substitution made that the API server
// refuses for o's kind; check reports it as a finding. What silences the
// rule for check lets render pass it too.
func (st *Stage) names(s *manifest.Set, o *manifest.Object) filepos.List {
	if len(o.Refs) == 0 || s.Disabled[ruleid.InvalidName] || o.Ignores(ruleid.InvalidName) {
		return nil
	}
	var errs filepos.List
	for _, n := range append(invalidNames(o), invalidValues(o)...) {
		if st.AllowUnresolved {
			s.Note(o, n.Rule, n.Severity, n.Pos, n.Msg)
			continue
		}
		errs = append(errs, filepos.Errorf(n.Pos, "%s", n.Msg))
	}
	return errs
}

// scalarEnv is what deciding one object's references needs.
type scalarEnv struct {
	o        *manifest.Object
	vars     map[string]string
	missing  map[string]filepos.Pos
	off      string          // the opt-out annotation, if any
	kept     map[string]bool // krender.io/runtime-vars
	shell    map[*yaml.Node]workload.ShellKind
	reader   objectReader
	evidence *objectEvidence
	// stop says when to stop (the unit's Set.Stopped; nil: never), asked
	// before each scalar; stopped is what it said.
	stop    func() error
	stopped error
}

// halt reports whether the work on env's object must stop, asking stop.
func (env *scalarEnv) halt() bool {
	if env.stopped == nil && env.stop != nil {
		env.stopped = env.stop()
	}
	return env.stopped != nil
}

// Substitute replaces the whitelisted references in every scalar of o, keys
// included. It works on parsed scalars, never on text, so no value can change
// the document's structure. It returns every reference it saw, each with
// its reader; judge gives them verdicts.
func (st *Stage) Substitute(o *manifest.Object, vars map[string]string, missing map[string]filepos.Pos) ([]manifest.Ref, error) {
	return st.substitute(nil, o, vars, missing)
}

// substitute is Substitute, stopped before any scalar when stop (nil:
// never) says so, with what it says.
func (st *Stage) substitute(stop func() error, o *manifest.Object, vars map[string]string, missing map[string]filepos.Pos) ([]manifest.Ref, error) {
	off, err := optOut(o)
	if err != nil {
		return nil, err
	}
	occ, planned, err := st.fromPlan(stop, o, vars, missing, off)
	if err != nil {
		return nil, err
	}
	if !planned {
		env := newEnv(o, vars, missing, off)
		env.stop = stop
		if occ = st.walk(env); env.stopped != nil {
			return nil, env.stopped
		}
	}
	var names []string // for did-you-mean: built only when a name is undefined
	for _, r := range occ {
		if !r.Defined && r.Kept == "" && !r.Escaped {
			names = defined(vars, missing)
			break
		}
	}
	judge(o, occ, names, st.silenced(o))
	return occ, nil
}

// fromPlan substitutes o through its template's plan, made on first use;
// false when o has none (a template whose references may depend on the
// unit's values, or an object that is no fresh copy of its template).
func (st *Stage) fromPlan(stop func() error, o *manifest.Object, vars map[string]string, missing map[string]filepos.Pos, off string) ([]manifest.Ref, bool, error) {
	if o.Node == nil || o.Node.Line == 0 { // made, not parsed: no template to share a plan with
		return nil, false, nil
	}
	key := keyOf(o)
	v, ok := st.plans.m.Load(key)
	if !ok {
		env := newEnv(o, vars, missing, off)
		env.stop = stop
		p := st.makePlan(o, env)
		if env.stopped != nil { // no plan is kept that is not whole
			return nil, false, env.stopped
		}
		v, _ = st.plans.m.LoadOrStore(key, p)
	}
	p := v.(*plan)
	if p == nil || p.off != off {
		return nil, false, nil
	}
	nodes, ok := p.find(o)
	if !ok {
		return nil, false, nil
	}
	occ, err := p.replay(st.memo(), o, nodes, vars, missing, stop)
	return occ, err == nil, err
}

func newEnv(o *manifest.Object, vars map[string]string, missing map[string]filepos.Pos, off string) *scalarEnv {
	env := &scalarEnv{o: o, vars: vars, missing: missing, off: off}
	if v, _, ok := o.Directive(RuntimeVarsDirective); ok {
		env.kept = map[string]bool{}
		for _, n := range strings.Split(v, ",") {
			env.kept[strings.TrimSpace(n)] = true
		}
	}
	return env
}

// walk substitutes every scalar of env's object in turn.
func (st *Stage) walk(env *scalarEnv) []manifest.Ref {
	var occ []manifest.Ref
	prepared := false
	walkPaths(env.o.Node, make(path, 0, 16), func(n *yaml.Node, key bool, p path) {
		if strings.IndexByte(n.Value, '$') < 0 || (key && manifest.StrategicMergeDirective(n.Value)) || env.halt() {
			return
		}
		if !prepared {
			env.prepare(st)
			prepared = true
		}
		occ = append(occ, st.scalar(env, n, key, p)...)
	})
	return occ
}

// prepare works out who reads env's object's strings.
func (env *scalarEnv) prepare(st *Stage) {
	env.shell = workload.ShellScalars(env.o, st.places...)
	env.reader = newObjectReader(env.o, st.crds, st.Strict)
}

// defined lists the names a reference may have misspelt.
func defined(vars map[string]string, missing map[string]filepos.Pos) []string {
	names := make([]string, 0, len(vars)+len(missing))
	for n := range vars {
		names = append(names, n)
	}
	for n := range missing {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// missingMessage: rule 1, a declared variable this run did not give.
func missingMessage(name string, decl filepos.Pos) string {
	return fmt.Sprintf("variable %s is declared without a value (%s) and this run gives none: give it with --set %s=VALUE, --set-env %s or --set-file %s=PATH, or in a profile that extends this one",
		name, decl, name, name, name)
}

// scalar substitutes one scalar and returns its references.
func (st *Stage) scalar(env *scalarEnv, n *yaml.Node, key bool, p path) []manifest.Ref {
	s, found := st.analyse(env, n, key, p)
	if !found {
		return nil
	}
	out := s.base
	replace := make([]bool, len(s.refs))
	values := make([]string, len(s.refs))
	for i, r := range s.refs {
		out[i].Node = n
		values[i], replace[i] = env.decide(&out[i], r)
	}
	if env.off != "" {
		return out
	}
	st.memo().replaceRefs(n, s.refs, values, replace, key)
	return out
}

// analyse finds n's references and all about them that does not depend on
// the unit's values; false when n holds none.
func (st *Stage) analyse(env *scalarEnv, n *yaml.Node, key bool, p path) (planned, bool) {
	reader, runtime := env.readerOf(n, key, p)
	refs := st.scanRefs(reader, n.Value)
	if len(refs) == 0 {
		return planned{}, false
	}
	var assigned map[string]bool
	var context *scalarContext
	if reader == Program || reader == Unknown {
		assigned, context = st.memo().assignedIn.get(n.Value), newScalarContext(n)
		if env.evidence == nil {
			env.evidence = collectEvidence(env.o.Node)
		}
	}
	texts := make([]string, len(refs))
	for i, r := range refs {
		texts[i] = r.Text(n.Value)
	}
	pos := env.o.SourceOf(n).TextPositions(n, texts)
	out := make([]manifest.Ref, len(refs))
	field := p.String()
	for i, r := range refs {
		ref := manifest.Ref{Pos: pos[i], Text: texts[i], Name: r.Name, Reader: reader, Runtime: runtime,
			Field: field, Op: r.Op, Word: r.Word, Escaped: r.Escape, AfterDollar: r.AfterDollar}
		if !r.Escape && (reader == Program || reader == Unknown) {
			ref.Evidence = env.evidence.of(context, r, assigned)
			if ref.Evidence != "" && reader == Unknown {
				ref.Reader, ref.Runtime = Program, ref.Evidence
			}
		}
		out[i] = ref
	}
	return planned{value: n.Value, key: key, refs: refs, base: out}, true
}

// readerOf is who reads n: the program running a shell script, or the
// reader of the field at p.
func (env *scalarEnv) readerOf(n *yaml.Node, key bool, p path) (reader, runtime string) {
	if place := env.shell[n]; place != "" {
		return Program, string(place)
	}
	return env.reader.of(p, key), ""
}

// scanRefs finds the references in v its reader would see: Kubernetes (and
// an unknown reader) may hold default forms; a program's scripts keep them.
func (st *Stage) scanRefs(reader, v string) []shellformat.Ref {
	if st.drone {
		return shellformat.ScanDrone(v) // every reader: Flux and clusterctl know none
	}
	if reader == Kubernetes || reader == Unknown {
		return shellformat.ScanDefaults(v)
	}
	refs := shellformat.Scan(v)
	if reader == Program {
		refs = withShellDefaults(v, refs)
	}
	return refs
}

// decide records on ref why it is kept, wrong or substituted, and returns
// the value it is replaced by and whether it is replaced.
func (env *scalarEnv) decide(ref *manifest.Ref, r shellformat.Ref) (string, bool) {
	if r.Escape {
		return env.unescape(ref)
	}
	_, def := env.vars[r.Name]
	ref.Defined = def
	if env.decideWhateverDefined(ref, r) {
		return "", false
	}
	return env.decideByProfile(ref, r, def)
}

// decideWhateverDefined records the verdicts that hold whether or not the
// profile defines the name: an object or a directive that keeps it, a
// CRD's schema, an expression no dialect reads. It reports whether one did.
func (env *scalarEnv) decideWhateverDefined(ref *manifest.Ref, r shellformat.Ref) bool {
	switch {
	case env.off != "":
		ref.Kept = env.off
	case env.kept[r.Name]:
		ref.Kept = manifest.DirectivePrefix + RuntimeVarsDirective
	case ref.Reader == Nobody:
		ref.Kept = "a CRD's schema: documentation"
	case r.Bad != "":
		ref.Verdict, ref.Problem = manifest.Wrong, badMessage(ref.Text, r.Bad)
	default:
		return false
	}
	return true
}

// decideByProfile records the verdicts that follow from whether the
// profile defines the name (def) or lists it as missing.
func (env *scalarEnv) decideByProfile(ref *manifest.Ref, r shellformat.Ref, def bool) (string, bool) {
	_, missing := env.missing[r.Name]
	switch {
	case ref.Reader == Program && r.HasDefault() && !(r.Drone() && def):
		ref.Kept = "a default form: the shell evaluates it"
	case def:
		out := r.Eval(env.lookup)
		if out != env.vars[r.Name] {
			ref.Written = out
		}
		return out, true
	case r.AfterDollar:
		ref.Kept = AfterDollarKept
	case missing:
		ref.Verdict, ref.Problem = manifest.Wrong, missingMessage(r.Name, env.missing[r.Name])
	case r.HasDefault() && ref.Reader == Kubernetes:
		ref.Applied = true
		return r.Eval(env.lookup), true
	}
	return "", false
}

func (env *scalarEnv) lookup(name string) (string, bool) {
	v, ok := env.vars[name]
	return v, ok
}

// badMessage: a `${` the flux and clusterctl dialects cannot read, which
// fails the whole object in those tools.
func badMessage(text, why string) string {
	return fmt.Sprintf("%s is no expression Flux or clusterctl can read (%s), and fails the whole object there; %s", text, why, badHint)
}

const badHint = "write $${ for a literal ${ (substitution.dialect: flux and clusterctl read every $$ as $)"

// AfterDollarKept is why an undefined reference directly after a `$`
// (`$${NAME}`, `$$NAME`) stays as written without a word: another tool's
// escape (Grafana's, OpenTelemetry's, Flux's) is evidence that it is no
// placeholder.
const AfterDollarKept = "directly after a $: another tool's escape, no placeholder"

// unescape writes `$$` as `$` (flux and clusterctl) wherever krender
// substitutes; an object that opts out and a CRD's schema keep it as written.
func (env *scalarEnv) unescape(ref *manifest.Ref) (string, bool) {
	switch {
	case env.off != "":
		ref.Kept = env.off
	case ref.Reader == Nobody:
		ref.Kept = "a CRD's schema: documentation"
	default:
		return ref.Text[1:], true
	}
	return "", false
}

// replaceRefs writes the substituted value into n when it changed.
func (m *memos) replaceRefs(n *yaml.Node, refs []shellformat.Ref, values []string, replace []bool, key bool) {
	k := 0
	value := shellformat.Replace(n.Value, refs, func(shellformat.Ref) (string, bool) {
		i := k
		k++
		return values[i], replace[i]
	})
	if value != n.Value {
		whole := len(refs) == 1 && !refs[0].Escape && refs[0].Start == 0 && refs[0].End == len(n.Value)
		m.setScalar(n, value, whole, key)
	}
}

// withShellDefaults adds, to a script's references, the default forms
// (`${NAME:-word}`) GNU envsubst copies: they stay for the shell, and check
// says so where the profile defines NAME.
func withShellDefaults(s string, refs []shellformat.Ref) []shellformat.Ref {
	if !strings.Contains(s, "${") {
		return refs
	}
	var defs []shellformat.Ref
	for _, r := range shellformat.ScanDefaults(s) {
		if r.HasDefault() {
			defs = append(defs, r)
		}
	}
	if len(defs) == 0 {
		return refs
	}
	out := append(refs[:len(refs):len(refs)], defs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// optOut names the annotation (or Flux label) that turns substitution off
// for o, or "". krender's own annotation takes one value, so that a typo
// such as `disable` fails instead of substituting; Flux's is Flux's to
// judge: any other value means substitution, as in Flux.
func optOut(o *manifest.Object) (string, error) {
	if v, k, ok := o.Directive(Directive); ok {
		if v != Disabled {
			return "", filepos.Errorf(o.Pos(k), "%s%s: %q: the only value is %q (no substitution in this object)", manifest.DirectivePrefix, Directive, v, Disabled)
		}
		return manifest.DirectivePrefix + Directive + ": " + Disabled, nil
	}
	for _, where := range []string{"annotations", "labels"} {
		if manifest.ScalarAt(o.Node, "metadata", where, FluxDirective) == Disabled {
			return FluxDirective + ": " + Disabled, nil
		}
	}
	return "", nil
}

// silenced says what, if anything, silences ruleid.UnresolvedVar for o.
func (st *Stage) silenced(o *manifest.Object) string {
	switch {
	case st.ruleOff:
		return "the profile's check.disable: [" + ruleid.UnresolvedVar + "]"
	case o.Ignores(ruleid.UnresolvedVar):
		return manifest.DirectivePrefix + manifest.IgnoreDirective + ": " + ruleid.UnresolvedVar
	}
	return ""
}

// setScalar stores a substituted value. A plain scalar that was exactly one
// reference takes the type its value has (`replicas: ${N}` is a number);
// anything else is a string, quoted where Kubernetes' YAML 1.1 reader would
// otherwise see another type (`yes`, `on`, `1e3`, `0x10`...).
func (m *memos) setScalar(n *yaml.Node, v string, whole, key bool) {
	n.Value = v
	if whole && !key && n.Style == 0 {
		n.Tag = m.plainTag.get(v)
		return
	}
	n.Tag = "!!str"
	if n.Style == 0 && !m.plainString.get(v) {
		n.Style = yaml.DoubleQuotedStyle
	}
}

// readAsString reports whether Kubernetes (sigs.k8s.io/yaml, go-yaml v2
// resolution) reads v, written plain, as the string v.
func readAsString(v string) bool { return manifest.ReadsAsString(v) }

// judge gives each reference of o its verdict. Outside the Kubernetes
// reader, errors come only from evidence of a deploy-time mistake:
//  1. a name the profile declares without a value, which this run did not give;
//  2. a misspelling of a profile variable (an error where Kubernetes or an
//     unknown reader reads it, a check warning in a program's string);
//  3. an object that already has an undefined name Kubernetes reads is a
//     deploy-time template: its other upper-case undefined names are errors too.
//
// Everything else an unknown reader holds is a warning when the name has an
// upper-case letter, and nothing at all otherwise.
func judge(o *manifest.Object, refs []manifest.Ref, defined []string, silenced string) {
	if template := judgeEach(refs, defined); template != "" {
		markTemplate(refs, defined, template)
	}
	silence(refs, silenced)
}

// judgeEach gives each undefined reference its own verdict (rules 1, 2 and
// the warnings), and returns the first reference Kubernetes reads that
// makes o a deploy-time template, or "".
func judgeEach(refs []manifest.Ref, defined []string) string {
	template := ""
	typos := map[string]string{} // by name: a script names $HOME a thousand times
	for i := range refs {
		r := &refs[i]
		if r.Defined || r.Kept != "" || r.Applied || r.Escaped {
			continue
		}
		typo, ok := typos[r.Name]
		if !ok {
			typo = Typo(r.Name, defined)
			typos[r.Name] = typo
		}
		if judgeUndefined(r, typo, defined) && template == "" {
			template = fmt.Sprintf("%s at %s is one Kubernetes reads", r.Text, r.Pos)
		}
	}
	return template
}

// judgeUndefined gives one undefined reference its verdict from its reader
// and typo, the profile variable its name looks like a misspelling of, or
// "". It reports whether Kubernetes reads it, which makes its object a
// deploy-time template.
func judgeUndefined(r *manifest.Ref, typo string, defined []string) bool {
	switch {
	case r.Problem != "": // declared without a value
	case r.Reader == Kubernetes:
		r.Verdict, r.Problem = manifest.Wrong, UndefinedMessage(*r, defined)
		return true
	case r.Reader == Unknown && typo != "":
		r.Verdict, r.Problem = manifest.Wrong, UndefinedMessage(*r, defined)
	case r.Reader == Unknown && hasUpper(r.Name):
		r.Verdict, r.Problem = manifest.Questioned, fmt.Sprintf("%s in %s is not a profile variable: kept as written for the program that reads this resource", r.Text, r.Field)
	case r.Reader == Program && typo != "":
		r.Verdict, r.Problem = manifest.TypoWarning, fmt.Sprintf("%s is kept for the program that reads it (%s), but it looks like the profile's %s misspelt", r.Text, r.Runtime, typo)
	}
	return false
}

// markTemplate applies rule 3: in a deploy-time template, the questioned
// names without evidence of a program are errors too.
func markTemplate(refs []manifest.Ref, defined []string, template string) {
	for i := range refs {
		if r := &refs[i]; r.Verdict == manifest.Questioned && r.Evidence == "" {
			r.Verdict = manifest.Wrong
			r.Problem = UndefinedMessage(*r, defined) + "; this object is a deploy-time template (" + template + ")"
		}
	}
}

// silence clears every verdict when the rule is off for the object, saying
// what turned it off.
func silence(refs []manifest.Ref, silenced string) {
	if silenced == "" {
		return
	}
	for i := range refs {
		if refs[i].Verdict != manifest.Fine {
			refs[i].Verdict, refs[i].Problem, refs[i].Kept = manifest.Fine, "", silenced
		}
	}
}

// Unresolved turns the references judged wrong into errors: what render
// refuses and check reports as errors.
func Unresolved(refs []manifest.Ref) filepos.List {
	var errs filepos.List
	for _, r := range refs {
		if r.Verdict == manifest.Wrong {
			errs = append(errs, filepos.Errorf(r.Pos, "%s", r.Problem+hintFor(r)))
		}
	}
	return errs
}

// Hint is what to do about a reference's verdict.
func Hint(r manifest.Ref) string {
	switch {
	case r.Verdict == manifest.Questioned:
		return "if it is a deploy-time variable, declare it in the profile's vars without a value (" + r.Name + ": ~) or set substitution.strict: true; " +
			"if the program's, annotate the object " + manifest.DirectivePrefix + IgnoreHint
	case r.Verdict == manifest.TypoWarning:
		return "fix the spelling, or annotate the object " + manifest.DirectivePrefix + RuntimeVarsDirective + ": " + r.Name + " if it is the program's"
	case strings.Contains(r.Problem, "declared without a value"), strings.HasSuffix(r.Problem, badHint):
		return ""
	}
	return KeepHint
}

func hintFor(r manifest.Ref) string {
	if h := Hint(r); h != "" {
		return "; " + h
	}
	return ""
}

// IgnoreHint silences unresolved-var for one object.
const IgnoreHint = manifest.IgnoreDirective + ": " + ruleid.UnresolvedVar

// questioned is render's one warning for an object whose unknown readers
// keep names that look like deploy-time variables.
func questioned(o *manifest.Object) (string, filepos.Pos) {
	var list []string
	var first manifest.Ref
	seen := map[string]bool{}
	for _, r := range o.Refs {
		if r.Verdict != manifest.Questioned || seen[r.Text+r.Field] {
			continue
		}
		if len(list) == 0 {
			first = r
		}
		seen[r.Text+r.Field] = true
		list = append(list, r.Text+" ("+r.Field+")")
	}
	if len(list) == 0 {
		return "", filepos.Pos{}
	}
	return fmt.Sprintf("%s/%s keeps %s as written: not profile variables, left for the program that reads this resource; "+
		"if they are deploy-time variables, declare them in the profile's vars without a value (%s: ~) or set substitution.strict: true",
		o.Kind(), o.Name(), strings.Join(list, ", "), first.Name), first.Pos
}

// KeepHint names the ways to keep a `$` that belongs to another program:
// in public manifests most undefined references are such, not typos.
const KeepHint = "if another program reads it at run time, list its field in the profile's substitution.runtimeFields " +
	"or annotate the object " + manifest.DirectivePrefix + Directive + ": " + Disabled + " (runtime places: docs/substitution.md)"

// UndefinedMessage explains an undefined reference, with a did-you-mean.
func UndefinedMessage(r manifest.Ref, defined []string) string {
	msg := fmt.Sprintf("undefined variable %s: not in the profile's vars or --set", r.Text)
	return msg + suggest.Hint(r.Name, defined)
}

// Typo returns the defined name that name misspells, if it is evidence of
// a deploy-time mistake: at least 4 characters with an upper-case letter,
// and within a small edit distance for its length, or a change of case.
func Typo(name string, defined []string) string {
	if len(name) < 4 || !hasUpper(name) {
		return ""
	}
	limit := 1
	switch {
	case len(name) >= 9:
		limit = 3
	case len(name) >= 6:
		limit = 2
	}
	best, bestD := "", limit+1
	for _, d := range defined {
		if d == name {
			return ""
		}
		dist := levenshtein.ComputeDistance(name, d)
		if strings.EqualFold(name, d) {
			dist = 0
		}
		if dist < bestD || dist == bestD && d < best {
			best, bestD = d, dist
		}
	}
	return best
}
