//go:build e2e

package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/krender/krender/internal/testing/testtool"
)

// The `krender gc` tier: krender renders, kubectl applies, `krender gc`
// gives every hashed version the owners that can still start a pod from it,
// and the real kube-controller-manager (its workload controllers and garbage
// collector) deletes what no revision uses any more. Every wait polls the
// cluster for a state, bounded by gcWait; none is an assertion by itself.

// gcWait bounds every wait for a controller or the garbage collector; they
// act within seconds, the bound leaves room for a machine running many tests.
const gcWait = 3 * time.Minute

// gcDocs is the page that gives the Role `krender gc` needs; the tests run
// gc under exactly that Role, so the page cannot drift from what gc does.
const gcDocs = "../docs/gc.md"

// gcServiceAccount is the identity gc runs as, by impersonation.
const gcServiceAccount = "krender-gc"

// gcWorkload describes one scenario: a workload kind, the objects that are
// its revisions, and the fixture that renders it.
type gcWorkload struct {
	kind      string // the workload's resource, for kubectl
	name      string
	revisions string // the resource of its revisions
	fixture   string // directory under testdata/gc
	config    string // ConfigMap name as written
	secret    string // Secret name as written
	jobs      bool   // a CronJob: each round starts a Job from it
	keep      int    // revisions the controller keeps besides the current one
}

var (
	gcDeployment = gcWorkload{kind: "deployment", name: "web", revisions: "replicasets", fixture: "deployment",
		config: "web-config", secret: "web-secret", keep: 1}
	gcStatefulSet = gcWorkload{kind: "statefulset", name: "db", revisions: "controllerrevisions", fixture: "statefulset",
		config: "db-config", secret: "db-secret", keep: 1}
	gcCronJob = gcWorkload{kind: "cronjob", name: "report", revisions: "jobs", fixture: "cronjob",
		config: "report-config", secret: "report-secret", jobs: true, keep: 1}
)

// TestGCDeploymentRevisions: a Deployment with revisionHistoryLimit 1
// through four data changes, gc after each apply; then `kubectl rollout
// undo` lands on a template whose ConfigMap and Secret exist.
func TestGCDeploymentRevisions(t *testing.T) {
	t.Parallel()
	runGCScenario(t, gcDeployment)
}

// TestGCStatefulSetRevisions: the same through ControllerRevisions.
func TestGCStatefulSetRevisions(t *testing.T) {
	t.Parallel()
	runGCScenario(t, gcStatefulSet)
}

// TestGCCronJobJobs: the same through the Jobs of a CronJob, which the
// CronJob controller deletes by failedJobsHistoryLimit.
func TestGCCronJobJobs(t *testing.T) {
	t.Parallel()
	runGCScenario(t, gcCronJob)
}

// TestGarbageCollectorRuns holds the tier to what the gc scenarios rely on:
// kube-controller-manager's garbage collector deletes an object whose only
// owner is gone, and the deployment controller makes ReplicaSets.
func TestGarbageCollectorRuns(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "krender-gc-smoke")
	kubectlOK(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}\n", "apply", "-n", ns, "-f", "-")
	var owner kobj
	kubectlJSON(t, &owner, "get", "-n", ns, "configmap", "owner")
	dependent := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent\n  ownerReferences:\n"+
		"  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: %s}\n", owner.Metadata.UID)
	kubectlOK(t, dependent, "apply", "-n", ns, "-f", "-")
	kubectlOK(t, "", "delete", "-n", ns, "configmap", "owner")
	waitUntil(t, "the garbage collector deletes the dependent of a deleted owner", func() (bool, string) {
		names := snapshot(t, ns)
		_, left := names["ConfigMap/dependent"]
		return !left, fmt.Sprint(names)
	})
	kubectlOK(t, "", "create", "deployment", "-n", ns, "web", "--image=registry.invalid/krender/smoke:1", "--replicas=0")
	waitUntil(t, "the deployment controller makes a ReplicaSet", func() (bool, string) {
		rs := listObjects(t, ns, "replicasets")
		return len(rs) == 1, fmt.Sprintf("%d ReplicaSets", len(rs))
	})
}

