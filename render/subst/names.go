package subst

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
	apipath "k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
)

// nameRule is how the API server validates the names of one kind.
type nameRule struct {
	check  func(string) []string
	maxLen int // a further limit, 0 if none
	why    string
}

var (
	subdomain   = nameRule{check: validation.IsDNS1123Subdomain, why: "a DNS-1123 subdomain"}
	label1123   = nameRule{check: validation.IsDNS1123Label, why: "a DNS-1123 label"}
	label1035   = nameRule{check: validation.IsDNS1035Label, why: "a DNS-1035 label"}
	pathSegment = nameRule{check: apipath.IsValidPathSegmentName, why: "a path segment"}
)

// nameRules are the built-in kinds whose name validation the API server
// (pkg/apis/*/validation) makes other than a DNS-1123 subdomain, or that
// are checked as one; the key is group/kind.
var nameRules = map[string]nameRule{
	"/Namespace":                                   label1123, // ValidateNamespaceName
	"/Service":                                     label1035, // ValidateServiceName
	"batch/CronJob":                                {check: validation.IsDNS1123Subdomain, maxLen: 52, why: "a DNS-1123 subdomain of at most 52 characters, as its Jobs add 11"},
	"rbac.authorization.k8s.io/Role":               pathSegment, // ValidateRBACName
	"rbac.authorization.k8s.io/ClusterRole":        pathSegment,
	"rbac.authorization.k8s.io/RoleBinding":        pathSegment,
	"rbac.authorization.k8s.io/ClusterRoleBinding": pathSegment,
	"/Pod":                                subdomain,
	"/ConfigMap":                          subdomain,
	"/Secret":                             subdomain,
	"/ServiceAccount":                     subdomain,
	"/PersistentVolume":                   subdomain,
	"/PersistentVolumeClaim":              subdomain,
	"/ReplicationController":              subdomain,
	"/LimitRange":                         subdomain,
	"/ResourceQuota":                      subdomain,
	"/Endpoints":                          subdomain,
	"/Node":                               subdomain,
	"apps/Deployment":                     subdomain,
	"apps/ReplicaSet":                     subdomain,
	"apps/DaemonSet":                      subdomain,
	"apps/StatefulSet":                    subdomain,
	"batch/Job":                           subdomain,
	"networking.k8s.io/Ingress":           subdomain,
	"networking.k8s.io/IngressClass":      subdomain,
	"networking.k8s.io/NetworkPolicy":     subdomain,
	"policy/PodDisruptionBudget":          subdomain,
	"autoscaling/HorizontalPodAutoscaler": subdomain,
	"scheduling.k8s.io/PriorityClass":     subdomain,
	"storage.k8s.io/StorageClass":         subdomain,
	"apiextensions.k8s.io/CustomResourceDefinition": subdomain,
}

// nameRuleOf is the rule for o's names: its kind's, a custom resource's
// (the API server's default for them, a DNS-1123 subdomain), or, for a
// built-in kind not in the table, what the API server asks of every name.
func nameRuleOf(o *manifest.Object) nameRule {
	group := o.Group()
	if r, ok := nameRules[group+"/"+o.Kind()]; ok {
		return r
	}
	if group == "" || kubeapi.BuiltinGroup(group) {
		return pathSegment
	}
	return subdomain
}

// invalidNames checks the name and namespace substitution wrote into o
// against what the API server accepts for its kind; a name written as it
// stands in the template is the API server's to judge.
func invalidNames(o *manifest.Object) []filepos.Note {
	var out []filepos.Note
	for _, f := range []struct {
		key  string
		rule nameRule
	}{{"name", nameRuleOf(o)}, {"namespace", label1123}} {
		n := manifest.Lookup(o.Node, "metadata", f.key)
		if n == nil || n.Kind != yaml.ScalarNode {
			continue
		}
		from := substitutedIn(o.Refs, n)
		if from == "" {
			continue
		}
		msgs := f.rule.check(n.Value)
		if f.rule.maxLen > 0 && len(n.Value) > f.rule.maxLen {
			msgs = append(msgs, fmt.Sprintf("must be no more than %d characters", f.rule.maxLen))
		}
		if len(msgs) == 0 {
			continue
		}
		what := o.Kind() + " name"
		if f.key == "namespace" {
			what = "namespace"
		}
		out = append(out, filepos.Note{Pos: o.Pos(n), Severity: filepos.Err, Rule: ruleid.InvalidName,
			Msg: fmt.Sprintf("metadata.%s %q, made from %s, is not a valid %s (%s): %s",
				f.key, n.Value, from, what, f.rule.why, strings.Join(msgs, "; "))})
	}
	return out
}

// substitutedIn names what substitution wrote or kept in n: the variables
// whose values it holds, the defaults it took, the escapes it wrote and the
// references directly after a `$` it kept. It is "" when n holds nothing
// krender answers for: no reference, one that is already an error, or only
// references kept for another reason (an opt-out, a CRD's schema, a
// silenced rule), which are their reader's.
func substitutedIn(refs []manifest.Ref, n *yaml.Node) string {
	var names, others []string
	for _, r := range refs {
		switch {
		case r.Node != n:
		case r.Verdict == manifest.Wrong:
			return "" // reported already
		case r.Escaped && r.Kept == "":
			others = append(others, "the escape $$")
		case r.Kept == AfterDollarKept:
			others = append(others, r.Text+" kept as written after a $")
		case r.Kept != "":
		case r.Applied:
			others = append(others, "the default of "+r.Text)
		case r.Defined:
			names = append(names, r.Name)
		}
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	var parts []string
	switch len(names) {
	case 0:
	case 1:
		parts = append(parts, "the variable "+names[0])
	default:
		parts = append(parts, "the variables "+strings.Join(names, ", "))
	}
	return strings.Join(append(parts, slices.Compact(others)...), " and ")
}
