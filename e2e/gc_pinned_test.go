//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// The ways a workload goes while what is applied still names its
// configuration: gc must never let the garbage collector take a
// ConfigMap or Secret that a live Deployment, Ingress or ServiceAccount
// names. Each scenario waits (bounded) until the garbage collector has
// done what the event gives it to do, and a probe of its own, before it
// checks.

// edit rewrites every document of a rendered stream with f (as JSON, one
// document each, which kubectl reads as YAML).
func edit(t *testing.T, stream string, f func(o map[string]any)) string {
	t.Helper()
	docs, err := testtool.KubectlDocs([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		var o map[string]any
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatal(err)
		}
		f(o)
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return strings.Join(out, "\n---\n") + "\n"
}

// deploymentEdit applies f to the stream's Deployment alone.
func deploymentEdit(f func(spec map[string]any, o map[string]any)) func(map[string]any) {
	return func(o map[string]any) {
		if o["kind"] == "Deployment" {
			f(o["spec"].(map[string]any), o)
		}
	}
}

// withPods gives the Deployment n replicas; with node, each pod is bound
// to that node, which has no kubelet: a deleted pod then stays
// terminating until force-deleted. Without, the pods are never scheduled
// and a deleted one goes at once.
func withPods(n int, node string) func(map[string]any) {
	return deploymentEdit(func(spec, _ map[string]any) {
		spec["replicas"] = n
		if node != "" {
			spec["template"].(map[string]any)["spec"].(map[string]any)["nodeName"] = node
		}
	})
}

// namedByLive checks that every rendered ConfigMap and Secret that a live
// Deployment, Ingress or ServiceAccount names exists; the objects are
// listed after the ConfigMaps and Secrets, so a name they use that is
// missing was deleted while in use.
func (s *gcScenario) namedByLive() {
	t := s.t
	t.Helper()
	have := s.existing()
	checked := 0
	for _, o := range listObjects(t, s.ns, "deployments,ingresses,serviceaccounts") {
		var m map[string]any
		if err := json.Unmarshal([]byte(o.raw), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "metadata") // kubectl's last-applied annotation may name an older version
		body, _ := json.Marshal(m)
		for _, v := range s.versions {
			for _, name := range []string{v.configMap, v.secret, v.extra} {
				if name == "" || !strings.Contains(string(body), `"`+name+`"`) {
					continue
				}
				checked++
				if !have[name] {
					t.Errorf("%s %s names %s, which the garbage collector deleted", o.Kind, o.Metadata.Name, name)
				}
			}
		}
	}
	if checked == 0 {
		t.Errorf("no live Deployment, Ingress or ServiceAccount names a rendered version: the check proves nothing")
	}
}

// gcSettles waits until the garbage collector has deleted the dependent
// of an owner deleted now: it has then worked through the events before.
func (s *gcScenario) gcSettles() {
	t := s.t
	t.Helper()
	owner := "probe-" + randomHex(t)[:8]
	kubectlOK(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+owner+"}\n", "apply", "-n", s.ns, "-f", "-")
	var o kobj
	kubectlJSON(t, &o, "get", "-n", s.ns, "configmap", owner)
	kubectlOK(t, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %[1]s-dependent\n  ownerReferences:\n"+
		"  - {apiVersion: v1, kind: ConfigMap, name: %[1]s, uid: %[2]s}\n", owner, o.Metadata.UID), "apply", "-n", s.ns, "-f", "-")
	kubectlOK(t, "", "delete", "-n", s.ns, "configmap", owner)
	s.waitUntil("the garbage collector deletes a probe's dependent", func() (bool, string) {
		names := snapshot(t, s.ns)
		_, left := names["ConfigMap/"+owner+"-dependent"]
		return !left, fmt.Sprint(slices.Sorted(maps.Keys(names)))
	})
}

// replicaSetsOf lists the ReplicaSets that the Deployment of uid controls,
// or, with uid "", every ReplicaSet; pods likewise by their ReplicaSets.
func (s *gcScenario) replicaSetsOf(uid string) []kobj {
	var out []kobj
	for _, r := range listObjects(s.t, s.ns, "replicasets") {
		if uid == "" || slices.ContainsFunc(r.Metadata.OwnerReferences, func(o ownerRef) bool { return o.UID == uid }) {
			out = append(out, r)
		}
	}
	return out
}

func (s *gcScenario) deploymentUID(name string) string {
	var d kobj
	kubectlJSON(s.t, &d, "get", "-n", s.ns, "deployment", name)
	return d.Metadata.UID
}