func runGCScenario(t *testing.T, w gcWorkload) {
	s := newGCScenario(t, w, gcDocsRole(t))
	for k := 1; k <= 5; k++ {
		s.round(k)
		if t.Failed() {
			t.FailNow()
		}
	}
	if !w.jobs {
		s.rollbackLandsOnExistingVersion()
	}
	s.checkBystanders()
}

// gcVersion is one round's hashed names and the Secret's value.
type gcVersion struct {
	configMap, secret, password string
	extra                       string // another hashed name of the render, where a scenario tracks one
	stream                      string // krender render's output
}

type gcScenario struct {
	t          *testing.T
	w          gcWorkload
	bin        string // krender
	ns         string
	gcConfig   string // kubeconfig acting as the ServiceAccount bound to the Role
	versions   []gcVersion
	bystanders map[string]kobj // name: as created
}

func newGCScenario(t *testing.T, w gcWorkload, role map[string]any) *gcScenario {
	t.Helper()
	s := &gcScenario{t: t, w: w, bin: testtool.Krender(t), ns: newNamespace(t, "krender-gc-"+w.kind)}
	s.gcConfig = grantRole(t, s.ns, role)
	s.bystanders = createBystanders(t, s.ns, w.config)
	return s
}

// round renders version k, applies it, waits for the controller, checks
// that the garbage collector deleted the version whose last revision went,
// runs gc, and checks the owners it gave.
func (s *gcScenario) round(k int) {
	s.t.Logf("round %d", k)
	s.apply(k)
	if s.w.jobs {
		kubectlOK(s.t, "", "create", "job", "-n", s.ns, fmt.Sprintf("%s-%d", s.w.name, k), "--from=cronjob/"+s.w.name)
	}
	s.waitForController(k)
	if gone := k - s.w.keep - 2; gone >= 0 {
		// Its last owner was a revision the controller just deleted: the
		// garbage collector, not krender, removes it, before gc runs.
		s.waitUntil(fmt.Sprintf("the garbage collector deletes version %d", gone+1), func() (bool, string) {
			names := s.existing()
			return !names[s.versions[gone].configMap] && !names[s.versions[gone].secret], fmt.Sprint(slices.Sorted(maps.Keys(names)))
		})
	}
	switch k {
	case 2:
		s.dryRunChangesNothing()
		s.runGC()
		s.checkVersions(k)
		s.secondRunChangesNothing()
		s.reapplyKeepsOwners(k)
	case 3:
		s.concurrentRuns()
		s.checkVersions(k)
	default:
		s.runGC()
		s.checkVersions(k)
	}
}

// apply is `krender render | kubectl apply` with version k's data: the
// ConfigMap's VERSION and a fresh Secret value given as a CI secret.
func (s *gcScenario) apply(k int) {
	v := s.render(k)
	kubectlOK(s.t, v.stream, "apply", "--validate=strict", "-f", "-")
}

// render renders version k and records its names.
func (s *gcScenario) render(k int) gcVersion {
	t := s.t
	t.Helper()
	password := "pw-" + randomHex(t)
	cmd := exec.Command(s.bin, "render", "-p", "testdata/gc/profile.yaml", "--namespace", s.ns,
		"--set", fmt.Sprintf("VERSION=%d", k), "--set-env", "DB_PASSWORD", filepath.Join("testdata/gc", s.w.fixture))
	cmd.Env = append(os.Environ(), "DB_PASSWORD="+password)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("krender render: %v\n%s", err, stderr.String())
	}
	v := gcVersion{password: password, stream: stdout.String()}
	v.configMap, v.secret = hashedName(t, v.stream, "ConfigMap", s.w.config), hashedName(t, v.stream, "Secret", s.w.secret)
	for _, old := range s.versions {
		if old.configMap == v.configMap || old.secret == v.secret {
			t.Fatalf("round %d: a data change kept the name %s/%s", k, v.configMap, v.secret)
		}
	}
	s.versions = append(s.versions, v)
	return v
}

