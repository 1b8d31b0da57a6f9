package check

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/model/workload"
	"github.com/krender/krender/render/contenthash/refs"
	"github.com/krender/krender/render/subst"
)

// checks are the rules check finds itself, by id; the others are the
// render stages' notes, which the linter takes over as findings.
var checks = map[string]func(*ctx){
	ruleid.UnresolvedVar:      unresolvedVar,
	ruleid.RuntimeVars:        runtimeVars,
	ruleid.VarDefault:         varDefault,
	ruleid.UnknownField:       unknownField,
	ruleid.CRDSchema:          crdSchema,
	ruleid.TemplateField:      templateField,
	ruleid.CRDMissing:         crdMissing,
	ruleid.APIRemoved:         apiRemoved,
	ruleid.APIDeprecated:      apiDeprecated,
	ruleid.SubPathConfigMap:   subPathConfigMap,
	ruleid.EtcHostsWrite:      etcHostsWrite,
	ruleid.RuntimeVarShadowed: runtimeVarShadowed,
	ruleid.InotifyReload:      inotifyReload,
	ruleid.HostsRaceFree:      hostsRaceFree,
	ruleid.DuplicateObject:    duplicateObject,
}

// duplicateObject reports a second object of one kind, namespace and name
// in a tenant: kubectl apply applies each in turn, so the cluster keeps
// the last and the first only rolls pods on its way, and a reader of the
// manifests cannot tell which one is meant (kustomize refuses it; render
// -o refuses the second file).
func duplicateObject(c *ctx) {
	first := map[[4]string]*manifest.Object{}
	for _, o := range c.set.Objects {
		if o.Name() == "" {
			continue
		}
		key := [4]string{o.Group(), o.Kind(), c.set.NamespaceOf(o), o.Name()}
		prev, dup := first[key]
		if !dup {
			first[key] = o
			continue
		}
		c.report(o, manifest.Value(manifest.Value(o.Node, "metadata"), "name"), filepos.Err,
			fmt.Sprintf("%s %q is rendered twice in this tenant (first at %s): kubectl apply applies each in turn and the cluster keeps the last", o.Kind(), o.Name(), prev.Pos(prev.Node)),
			"keep one of them, or give each its own name")
	}
}

// unresolvedVar reports each undefined reference once per object: a
// workload split by zone reports it in every copy, each copy naming itself,
// at the one template position. One whose scalar a later stage replaced is
// reported too, since render refuses it as well.
func unresolvedVar(c *ctx) {
	c.eachRef(func(o *manifest.Object, r manifest.Ref, _ bool) {
		switch r.Verdict {
		case manifest.Wrong:
			fix := subst.Hint(r)
			if r.Reader == subst.Kubernetes || r.Reader == subst.Unknown {
				fix = fmt.Sprintf("add %s to the profile's vars (or --set %s=...) or fix the spelling; %s", r.Name, r.Name, fix)
			}
			c.reportAt(o, r.Pos, filepos.Err, r.Problem, strings.TrimSuffix(fix, "; "))
		case manifest.Questioned, manifest.TypoWarning:
			c.reportAt(o, r.Pos, filepos.Warning, r.Problem, subst.Hint(r))
		}
	})
}

// runtimeVars lists, once per object, the undefined names its programs own
// by evidence rather than by a runtime place: what krender decided without
// a table, for a reviewer to read.
func runtimeVars(c *ctx) {
	for _, o := range c.set.Objects {
		var list []string
		var first filepos.Pos
		seen := map[string]bool{}
		for _, r := range o.Refs {
			if r.Defined || r.Reader != subst.Program || r.Evidence == "" || r.Kept != "" || seen[r.Name] {
				continue
			}
			if len(list) == 0 {
				first = r.Pos
			}
			seen[r.Name] = true
			list = append(list, fmt.Sprintf("%s (%s)", r.Text, r.Evidence))
		}
		if len(list) > 0 {
			c.reportAt(o, first, filepos.Info, "kept as written for the program that reads them: "+strings.Join(list, ", "),
				"nothing to do; if one is a deploy-time variable, declare it in the profile's vars")
		}
	}
}