// waitGone waits until no ReplicaSet of the Deployment of uid is left (the
// garbage collector deleted them) and the garbage collector settled.
func (s *gcScenario) waitGone(uid string) {
	s.waitUntil("the garbage collector deletes the old Deployment's ReplicaSets", func() (bool, string) {
		rs := s.replicaSetsOf(uid)
		return len(rs) == 0, fmt.Sprintf("%d left", len(rs))
	})
	s.gcSettles()
}

// waitPods waits until cond holds of the namespace's pods.
func (s *gcScenario) waitPods(what string, cond func(pods []kobj) bool) {
	s.waitUntil(what, func() (bool, string) {
		pods := listObjects(s.t, s.ns, "pods")
		return cond(pods), fmt.Sprintf("%d pods", len(pods))
	})
}

func terminating(p kobj) bool { return strings.Contains(p.raw, `"deletionTimestamp"`) }

// TestGCReplaceForce: `kubectl replace --force` of the Deployment (as a
// changed selector needs), then gc at once. The old Deployment and its
// ReplicaSets go, and with them the version only they named; the version
// the new Deployment names stays, and gc finds nothing missing.
func TestGCReplaceForce(t *testing.T) {
	t.Parallel()
	s := newGCScenario(t, gcDeployment, gcDocsRole(t))
	s.apply(1)
	s.waitForController(1)
	s.runGC()
	s.apply(2)
	s.waitForController(2)
	s.runGC()
	old := s.deploymentUID("web")
	docs, err := testtool.KubectlDocs([]byte(s.versions[1].stream))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(docs, func(d []byte) bool { return strings.Contains(string(d), `"kind":"Deployment"`) })
	if i < 0 {
		t.Fatal("the render has no Deployment")
	}
	kubectlOK(t, string(docs[i]), "replace", "--force", "-f", "-")
	r := s.gc()
	r.ok(t)
	s.waitGone(old)
	s.waitUntil("the garbage collector deletes the version only the old ReplicaSets named", func() (bool, string) {
		have := s.existing()
		return !have[s.versions[0].configMap] && !have[s.versions[0].secret], fmt.Sprint(slices.Sorted(maps.Keys(have)))
	})
	s.namedByLive()
	if have := s.existing(); !have[s.versions[1].configMap] || !have[s.versions[1].secret] {
		t.Errorf("after replace --force: %v, want %s and %s", have, s.versions[1].configMap, s.versions[1].secret)
	}
	s.runGC()
	s.secondRunChangesNothing()
}

// TestGCDeleteAndReapplyWhilePodsTerminate: `kubectl delete deployment`,
// then `kubectl apply` of the same render while the old pods terminate,
// with no gc in between: slowly (bound to a node with no kubelet, so they
// stay until force-deleted) and at once (never scheduled). When the last
// old pod goes, the ConfigMap and Secret the new Deployment names stay.
func TestGCDeleteAndReapplyWhilePodsTerminate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, node string }{{"slow", "krender-no-kubelet"}, {"fast", ""}} {
		t.Run(c.name, func(t *testing.T) {
			s := newGCScenario(t, gcDeployment, gcDocsRole(t))
			v := s.render(1)
			stream := edit(t, v.stream, withPods(2, c.node))
			kubectlOK(t, stream, "apply", "-f", "-")
			s.waitPods("the ReplicaSet makes 2 pods", func(pods []kobj) bool { return len(pods) == 2 })
			s.runGC()
			old := s.deploymentUID("web")
			kubectlOK(t, "", "delete", "-n", s.ns, "deployment", "web", "--wait=false")
			s.waitUntil("the garbage collector deletes the ReplicaSet", func() (bool, string) {
				return len(s.replicaSetsOf(old)) == 0, "ReplicaSets left"
			})
			if c.node != "" {
				s.waitPods("the old pods terminate, slowly", func(pods []kobj) bool {
					return len(pods) == 2 && terminating(pods[0]) && terminating(pods[1])
				})
			}
			kubectlOK(t, stream, "apply", "-f", "-") // configmap/... unchanged
			s.waitPods("the new ReplicaSet makes its pods", func(pods []kobj) bool {
				return len(slices.DeleteFunc(pods, terminating)) == 2
			})
			if c.node != "" {
				for _, p := range listObjects(t, s.ns, "pods") {
					if terminating(p) {
						kubectlOK(t, "", "delete", "-n", s.ns, "pod", p.Metadata.Name, "--force", "--grace-period=0")
					}
				}
			}
			s.waitPods("the old pods are gone", func(pods []kobj) bool { return !slices.ContainsFunc(pods, terminating) })
			s.gcSettles()
			s.namedByLive()
			s.runGC()
			s.checkOwners()
		})
	}
}