// hashedName finds the hashed name krender gave the object written as name.
func hashedName(t *testing.T, stream, kind, name string) string {
	t.Helper()
	docs, err := testtool.KubectlDocs([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		var o kobj
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatal(err)
		}
		if o.Kind == kind && o.Metadata.Labels["krender.io/name"] == name {
			if !hashed.MatchString(o.Metadata.Name) || !strings.HasPrefix(o.Metadata.Name, name+"-") {
				t.Fatalf("%s %s rendered as %s: no content-hash name", kind, name, o.Metadata.Name)
			}
			return o.Metadata.Name
		}
	}
	t.Fatalf("the render has no %s labelled krender.io/name=%s:\n%s", kind, name, stream)
	return ""
}

// waitForController waits until the controller has made the revision of
// round k and deleted all but w.keep older ones (and, for Jobs, the Job has
// failed and its pods are gone: without a kubelet it never runs).
func (s *gcScenario) waitForController(k int) {
	want := min(k, s.w.keep+1)
	cur := s.versions[k-1]
	s.waitUntil(fmt.Sprintf("the %s controller keeps %d revisions, the newest using round %d's version", s.w.kind, want, k), func() (bool, string) {
		revs := s.revisions()
		var state []string
		newest := false
		for _, r := range revs {
			state = append(state, r.Metadata.Name)
			newest = newest || r.uses(cur.configMap) && r.uses(cur.secret)
		}
		if !s.w.jobs {
			return len(revs) == want && newest, strings.Join(state, " ")
		}
		pods := listObjects(s.t, s.ns, "pods")
		job := fmt.Sprintf("%s-%d", s.w.name, k)
		failed := slices.ContainsFunc(revs, func(r kobj) bool { return r.Metadata.Name == job && r.failed() })
		return len(revs) == want && newest && failed && len(pods) == 0, fmt.Sprintf("jobs %v, %d pods", state, len(pods))
	})
}

// checkVersions waits until exactly the versions of rounds k and k-1 exist
// (the revisions the controller kept use them) and checks their owners.
func (s *gcScenario) checkVersions(k int) {
	want := map[string]bool{}
	for i := max(0, k-1-s.w.keep); i < k; i++ {
		want[s.versions[i].configMap], want[s.versions[i].secret] = true, true
	}
	s.waitUntil(fmt.Sprintf("round %d: exactly the versions in use exist", k), func() (bool, string) {
		have := s.existing()
		return maps.Equal(have, want), fmt.Sprintf("have %v, want %v", slices.Sorted(maps.Keys(have)), slices.Sorted(maps.Keys(want)))
	})
	s.checkOwners()
}

// existing lists the rendered versions that exist. Listing them before the
// objects that use them makes the check race-free: a version missing here
// while a workload, revision or pod listed afterwards uses it was deleted
// while in use, which must never happen.
func (s *gcScenario) existing() map[string]bool {
	t := s.t
	t.Helper()
	have := map[string]bool{}
	for _, o := range listObjects(t, s.ns, "configmaps,secrets") {
		if s.rendered(o.Metadata.Name) {
			have[o.Metadata.Name] = true
		}
	}
	for _, u := range s.users() {
		for _, v := range s.versions {
			for _, name := range []string{v.configMap, v.secret} {
				if u.uses(name) && !have[name] {
					t.Fatalf("%s %s uses %s, which was deleted", u.Kind, u.Metadata.Name, name)
				}
			}
		}
	}
	return have
}

func (s *gcScenario) rendered(name string) bool {
	return slices.ContainsFunc(s.versions, func(v gcVersion) bool {
		return v.configMap == name || v.secret == name || v.extra != "" && v.extra == name
	})
}

// users are the objects that can start a pod from a version: the workload,
// its revisions and any pod.
func (s *gcScenario) users() []kobj {
	return append(append(listObjects(s.t, s.ns, s.w.kind), s.revisions()...), listObjects(s.t, s.ns, "pods")...)
}