// varDefault lists every default form krender applied, so that no text
// changes without a line that says so, and the default forms a script keeps
// although the profile defines the name.
func varDefault(c *ctx) {
	c.eachRef(func(o *manifest.Object, r manifest.Ref, live bool) {
		switch {
		case !live || r.Op == "":
		case r.Applied:
			c.reportAt(o, r.Pos, filepos.Info, fmt.Sprintf("%s: %s is not defined, so its default %q is written", r.Text, r.Name, r.Word),
				"define "+r.Name+" in the profile to set it")
		case r.Defined && r.Reader == subst.Program:
			c.reportAt(o, r.Pos, filepos.Info, fmt.Sprintf("%s stays as written for the shell that runs this %s: the profile's %s does not reach it", r.Text, r.Runtime, r.Name),
				"write ${"+r.Name+"} to substitute the profile's value")
		}
	})
}

func unknownField(c *ctx) {
	for _, o := range c.set.Objects {
		problems, err := c.fields(o)
		if err != nil {
			c.report(o, nil, filepos.Err, "cannot check fields: "+err.Error(), "report this as a krender bug")
			continue
		}
		for _, p := range problems {
			c.report(o, p.Node, filepos.Err, p.Msg, "fix the field name or type (kubectl explain "+strings.ToLower(o.Kind())+" shows the schema)")
		}
	}
	crdUnknownField(c)
}

func runtimeVarShadowed(c *ctx) {
	c.eachRef(func(o *manifest.Object, r manifest.Ref, live bool) {
		if !live || !r.Defined || r.Reader != subst.Program || r.Kept != "" || r.Op != "" {
			return
		}
		if !workload.ShellKind(r.Runtime).Shell() {
			// A config file, a template, a custom resource: warn only where
			// the object says the program has a variable of that name.
			why := shadowEvidence(r)
			if why == "" && workload.ShellKind(r.Runtime) == workload.ConfigData && isScript(r) {
				c.reportAt(o, r.Pos, filepos.Info, fmt.Sprintf("%s in the script %s is a deploy-time variable: krender substitutes it at render time", r.Text, r.Field),
					fmt.Sprintf("to read the process's variable at run time, annotate the object %s%s: %s", manifest.DirectivePrefix, subst.RuntimeVarsDirective, r.Name))
			}
			if why != "" {
				c.reportAt(o, r.Pos, filepos.Warning, fmt.Sprintf("%s in %s is substituted at render time, but it is %s: the program probably means its own", r.Text, r.Field, why),
					fmt.Sprintf("annotate the object %s%s: %s to keep it as written, or rename the profile variable", manifest.DirectivePrefix, subst.RuntimeVarsDirective, r.Name))
			}
			return
		}
		sev := filepos.Info
		msg := fmt.Sprintf("%s in a %s is a deploy-time variable: krender substitutes it at render time", r.Text, r.Runtime)
		if ctr := containerOf(o, r.Node); ctr != nil && setsEnv(ctr, r.Name) {
			sev = filepos.Warning
			msg = fmt.Sprintf("%s is substituted at render time, but container %q also sets env %s: the script probably means the container's value",
				r.Text, manifest.ScalarAt(ctr, "name"), r.Name)
		} else if why := shadowEvidence(r); why != "" {
			sev = filepos.Warning
			msg = fmt.Sprintf("%s is substituted at render time, but it is %s: the script probably means its own", r.Text, why)
		}
		c.reportAt(o, r.Pos, sev, msg, fmt.Sprintf("to read the container's variable at run time, rename it or write $(printenv %s)", r.Name))
	})
}

// isScript: ConfigMap/Secret data a shell runs (a .sh key, or a #! line).
func isScript(r manifest.Ref) bool {
	return strings.HasSuffix(r.Field, ".sh]") || strings.HasSuffix(r.Field, ".bash]") || strings.HasPrefix(r.Node.Value, "#!")
}

// shadowEvidence says why the program reading r has a variable of r's name.
func shadowEvidence(r manifest.Ref) string {
	if r.Evidence == "" && subst.StandardVar(r.Name) {
		return subst.EvidenceStandard
	}
	return r.Evidence
}