// TestGCRenameUnderPrune: a Deployment renamed under `kubectl apply
// --prune -l`: the apply prunes the old one, whose ReplicaSet goes; the
// ConfigMap and Secret the new one names stay.
func TestGCRenameUnderPrune(t *testing.T) {
	t.Parallel()
	s := newGCScenario(t, gcDeployment, gcDocsRole(t))
	label := "krender-gc-prune=" + s.ns
	labelled := func(name string) func(map[string]any) {
		return func(o map[string]any) {
			md := o["metadata"].(map[string]any)
			labels, _ := md["labels"].(map[string]any)
			if labels == nil {
				labels = map[string]any{}
			}
			labels["krender-gc-prune"] = s.ns
			md["labels"] = labels
			if o["kind"] == "Deployment" {
				md["name"] = name
			}
		}
	}
	v := s.render(1)
	kubectlOK(t, edit(t, v.stream, labelled("web")), "apply", "--prune", "-l", label, "-f", "-")
	s.waitForController(1)
	s.runGC()
	old := s.deploymentUID("web")
	kubectlOK(t, edit(t, v.stream, labelled("web2")), "apply", "--prune", "-l", label, "-f", "-")
	s.waitGone(old)
	s.namedByLive()
	s.runGC()
	s.secondRunChangesNothing()
}

// TestGCIngressAndServiceAccountReferences: an Ingress's tls[].secretName
// and a ServiceAccount's imagePullSecrets, which the render rewrites, keep
// their Secrets when the Deployment that mounts them goes.
func TestGCIngressAndServiceAccountReferences(t *testing.T) {
	t.Parallel()
	w := gcDeployment
	w.fixture = "ingress"
	s := newGCScenario(t, w, gcDocsRole(t))
	for k := 1; k <= 2; k++ {
		v := s.render(k)
		s.versions[k-1].extra = hashedName(t, v.stream, "Secret", "web-pull")
		kubectlOK(t, v.stream, "apply", "--validate=strict", "-f", "-")
		s.waitForController(k)
		s.runGC()
	}
	uid := s.deploymentUID("web")
	kubectlOK(t, "", "delete", "-n", s.ns, "deployment", "web", "--wait=false")
	s.waitGone(uid)
	s.namedByLive()
	have := s.existing()
	cur := s.versions[1]
	if !have[cur.secret] || !have[cur.extra] {
		t.Errorf("the Deployment gone, the Ingress's %s and the ServiceAccount's %s must stay: %v", cur.secret, cur.extra, have)
	}
	if r := s.gc(); r.code != 0 || !strings.Contains(r.stdout, "gc: namespace "+s.ns+": ") {
		t.Errorf("gc after the Deployment went:\n%s", r)
	}
}

// TestGCManyReplicasOneOwnerPerRevision: a Deployment of 40 replicas
// (never scheduled) mid-rollout: each version has at most one owner per
// revision, and none is a pod.
func TestGCManyReplicasOneOwnerPerRevision(t *testing.T) {
	t.Parallel()
	s := newGCScenario(t, gcDeployment, gcDocsRole(t))
	for k := 1; k <= 2; k++ {
		v := s.render(k)
		kubectlOK(t, edit(t, v.stream, withPods(40, "")), "apply", "-f", "-")
		s.waitUntil(fmt.Sprintf("round %d: the ReplicaSets make their pods", k), func() (bool, string) {
			pods := listObjects(t, s.ns, "pods")
			rs := s.replicaSetsOf("")
			return len(rs) == k && len(pods) >= 40, fmt.Sprintf("%d ReplicaSets, %d pods", len(rs), len(pods))
		})
		r := s.gc()
		r.ok(t)
		if strings.Contains(r.stdout, "Pod/") {
			t.Errorf("round %d: gc names pods as owners:\n%s", k, r)
		}
	}
	revisions := len(s.replicaSetsOf(""))
	for _, o := range listObjects(t, s.ns, "configmaps,secrets") {
		if !s.rendered(o.Metadata.Name) {
			continue
		}
		if n := len(o.Metadata.OwnerReferences); n > revisions {
			t.Errorf("%s %s has %d owners for %d revisions", o.Kind, o.Metadata.Name, n, revisions)
		}
		for _, ref := range o.Metadata.OwnerReferences {
			if ref.Kind != "ReplicaSet" {
				t.Errorf("%s %s is owned by %s %s", o.Kind, o.Metadata.Name, ref.Kind, ref.Name)
			}
		}
	}
	s.checkOwners()
	s.namedByLive()
}