// revisions are the workload's revisions (owned by it as their
// controller); none once it is deleted.
func (s *gcScenario) revisions() []kobj {
	workloads := listObjects(s.t, s.ns, s.w.kind)
	i := slices.IndexFunc(workloads, func(o kobj) bool { return o.Metadata.Name == s.w.name })
	if i < 0 {
		return nil
	}
	workload := workloads[i]
	var revs []kobj
	for _, r := range listObjects(s.t, s.ns, s.w.revisions) {
		if slices.ContainsFunc(r.Metadata.OwnerReferences, func(o ownerRef) bool { return o.UID == workload.Metadata.UID }) {
			revs = append(revs, r)
		}
	}
	return revs
}

// checkOwners: a version the workload names has no owner (pinned); any
// other is owned by exactly the revisions that use it, never by a pod,
// through references that neither block nor claim control.
func (s *gcScenario) checkOwners() {
	t := s.t
	t.Helper()
	var workload kobj
	kubectlJSON(t, &workload, "get", "-n", s.ns, s.w.kind, s.w.name)
	revs := s.revisions()
	for _, o := range listObjects(t, s.ns, "configmaps,secrets") {
		if !s.rendered(o.Metadata.Name) {
			continue
		}
		var want, have []string
		if !workload.uses(o.Metadata.Name) {
			for _, u := range revs {
				if u.uses(o.Metadata.Name) {
					want = append(want, u.Kind+"/"+u.Metadata.Name+"/"+u.Metadata.UID)
				}
			}
		}
		for _, ref := range o.Metadata.OwnerReferences {
			have = append(have, ref.Kind+"/"+ref.Name+"/"+ref.UID)
			if ref.Controller != nil && *ref.Controller || ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
				t.Errorf("%s %s: owner reference %+v claims control or blocks deletion", o.Kind, o.Metadata.Name, ref)
			}
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(have, want) {
			t.Errorf("%s %s is owned by %v, want (the %s naming it: none; else the revisions that use it) %v", o.Kind, o.Metadata.Name, have, s.w.kind, want)
		}
	}
}

// dryRunChangesNothing: --dry-run lists what gc would change (the old
// version, which only a revision names now, gains it as its owner) and
// changes nothing.
func (s *gcScenario) dryRunChangesNothing() {
	t := s.t
	before := snapshot(t, s.ns)
	r := s.gc("--dry-run")
	r.ok(t)
	if after := snapshot(t, s.ns); !maps.Equal(before, after) {
		t.Errorf("gc --dry-run changed objects: before %v, after %v\n%s", before, after, r)
	}
	for _, v := range s.versions[len(s.versions)-2 : len(s.versions)-1] {
		if !strings.Contains(r.stdout, v.configMap) || !strings.Contains(r.stdout, v.secret) {
			t.Errorf("gc --dry-run does not list %s and %s, whose owners it would change:\n%s", v.configMap, v.secret, r)
		}
	}
}

// secondRunChangesNothing: on an unchanged cluster gc changes nothing and
// lists no version; this run takes the namespace from the kubeconfig.
func (s *gcScenario) secondRunChangesNothing() {
	t := s.t
	before := snapshot(t, s.ns)
	r := s.gcIn("", "-o", "json")
	r.ok(t)
	if !json.Valid([]byte(r.stdout)) {
		t.Errorf("gc -o json printed no JSON:\n%s", r)
	}
	if after := snapshot(t, s.ns); !maps.Equal(before, after) {
		t.Errorf("a second gc run changed objects: before %v, after %v\n%s", before, after, r)
	}
	for _, v := range s.versions {
		if strings.Contains(r.stdout, v.configMap) || strings.Contains(r.stdout, v.secret) {
			t.Errorf("a second gc run lists a version it has nothing to change on:\n%s", r)
		}
	}
}

// reapplyKeepsOwners: applying the same render again, client-side and then
// server-side, leaves the owners gc set.
func (s *gcScenario) reapplyKeepsOwners(k int) {
	t := s.t
	before := s.owners()
	stream := s.versions[k-1].stream
	kubectlOK(t, stream, "apply", "--validate=strict", "-f", "-")
	if after := s.owners(); !maps.EqualFunc(before, after, slices.Equal) {
		t.Errorf("kubectl apply changed gc's owner references: before %v, after %v", before, after)
	}
	kubectlOK(t, stream, "apply", "--server-side", "--validate=strict", "-f", "-")
	if after := s.owners(); !maps.EqualFunc(before, after, slices.Equal) {
		t.Errorf("kubectl apply --server-side changed gc's owner references: before %v, after %v", before, after)
	}
}

