// Package rule is the table of krender check's rules: for each id (declared
// in model/ruleid, where the stages that note a rule read it too), its
// severity, summary and fix. It is its own package so that what only names
// the rules (the profile's JSON schema, check.disable) need not link the
// linter, whose custom-resource validation brings the API server's code,
// nor the render stages.
package rule

import (
	"slices"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/ruleid"
)

// Rule is one rule: a check over a rendered set, or a render stage's note
// that check reports as a finding.
type Rule struct {
	ID       string
	Severity filepos.Severity // the most severe level it reports
	Summary  string
	Fix      string // for a stage's note; a check's findings carry their own
	// VerboseOnly: reported under check -v only.
	VerboseOnly bool
}

var table = []Rule{
	{ID: ruleid.UnresolvedVar, Severity: filepos.Err,
		Summary: "an undefined ${NAME} where Kubernetes reads the string, a profile variable declared without a value and not given, or a misspelt one (errors); one an unknown reader keeps, or a program's name that looks misspelt (warnings)"},
	{ID: ruleid.RuntimeVars, Severity: filepos.Info, VerboseOnly: true,
		Summary: "under check -v: the undefined names an object keeps for the program that reads it, with the evidence (assigned in the script, a container's env, a declared parameter, a Go template)"},
	{ID: ruleid.VarDefault, Severity: filepos.Info,
		Summary: "a default (${NAME:-word}) krender applied, or one left for a script's shell although the profile defines NAME"},
	{ID: ruleid.UnknownField, Severity: filepos.Err,
		Summary: "a field the API server rejects under --validate=strict (misspelled or wrongly typed) or prunes: built-in kinds, and custom resources whose CRD is known"},
	{ID: ruleid.CRDSchema, Severity: filepos.Err,
		Summary: "a custom resource value its CRD rejects (schema, x-kubernetes-validations CEL rule, unserved version), or a CRD the API server rejects"},
	{ID: ruleid.TemplateField, Severity: filepos.Err,
		Summary: "a misspelled or wrongly typed field in the pod template of a custom workload (Argo Rollout), which its CRD leaves open and its controller drops"},
	{ID: ruleid.CRDMissing, Severity: filepos.Err,
		Summary: "a custom resource with no CRD in the render or the CRD files (info; an error under check.requireCRDs)"},
	{ID: ruleid.APIRemoved, Severity: filepos.Err,
		Summary: "an apiVersion the profile's kubeVersion does not serve (removed or not yet there), or serves only where the cluster enables it (warning); without kubeVersion, a removed one (warning)"},
	{ID: ruleid.APIDeprecated, Severity: filepos.Warning,
		Summary: "an apiVersion deprecated in the profile's kubeVersion, with the release that removes it and its replacement, or a custom resource version its CRD marks deprecated"},
	{ID: ruleid.SubPathConfigMap, Severity: filepos.Err,
		Summary: "a ConfigMap or Secret mounted with subPath whose content is not in its name: the mount never updates"},
	{ID: ruleid.EtcHostsWrite, Severity: filepos.Err,
		Summary: "a container script writes /etc/hosts, which kubelet rewrites whenever a container of the pod starts"},
	{ID: ruleid.RuntimeVarShadowed, Severity: filepos.Warning,
		Summary: "a script reference that is also a deploy-time variable, so it is substituted at render time"},
	{ID: ruleid.InotifyReload, Severity: filepos.Warning,
		Summary: "an inotify watch on one file of a ConfigMap volume: updates arrive as a symlink swap"},
	{ID: ruleid.HostsRaceFree, Severity: filepos.Info,
		Summary: "hostAliases krender generated, listed for reviewers"},

	// The render stages' own notes: render prints them, check counts them.
	{ID: ruleid.OldNameText, Severity: filepos.Warning,
		Summary: "a container's command, args or env value names a content-hashed ConfigMap or Secret by its old name, and no other object of the render has that name",
		Fix:     "pass the name through a reference krender rewrites (a volume, envFrom, valueFrom), or annotate the ConfigMap/Secret krender.io/hash: \"off\""},
	{ID: ruleid.RefNotRendered, Severity: filepos.Warning,
		Summary: "a reference to a ConfigMap or Secret that is not in the render: it keeps its name and pods do not roll when it changes",
		Fix:     "render the ConfigMap/Secret with the templates, or mark the reference optional if it may be absent"},
	{ID: ruleid.NamespaceUnknownScope, Severity: filepos.Info,
		Summary: "a custom kind with no namespace whose scope no CRD tells, so the profile's namespace is not written into it",
		Fix:     "write metadata.namespace, or give its CRD with --crds"},
	{ID: ruleid.HashKeepsName, Severity: filepos.Info,
		Summary: "a ConfigMap or Secret no pod consumes keeps its name under hash mode suffix",
		Fix:     "nothing to do; annotate it krender.io/hash: suffix to rename it anyway, or \"off\" to say so"},
	{ID: ruleid.HashNotApplicable, Severity: filepos.Warning,
		Summary: "krender.io/hash on an object that is no ConfigMap or Secret, where it does nothing",
		Fix:     "remove the annotation"},
	{ID: ruleid.IstioHoldAdded, Severity: filepos.Info,
		Summary: "krender set holdApplicationUntilProxyStarts on a pod whose container writes /etc/hosts next to an istio sidecar",
		Fix:     "nothing to do; better, use hostAliases and stop writing /etc/hosts"},
	{ID: ruleid.InjectUnused, Severity: filepos.Warning,
		Summary: "an inject entry of the profile that changed nothing: it reaches no object, or each object it reaches already holds what its fragment gives",
		Fix:     "check the entry's selector, target and fragment, or remove it"},
	{ID: ruleid.SplitTarget, Severity: filepos.Warning,
		Summary: "an object other than a HorizontalPodAutoscaler targets a workload split by zone, and still names the workload before the split",
		Fix:     "give the object a copy per zone, naming each zone copy"},
	{ID: ruleid.SplitClaims, Severity: filepos.Warning,
		Summary: "a StatefulSet split by zone: each copy gets new PersistentVolumeClaims",
		Fix:     "move the data, or pin the StatefulSet to one zone or list it under zoneHosts.exclude"},
	{ID: ruleid.SplitReplicasFloor, Severity: filepos.Info,
		Summary: "replicas divided over the zones add up to more than written, since every zone copy keeps at least one",
		Fix:     "nothing to do; write a count of at least the number of zones to keep the total"},
	{ID: ruleid.UnusedVar, Severity: filepos.Warning,
		Summary: "a variable the profile defines that no template references: a warning where it looks like a misspelling of a name the templates use (a misspelling ships the old value), else an info note",
		Fix:     "fix the name or remove it; if other templates need it, list it under the profile's substitution.unused"},
	{ID: ruleid.InvalidName, Severity: filepos.Err,
		Summary: "a name or namespace, a label key or value (selectors and pod templates too), an annotation key, a container, port, env or volume name or a DNS-label field such as serviceName that substitution made and the API server refuses",
		Fix:     "fix the variable's value in the profile or --set, or the template around the reference"},
	{ID: ruleid.SecretOutsideData, Severity: filepos.Warning,
		Summary: "render --redact: a --set-env/--set-file value outside a Secret's data, written as a digest",
		Fix:     "move the value into a Secret's data and reference it (secretKeyRef, a volume)"},
	{ID: ruleid.DuplicateObject, Severity: filepos.Err,
		Summary: "a second object of one kind, namespace and name in a tenant: kubectl apply applies each in turn and the cluster keeps the last (render -o refuses it)"},
}

// Finding is one problem a rule found, in the template's coordinates. It
// lives here, beside the table, so that krender fn's results (package krm)
// read check's findings without linking the linter.
type Finding struct {
	Rule     string
	Severity filepos.Severity
	Pos      filepos.Pos
	Object   string   // Kind/name as written (a zone copy's name before the split), for the reader
	Zones    []string // the zone copies it was found in
	Tenants  []string
	Msg      string // ends with the zones and tenants it applies to, if any
	Fix      string
}

// All is the table, in order: the checks, then the stages' notes.
func All() []Rule { return slices.Clone(table) }

// IDs are the rule ids, in table order: what `check.disable` and
// krender.io/ignore accept (the profile schema lists them).
func IDs() []string {
	ids := make([]string, len(table))
	for i, r := range table {
		ids[i] = r.ID
	}
	return ids
}

// Lookup is the rule id names.
func Lookup(id string) (Rule, bool) {
	for _, r := range table {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