// WritesEtcHosts reports whether a script writes /etc/hosts.
func WritesEtcHosts(script string) bool { return workload.EtcHostsWrite(script) != nil }

func etcHostsWrite(c *ctx) {
	for _, o := range c.set.Objects {
		spec := workload.PodSpec(o)
		if spec == nil {
			continue
		}
		istio := workload.HasIstioSidecar(o)
		held := workload.HoldsApplicationUntilProxyStarts(o)
		for _, ctr := range workload.Containers(spec) {
			n := scriptWriting(ctr)
			if n == nil {
				continue
			}
			name := manifest.ScalarAt(ctr, "name")
			fix := "put the entries in spec.hostAliases (krender's zones: section generates them per zone) instead of writing /etc/hosts"
			switch {
			case istio && !held:
				c.report(o, n, filepos.Err, fmt.Sprintf("container %q writes /etc/hosts in a pod with an istio sidecar: kubelet rewrites the file when istio-proxy starts, and the line is lost", name),
					fix+"; at least set holdApplicationUntilProxyStarts: true in the proxy.istio.io/config annotation")
			default:
				c.report(o, n, filepos.Warning, fmt.Sprintf("container %q writes /etc/hosts: kubelet rewrites the file whenever a container of the pod (re)starts", name), fix)
			}
		}
	}
}

// scriptWriting returns the first script scalar of a container that writes /etc/hosts.
func scriptWriting(ctr *yaml.Node) *yaml.Node {
	var found *yaml.Node
	for _, n := range workload.Scripts(ctr) {
		if found == nil && WritesEtcHosts(n.Value) {
			found = n
		}
	}
	return found
}

func subPathConfigMap(c *ctx) {
	eachMount(c.set, func(o *manifest.Object, spec, ctr, m *yaml.Node) {
		sub := manifest.Value(m, "subPath")
		if sub == nil || sub.Value == "" {
			return
		}
		for _, src := range configSources(o, spec, manifest.ScalarAt(m, "name")) {
			target := find(c.set, src.kind, c.set.NamespaceOf(o), src.name.Value)
			switch {
			case target == nil:
				c.report(o, sub, filepos.Err, fmt.Sprintf("%s %q is mounted with subPath but is not part of this render: the mount never sees updates", src.kind, src.name.Value),
					"render the "+src.kind+" with krender so its name carries a content hash, or mount the volume as a directory")
			case !target.ContentHashed:
				c.report(o, sub, filepos.Err, fmt.Sprintf("%s %q is mounted with subPath and not content-hashed: a subPath bind mount pins the file, so pods keep the old content until re-created", src.kind, target.Name()),
					"let krender hash it (hash mode suffix or annotation, no krender.io/hash: off), or mount the volume as a directory")
			}
		}
	})
}

// eachMount calls f for every volume mount of every container of every pod.
func eachMount(s *manifest.Set, f func(o *manifest.Object, spec, ctr, mount *yaml.Node)) {
	for _, o := range s.Objects {
		spec := workload.PodSpec(o)
		for _, ctr := range workload.Containers(spec) {
			for _, m := range seq(manifest.Value(ctr, "volumeMounts")) {
				f(o, spec, ctr, m)
			}
		}
	}
}

type configSource struct {
	kind string
	name *yaml.Node
}

// configSources lists the ConfigMaps and Secrets behind the named volume of
// o's pod spec: the fields content hashing follows (render/contenthash/refs).
func configSources(o *manifest.Object, spec *yaml.Node, volume string) []configSource {
	var out []configSource
	for _, v := range seq(manifest.Value(spec, "volumes")) {
		if manifest.ScalarAt(v, "name") != volume {
			continue
		}
		refs.Mounted(o, v, func(to string, name *yaml.Node) { out = append(out, configSource{to, name}) })
	}
	return out
}