func (s *gcScenario) owners() map[string][]string {
	m := map[string][]string{}
	for _, o := range listObjects(s.t, s.ns, "configmaps,secrets") {
		if s.rendered(o.Metadata.Name) {
			for _, ref := range o.Metadata.OwnerReferences {
				m[o.Metadata.Name] = append(m[o.Metadata.Name], ref.UID)
			}
			slices.Sort(m[o.Metadata.Name])
		}
	}
	return m
}

// concurrentRuns: two gc runs at once both succeed, and no owner either of
// them set is lost (checkVersions then checks them all).
func (s *gcScenario) concurrentRuns() {
	var wg sync.WaitGroup
	runs := make([]gcRun, 2)
	for i := range runs {
		wg.Go(func() { runs[i] = s.gc() })
	}
	wg.Wait()
	for _, r := range runs {
		r.ok(s.t)
	}
}

// rollbackLandsOnExistingVersion: `kubectl rollout undo` goes back to the
// previous revision, whose ConfigMap and Secret still exist; gc then pins
// them again and gives the version rolled away from to its revision.
func (s *gcScenario) rollbackLandsOnExistingVersion() {
	t := s.t
	prev := s.versions[len(s.versions)-2]
	kubectlOK(t, "", "rollout", "undo", "-n", s.ns, s.w.kind+"/"+s.w.name)
	s.waitUntil("the controller sees the rollback", func() (bool, string) {
		var w kobj
		kubectlJSON(t, &w, "get", "-n", s.ns, s.w.kind, s.w.name)
		return w.uses(prev.configMap) && w.uses(prev.secret) && w.Status.ObservedGeneration >= w.Metadata.Generation, w.raw
	})
	have := s.existing()
	if !have[prev.configMap] || !have[prev.secret] {
		t.Fatalf("after rollout undo, %s and %s, which the template uses, do not both exist: %v", prev.configMap, prev.secret, have)
	}
	s.runGC()
	s.checkVersions(len(s.versions))
}

// createBystanders creates objects gc must leave alone: a ConfigMap without
// krender's label, and one labelled as a version of config but owned by
// another tool. Neither is used by any workload, and newer versions of config
// will be.
func createBystanders(t *testing.T, ns, config string) map[string]kobj {
	t.Helper()
	kubectlOK(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other-tools-owner}\ndata: {a: b}\n", "apply", "-n", ns, "-f", "-")
	var owner kobj
	kubectlJSON(t, &owner, "get", "-n", ns, "configmap", "other-tools-owner")
	objs := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-unlabelled
data: {version: "0"}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-foreign000
  labels: {krender.io/name: %[1]s}
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: other-tools-owner, uid: %[2]s}
data: {version: "0"}
`, config, owner.Metadata.UID)
	kubectlOK(t, objs, "create", "-n", ns, "-f", "-")
	m := map[string]kobj{}
	for _, name := range []string{config + "-unlabelled", config + "-foreign000"} {
		var o kobj
		kubectlJSON(t, &o, "get", "-n", ns, "configmap", name)
		m[name] = o
	}
	return m
}

// checkBystanders: neither bystander was changed by any gc run.
func (s *gcScenario) checkBystanders() {
	for name, was := range s.bystanders {
		var o kobj
		kubectlJSON(s.t, &o, "get", "-n", s.ns, "configmap", name)
		if o.Metadata.ResourceVersion != was.Metadata.ResourceVersion {
			s.t.Errorf("gc changed ConfigMap %s, which is not its own: was\n%s\nnow\n%s", name, was.raw, o.raw)
		}
	}
}

// gcRun is one run of `krender gc`.
type gcRun struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r gcRun) String() string {
	return fmt.Sprintf("krender %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

func (r gcRun) ok(t *testing.T) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
}

func (s *gcScenario) runGC() { s.gc().ok(s.t) }

// gc runs `krender gc -n NS` under the Role; gcIn with "" leaves -n out.
func (s *gcScenario) gc(args ...string) gcRun { return s.gcIn(s.ns, args...) }

func (s *gcScenario) gcIn(ns string, args ...string) gcRun {
	r := runGC(s.bin, s.gcConfig, ns, args...)
	s.noSecretIn(r)
	return r
}

// runGC runs gc; it may run on any goroutine, so it reports a failure to
// start as exit status -1 rather than ending the test.
func runGC(bin, kubeconfig, ns string, args ...string) gcRun {
	r := gcRun{args: append([]string{"gc", "--kubeconfig", kubeconfig}, args...)}
	if ns != "" {
		r.args = append(r.args, "-n", ns)
	}
	cmd := exec.Command(bin, r.args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r.stdout, r.stderr = stdout.String(), stderr.String()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		r.code, r.stderr = -1, err.Error()
	}
	return r
}

// noSecretIn: no Secret value of any round, as written or base64, appears
// in gc's output.
func (s *gcScenario) noSecretIn(r gcRun) {
	for _, v := range s.versions {
		for _, form := range []string{v.password, base64.StdEncoding.EncodeToString([]byte(v.password))} {
			if strings.Contains(r.stdout+r.stderr, form) {
				s.t.Errorf("gc printed a Secret's value:\n%s", r)
			}
		}
	}
}

func (s *gcScenario) waitUntil(what string, cond func() (bool, string)) {
	s.t.Helper()
	waitUntil(s.t, what, cond)
}

// waitUntil polls cond until it holds, failing with the last state seen
// once gcWait has passed.
func waitUntil(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(gcWait)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last seen: %s", what, gcWait, state)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// snapshot maps every ConfigMap and Secret in ns to its resourceVersion,
// which any change to it moves.
func snapshot(t *testing.T, ns string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, o := range listObjects(t, ns, "configmaps,secrets") {
		m[o.Kind+"/"+o.Metadata.Name] = o.Metadata.ResourceVersion
	}
	return m
}

// kobj is the part of an object the gc tests read; uses searches its spec
// (and a ControllerRevision's data) for the names a pod template uses, not
// its annotations, where kubectl's last-applied configuration may name a
// version the template no longer uses.
type kobj struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name            string            `json:"name"`
		UID             string            `json:"uid"`
		ResourceVersion string            `json:"resourceVersion"`
		Generation      int64             `json:"generation"`
		Labels          map[string]string `json:"labels"`
		OwnerReferences []ownerRef        `json:"ownerReferences"`
	} `json:"metadata"`
	Status struct {
		ObservedGeneration int64 `json:"observedGeneration"`
		Conditions         []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
	Spec json.RawMessage `json:"spec"`
	Data json.RawMessage `json:"data"`
	raw  string
}

func (o kobj) uses(name string) bool {
	return bytes.Contains(o.Spec, []byte(`"`+name+`"`)) || bytes.Contains(o.Data, []byte(`"`+name+`"`))
}

func (o *kobj) UnmarshalJSON(b []byte) error {
	type plain kobj
	if err := json.Unmarshal(b, (*plain)(o)); err != nil {
		return err
	}
	o.raw = string(b)
	return nil
}

// failed: a Job that reached its activeDeadlineSeconds.
func (o kobj) failed() bool {
	return slices.ContainsFunc(o.Status.Conditions, func(c struct {
		Type   string `json:"type"`
		Status string `json:"status"`
	}) bool {
		return c.Type == "Failed" && c.Status == "True"
	})
}

type ownerRef struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion"`
}

func listObjects(t *testing.T, ns, resources string) []kobj {
	t.Helper()
	var list struct {
		Items []kobj `json:"items"`
	}
	kubectlJSON(t, &list, "get", "-n", ns, resources)
	return list.Items
}