func inotifyReload(c *ctx) {
	eachMount(c.set, func(o *manifest.Object, spec, ctr, m *yaml.Node) {
		if manifest.ScalarAt(m, "subPath") != "" || len(configSources(o, spec, manifest.ScalarAt(m, "name"))) == 0 {
			return
		}
		dir := strings.TrimSuffix(manifest.ScalarAt(m, "mountPath"), "/")
		for _, s := range workload.Scripts(ctr) {
			if file := watchedFile(s.Value, dir); file != "" {
				c.report(o, s, filepos.Warning,
					fmt.Sprintf("inotify watches %s, one file of a ConfigMap volume: kubelet updates it by swapping the ..data symlink, which arrives as IN_DELETE_SELF, not IN_MODIFY, and the watch dies", file),
					fmt.Sprintf("watch the directory instead (inotifywait -m -e create,moved_to %s) and re-read the file on each event", dir))
			}
		}
	})
}

var inotifyLine = regexp.MustCompile(`\binotifywait\b[^\n;|&]*`)

// watchedFile returns a path inside dir that an inotifywait in script watches.
func watchedFile(script, dir string) string {
	if dir == "" {
		return ""
	}
	for _, line := range inotifyLine.FindAllString(script, -1) {
		for _, tok := range strings.Fields(line) {
			tok = strings.Trim(tok, `"'`)
			if strings.HasPrefix(tok, dir+"/") && len(tok) > len(dir)+1 {
				return tok
			}
		}
	}
	return ""
}

func hostsRaceFree(c *ctx) {
	owned := map[string]bool{}
	for _, z := range c.profile.Zones {
		for _, ha := range z.HostAliases {
			for _, h := range ha.Hostnames {
				owned[ha.IP.Value+" "+h.Value] = true
			}
		}
	}
	if len(owned) == 0 {
		return
	}
	for _, o := range c.set.Objects {
		spec := workload.PodSpec(o)
		aliases := manifest.Value(spec, "hostAliases")
		var lines []string
		for _, ha := range seq(aliases) {
			ip := manifest.ScalarAt(ha, "ip")
			for _, h := range seq(manifest.Value(ha, "hostnames")) {
				if owned[ip+" "+h.Value] {
					lines = append(lines, ip+" "+h.Value)
				}
			}
		}
		if len(lines) == 0 {
			continue
		}
		sort.Strings(lines)
		c.report(o, aliases, filepos.Info, fmt.Sprintf("%s gets hostAliases from the profile's zones (no /etc/hosts writes, no race with kubelet): %s",
			o.Kind()+"/"+o.Name(), strings.Join(lines, ", ")), "nothing to do; review that each zone's addresses are right")
	}
}

func seq(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func find(s *manifest.Set, kind, ns, name string) *manifest.Object {
	for _, o := range s.Objects {
		if o.Kind() == kind && o.Name() == name && s.NamespaceOf(o) == ns {
			return o
		}
	}
	return nil
}

// eachRef calls f for every variable reference substitution saw in each
// object; live says whether its scalar still reaches the output (a later
// stage may have replaced it). The index of every node is built once per
// set, not per reference.
func (c *ctx) eachRef(f func(o *manifest.Object, r manifest.Ref, live bool)) {
	if c.owner == nil {
		c.owner = map[*yaml.Node]*manifest.Object{}
		for _, o := range c.set.Objects {
			if len(o.Refs) > 0 {
				manifest.Walk(o.Node, func(m *yaml.Node) { c.owner[m] = o })
			}
		}
	}
	for _, o := range c.set.Objects {
		for _, r := range o.Refs {
			f(o, r, c.owner[r.Node] == o)
		}
	}
}

// containerOf finds the container of o whose subtree holds n.
func containerOf(o *manifest.Object, n *yaml.Node) *yaml.Node {
	spec := workload.PodSpec(o)
	for _, ctr := range workload.Containers(spec) {
		found := false
		manifest.Walk(ctr, func(m *yaml.Node) { found = found || m == n })
		if found {
			return ctr
		}
	}
	return nil
}

func setsEnv(ctr *yaml.Node, name string) bool {
	for _, e := range seq(manifest.Value(ctr, "env")) {
		if manifest.ScalarAt(e, "name") == name {
			return true
		}
	}
	return false
}