func kubectlOK(t *testing.T, stdin string, args ...string) {
	t.Helper()
	if out, err := kubectl(t, stdin, args...); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func randomHex(t *testing.T) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// gcDocsRole reads the Role the docs give for gc: the first YAML block of
// the page that holds a `kind: Role`. Where the cluster serves Argo
// Rollouts (the CRD tests install theirs), the docs' commented rule for them
// is taken in, as the docs tell a user of such a cluster to do.
func gcDocsRole(t *testing.T) map[string]any {
	t.Helper()
	page, err := os.ReadFile(gcDocs)
	if err != nil {
		t.Fatalf("the Role gc needs: %v", err)
	}
	rollouts := servesRollouts(t)
	for _, block := range regexp.MustCompile("(?s)```ya?ml\n(.*?)```").FindAllSubmatch(page, -1) {
		text := block[1]
		if rollouts && bytes.Contains(text, []byte("kind: Role\n")) {
			text = uncommentRolloutsRule(t, text)
		}
		docs, err := testtool.KubectlDocs(text)
		if err != nil {
			continue
		}
		for _, d := range docs {
			var role map[string]any
			if err := json.Unmarshal(d, &role); err == nil && role["kind"] == "Role" {
				return role
			}
		}
	}
	t.Fatalf("%s gives no Role in a ```yaml block", gcDocs)
	return nil
}

func servesRollouts(t *testing.T) bool {
	t.Helper()
	out, err := kubectl(t, "", "api-resources", "--api-group=argoproj.io", "-o", "name")
	if err != nil {
		t.Fatalf("kubectl api-resources: %v\n%s", err, out)
	}
	return slices.Contains(strings.Fields(out), "rollouts.argoproj.io")
}

// uncommentRolloutsRule takes the `#` off the docs' commented rule for
// rollouts in the argoproj.io group and the more indented comment lines
// that follow it.
func uncommentRolloutsRule(t *testing.T, block []byte) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(block), "\n")
	start := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(strings.TrimSpace(l), "# - apiGroups: [argoproj.io]")
	})
	if start < 0 {
		t.Fatalf("the cluster serves Argo Rollouts and the Role in %s has no rule to take in for them", gcDocs)
	}
	indent := strings.Index(lines[start], "#")
	for i := start; i < len(lines); i++ {
		l := lines[i]
		if i > start && (!strings.HasPrefix(strings.TrimSpace(l), "#   ") || strings.Index(l, "#") != indent) {
			break
		}
		lines[i] = l[:indent] + strings.TrimPrefix(l[indent:], "# ")
	}
	return []byte(strings.Join(lines, ""))
}

// withoutVerb is role with verb taken out of every rule; it fails the test
// if role has no such verb, since the test would then prove nothing.
func withoutVerb(t *testing.T, role map[string]any, verb string) map[string]any {
	t.Helper()
	var cp map[string]any
	b, _ := json.Marshal(role)
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	removed := 0
	rules, _ := cp["rules"].([]any)
	for _, r := range rules {
		rule, _ := r.(map[string]any)
		verbs, _ := rule["verbs"].([]any)
		kept := slices.DeleteFunc(verbs, func(v any) bool { return v == verb })
		removed += len(verbs) - len(kept)
		rule["verbs"] = kept
	}
	if removed == 0 {
		t.Fatalf("the Role in %s grants no %q", gcDocs, verb)
	}
	return cp
}

// grantRole creates role in ns, a ServiceAccount bound to it, and a
// kubeconfig that acts as that ServiceAccount (impersonation, which the
// test server's admin may do), with ns as its context's namespace.
func grantRole(t *testing.T, ns string, role map[string]any) string {
	t.Helper()
	meta, _ := role["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if name == "" {
		t.Fatalf("the Role in %s has no name", gcDocs)
	}
	delete(meta, "namespace")
	roleJSON, err := json.Marshal(role)
	if err != nil {
		t.Fatal(err)
	}
	kubectlOK(t, string(roleJSON), "apply", "-n", ns, "-f", "-")
	kubectlOK(t, "", "create", "serviceaccount", "-n", ns, gcServiceAccount)
	kubectlOK(t, "", "create", "rolebinding", "-n", ns, gcServiceAccount, "--role="+name,
		"--serviceaccount="+ns+":"+gcServiceAccount)
	grantClusterReads(t, ns)
	return impersonatingKubeconfig(t, ns, "system:serviceaccount:"+ns+":"+gcServiceAccount)
}

// grantClusterReads binds the docs' ClusterRole of cluster-scoped reads
// (under a name of ns's own, removed at the end) to ns's gc ServiceAccount.
func grantClusterReads(t *testing.T, ns string) {
	t.Helper()
	page, err := os.ReadFile(gcDocs)
	if err != nil {
		t.Fatal(err)
	}
	var role map[string]any
	for _, block := range regexp.MustCompile("(?s)```ya?ml\n(.*?)```").FindAllSubmatch(page, -1) {
		if err := sigsyaml.Unmarshal(block[1], &role); err == nil && role["kind"] == "ClusterRole" {
			break
		}
		role = nil
	}
	if role == nil {
		t.Fatalf("%s gives no ClusterRole in a ```yaml block", gcDocs)
	}
	name := "krender-gc-cluster-reads-" + ns
	role["metadata"] = map[string]any{"name": name}
	b, err := json.Marshal(role)
	if err != nil {
		t.Fatal(err)
	}
	kubectlOK(t, string(b), "apply", "-f", "-")
	kubectlOK(t, "", "create", "clusterrolebinding", name, "--clusterrole="+name, "--serviceaccount="+ns+":"+gcServiceAccount)
	t.Cleanup(func() { kubectl(t, "", "delete", "clusterrole,clusterrolebinding", name, "--wait=false") })
}

func impersonatingKubeconfig(t *testing.T, ns, user string) string {
	t.Helper()
	b, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var kc struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Clusters   []map[string]any `json:"clusters"`
		Users      []struct {
			Name string         `json:"name"`
			User map[string]any `json:"user"`
		} `json:"users"`
		Contexts []struct {
			Name    string         `json:"name"`
			Context map[string]any `json:"context"`
		} `json:"contexts"`
		CurrentContext string `json:"current-context"`
	}
	if err := sigsyaml.Unmarshal(b, &kc); err != nil {
		t.Fatal(err)
	}
	for i := range kc.Users {
		kc.Users[i].User["as"] = user
	}
	for i := range kc.Contexts {
		kc.Contexts[i].Context["namespace"] = ns
	}
	out, err := sigsyaml.Marshal(kc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGCRoleWithoutPatch: under the docs' Role less `patch`, gc stops with
// one error that names the verb and the resource, exit status 2, and
// changes nothing.
func TestGCRoleWithoutPatch(t *testing.T) {
	t.Parallel()
	s := newGCScenario(t, gcDeployment, withoutVerb(t, gcDocsRole(t), "patch"))
	// Two rounds: the first version, which only the old ReplicaSet names
	// then, is one gc must patch (the Deployment's own is pinned).
	for k := 1; k <= 2; k++ {
		s.apply(k)
		s.waitForController(k)
	}
	before := snapshot(t, s.ns)
	r := s.gc()
	if r.code != 2 {
		t.Fatalf("want exit status 2:\n%s", r)
	}
	msg := strings.TrimSpace(r.stderr)
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "patch") ||
		!strings.Contains(msg, "configmaps") && !strings.Contains(msg, "secrets") {
		t.Errorf("want one line naming the verb patch and the resource:\n%s", r)
	}
	if after := snapshot(t, s.ns); !maps.Equal(before, after) {
		t.Errorf("gc without patch permission changed objects: before %v, after %v", before, after)
	}
}

// TestGCUnreachableCluster: a cluster that does not answer is one error
// naming it, exit status 2.
func TestGCUnreachableCluster(t *testing.T) {
	t.Parallel()
	bin := testtool.Krender(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	// Port 1 on loopback: nothing of this machine's listens there.
	body := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\n" +
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u, namespace: nowhere}\ncurrent-context: x\n"
	if err := os.WriteFile(kc, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runGC(bin, kc, "")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "127.0.0.1:1") {
		t.Errorf("want exit status 2 and one error naming 127.0.0.1:1:\n%s", r)
	}
}
